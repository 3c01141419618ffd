package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// BenchmarkRemoteNameMany measures the whole command on many small files,
// "fetch -s -O --output-dir DIR --parallel P URL...", in process, against
// a server that answers every GET at once with 1 KiB: what the program
// costs per URL beyond the network, the allocations above all. The files
// go under $TMPDIR: TMPDIR=/dev/shm leaves the disk out of it.
func BenchmarkRemoteNameMany(b *testing.B) {
	const n = 1000
	body := bytes.Repeat([]byte("x"), 1024)
	reply := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1024\r\n\r\n" + string(body))
	addr := fetchtest.Serve(b, func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			// A request ends with an empty line.
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					return
				}
				if len(line) <= 2 {
					break
				}
			}
			if _, err := c.Write(reply); err != nil {
				return
			}
		}
	})
	urls := make([]string, n)
	for i := range urls {
		urls[i] = "http://" + addr + "/small/f" + strconv.Itoa(i) + ".bin"
	}
	for _, par := range []int{8, 64} {
		b.Run("parallel="+strconv.Itoa(par), func(b *testing.B) {
			p := strconv.Itoa(par)
			root := b.TempDir()
			var stats runtime.MemStats
			var mallocs uint64
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dir := root + "/" + strconv.Itoa(i)
				i++
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				args := append([]string{"-s", "--parallel", p, "--per-host", p, "-O", "--output-dir", dir}, urls...)
				var errb strings.Builder
				runtime.ReadMemStats(&stats)
				before := stats.Mallocs
				code := run(context.Background(), args, strings.NewReader(""), os.Stdout, &errb)
				runtime.ReadMemStats(&stats)
				mallocs += stats.Mallocs - before
				if code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
				if err := os.RemoveAll(dir); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(mallocs)/float64(i*n), "allocs/url")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i*n), "ns/url")
		})
	}
}
