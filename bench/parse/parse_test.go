//go:build linux

// Package parse compares the url package's parser with net/url over a
// corpus of real-world URLs (FETCH_URL_CORPUS, by default
// /work/shared/corpus/urls-realworld.txt; the benchmark skips without
// one). It holds only a benchmark: bash bench/parse.sh runs it.
package parse

import (
	"bytes"
	neturl "net/url"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/rfc1738/fetch/url"
)

func corpus(b *testing.B) []string {
	path := os.Getenv("FETCH_URL_CORPUS")
	if path == "" {
		path = "/work/shared/corpus/urls-realworld.txt"
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no corpus: %v", err)
	}
	var urls []string
	for _, l := range bytes.Split(bytes.TrimRight(raw, "\n"), []byte("\n")) {
		urls = append(urls, string(l))
	}
	return urls
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// BenchmarkVsNetURL parses the corpus in batches of 1,000 URLs, ours then
// net/url's, each batch timed in wall and thread CPU time, so that both
// parsers see the same load. It reports the medians over the batches of
// the ratio ours/net/url for wall and for CPU time, the totals per URL, and
// our allocations per URL.
func BenchmarkVsNetURL(b *testing.B) {
	urls := corpus(b)
	p := url.Parser{Lenient: true}
	const batch = 1000
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var wall, cpu []float64
	var oursW, theirsW, oursC, theirsC time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := (i * batch) % len(urls)
		w0, c0 := time.Now(), threadCPU()
		for j := 0; j < batch; j++ {
			p.Parse(urls[(base+j)%len(urls)])
		}
		w1, c1 := time.Now(), threadCPU()
		for j := 0; j < batch; j++ {
			neturl.Parse(urls[(base+j)%len(urls)])
		}
		w2, c2 := time.Now(), threadCPU()
		oursW += w1.Sub(w0)
		theirsW += w2.Sub(w1)
		oursC += c1 - c0
		theirsC += c2 - c1
		wall = append(wall, float64(w1.Sub(w0))/float64(w2.Sub(w1)))
		if c2 > c1 {
			cpu = append(cpu, float64(c1-c0)/float64(c2-c1))
		}
	}
	b.StopTimer()
	n := float64(b.N) * batch
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(oursW)/n, "ours-wall-ns/url")
	b.ReportMetric(float64(theirsW)/n, "neturl-wall-ns/url")
	b.ReportMetric(float64(oursC)/n, "ours-cpu-ns/url")
	b.ReportMetric(float64(theirsC)/n, "neturl-cpu-ns/url")
	b.ReportMetric(median(wall), "wall-ratio")
	b.ReportMetric(median(cpu), "cpu-ratio")

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for _, u := range urls {
		p.Parse(u)
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(len(urls)), "allocs/url")
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	slices.Sort(x)
	if len(x)%2 == 1 {
		return x[len(x)/2]
	}
	return (x[len(x)/2-1] + x[len(x)/2]) / 2
}
