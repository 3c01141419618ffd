package ftp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// BenchmarkServerSmallFiles fetches the small files of a real server (the
// vsftpd of integration_test/servers/ftp.sh: FETCH_IT_FTP_ADDR and
// FETCH_IT_FTP_SMALL set) over pooled connections, one at a time and four
// at once. It is skipped without that server.
func BenchmarkServerSmallFiles(b *testing.B) {
	addr := os.Getenv("FETCH_IT_FTP_ADDR")
	n, _ := strconv.Atoi(os.Getenv("FETCH_IT_FTP_SMALL"))
	if addr == "" || n == 0 {
		b.Skip("no server: FETCH_IT_FTP_ADDR and FETCH_IT_FTP_SMALL unset")
	}
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("ftp://%s/small/f%03d.bin", addr, i+1)
	}
	one := func(b *testing.B, h *Handler, s string) {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: parseB(b, s)})
		if err != nil {
			b.Error(err)
			return
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Error(err)
		}
		res.Body.Close()
	}
	for _, par := range []int{1, 4} {
		b.Run(fmt.Sprintf("par%d", par), func(b *testing.B) {
			h := &Handler{}
			defer h.Close()
			i := 0
			for b.Loop() {
				var wg sync.WaitGroup
				for k := range par {
					wg.Add(1)
					go func(s string) {
						defer wg.Done()
						one(b, h, s)
					}(urls[(i+k)%n])
				}
				wg.Wait()
				i += par
			}
		})
	}
}
