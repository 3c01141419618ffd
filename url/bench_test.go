package url

import (
	"bytes"
	neturl "net/url"
	"os"
	"runtime"
	"testing"
	"time"
)

// realWorldCorpus is the shared corpus of real-world URLs, one a line. It is
// not committed (4.7 MB); the benchmarks skip when it is absent.
const realWorldCorpus = "/work/shared/corpus/urls-realworld.txt"

// corpus is the real-world corpus held as one string and the end offset of
// each line in it, so that the garbage collector has almost nothing to scan
// and the benchmarks measure the parsers, not the harness.
type corpus struct {
	data string
	ends []int32
}

func (c *corpus) url(i int) string {
	i %= len(c.ends)
	start := int32(0)
	if i > 0 {
		start = c.ends[i-1] + 1
	}
	return c.data[start:c.ends[i]]
}

func loadCorpus(b *testing.B) *corpus {
	b.Helper()
	raw, err := os.ReadFile(realWorldCorpus)
	if err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	c := &corpus{data: string(bytes.TrimRight(raw, "\n"))}
	for i := 0; i < len(c.data); i++ {
		if c.data[i] == '\n' {
			c.ends = append(c.ends, int32(i))
		}
	}
	c.ends = append(c.ends, int32(len(c.data)))
	return c
}

// BenchmarkParse parses the real-world corpus with a lenient Parser; one op
// is one URL, so ns/op and allocs/op are per URL.
func BenchmarkParse(b *testing.B) {
	urls := loadCorpus(b)
	p := Parser{Lenient: true}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Parse(urls.url(i))
	}
}

// BenchmarkParseStrict is BenchmarkParse with a strict Parser (many real
// URLs fail, which costs an *Error).
func BenchmarkParseStrict(b *testing.B) {
	urls := loadCorpus(b)
	p := Parser{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Parse(urls.url(i))
	}
}

// BenchmarkNetURLParse parses the same corpus with the standard library's
// net/url, for comparison.
func BenchmarkNetURLParse(b *testing.B) {
	urls := loadCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		neturl.Parse(urls.url(i))
	}
}

// BenchmarkParseVsNetURL alternates the two parsers over the corpus in
// batches of 1,000 URLs, so that both see the same machine load, and
// reports each one's thread CPU time per URL and their ratio (ours /
// net/url). CPU time leaves out time the thread spent descheduled, which
// wall time on a shared machine does not.
func BenchmarkParseVsNetURL(b *testing.B) {
	urls := loadCorpus(b)
	p := Parser{Lenient: true}
	const batch = 1000
	var ours, theirs time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := i * batch
		t0 := threadCPU()
		for j := 0; j < batch; j++ {
			p.Parse(urls.url(base + j))
		}
		t1 := threadCPU()
		for j := 0; j < batch; j++ {
			neturl.Parse(urls.url(base + j))
		}
		t2 := threadCPU()
		ours += t1 - t0
		theirs += t2 - t1
	}
	n := float64(b.N) * batch
	b.ReportMetric(float64(ours.Nanoseconds())/n, "ours-ns/url")
	b.ReportMetric(float64(theirs.Nanoseconds())/n, "neturl-ns/url")
	b.ReportMetric(float64(ours)/float64(theirs), "ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkResolveNormalize resolves the links of a crawled page against
// it and normalises them, as a crawl does with each link it finds: one op
// is one link.
func BenchmarkResolveNormalize(b *testing.B) {
	p := Parser{Lenient: true}
	base, err := p.Parse("http://127.0.0.1:8080/site/p42.html")
	if err != nil {
		b.Fatal(err)
	}
	refs := []string{"index.html", "./p42.html", "../site/p42.html", "logo.png", "p421.html", "/site/a/b.html?x=1"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		u, err := p.Resolve(base, refs[i%len(refs)])
		if err != nil {
			b.Fatal(err)
		}
		_ = u.Normalize().String()
	}
}
