package fetch

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkBatch measures what a Batch itself costs per URL: the handler
// answers at once from memory, so the time is the scheduler's, the
// hand-offs between its goroutines, and the parse.
func BenchmarkBatch(b *testing.B) {
	for _, par := range []int{1, 8, 64} {
		b.Run("parallel="+strconv.Itoa(par), func(b *testing.B) {
			c := &Client{PerHost: -1}
			c.Register("http", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
				return &Resource{URL: req.URL, Size: 2, Body: io.NopCloser(strings.NewReader("ok"))}, nil
			}))
			bt := &Batch{Client: c, Parallel: par, PerHost: par, FetchDuplicates: true}
			urls := make([]string, 1000)
			for i := range urls {
				urls[i] = "http://example.org/f" + strconv.Itoa(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				err := bt.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
					if r.Err != nil {
						return r.Err
					}
					_, err := io.Copy(io.Discard, r.Resource.Body)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(urls)), "ns/url")
		})
	}
}
