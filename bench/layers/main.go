// Command layers fetches small HTTP files into a folder, as
// "fetch -O --output-dir DIR --parallel 64 URL..." does, with fetch's
// layers peeled off one at a time, so that bench/small.sh can say what
// each costs beside the whole program and curl:
//
//	batch  fetch.Batch over a fetch.Client (the library, no CLI)
//	do     fetch.Client.Do, from P goroutines that share the URLs
//	raw    no fetch at all: P goroutines, a kept-alive connection each,
//	       a GET written and its reply read by hand
//
// Every mode saves each body the same way, as the least a careful client
// does: an unnamed file given its name when complete on Linux (see
// save_linux.go), a plain file elsewhere. A URL's file is its last path
// segment, as -O names it.
//
//	layers -mode batch|do|raw -dir DIR [-p 64] URL...
//
// It exits 1 on any failure. The URLs must all be http:// ones of one
// server for raw.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

func main() {
	mode := flag.String("mode", "batch", "batch, do or raw")
	dir := flag.String("dir", "", "the folder to write into")
	par := flag.Int("p", 64, "the transfers at a time")
	flag.Parse()
	var err error
	switch *mode {
	case "batch":
		err = viaBatch(*dir, *par, flag.Args())
	case "do":
		err = viaDo(*dir, *par, flag.Args())
	case "raw":
		err = viaRaw(*dir, *par, flag.Args())
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "layers:", err)
		os.Exit(1)
	}
}

// name is the file name of u, its last path segment.
func name(u string) string { return u[strings.LastIndexByte(u, '/')+1:] }

func client(par int) *fetch.Client {
	c := &fetch.Client{PerHost: par}
	schemes.Register(c)
	return c
}

func viaBatch(dir string, par int, urls []string) error {
	b := &fetch.Batch{Client: client(par), Parallel: par, PerHost: par}
	bufs := sync.Pool{New: func() any { return new([32 << 10]byte) }}
	return b.Run(context.Background(), slices.Values(urls), func(ctx context.Context, r *fetch.Result) error {
		if r.Err != nil {
			return r.Err
		}
		buf := bufs.Get().(*[32 << 10]byte)
		defer bufs.Put(buf)
		return save(dir, name(r.Input), r.Resource.Body, buf[:])
	})
}

// each runs fn for every URL from par goroutines, and returns the first
// error.
func each(par int, urls []string, fn func(w *worker, u string) error) error {
	work := make(chan string, len(urls))
	for _, u := range urls {
		work <- u
	}
	close(work)
	errs := make([]error, par)
	var wg sync.WaitGroup
	for i := range par {
		wg.Go(func() {
			w := &worker{}
			defer w.close()
			for u := range work {
				if err := fn(w, u); err != nil {
					errs[i] = fmt.Errorf("%s: %w", u, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// worker is what one goroutine keeps from URL to URL.
type worker struct {
	buf  [32 << 10]byte
	conn net.Conn
	br   *bufio.Reader
	req  []byte
}

func (w *worker) close() {
	if w.conn != nil {
		w.conn.Close()
	}
}

func viaDo(dir string, par int, urls []string) error {
	c := client(par)
	return each(par, urls, func(w *worker, s string) error {
		u, err := url.Parse(s)
		if err != nil {
			return err
		}
		res, err := c.Do(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			return err
		}
		defer res.Body.Close()
		return save(dir, name(s), res.Body, w.buf[:])
	})
}

func viaRaw(dir string, par int, urls []string) error {
	return each(par, urls, func(w *worker, s string) error {
		hostPath, ok := strings.CutPrefix(s, "http://")
		slash := strings.IndexByte(hostPath, '/')
		if !ok || slash < 0 {
			return errors.New("not an http:// URL with a path")
		}
		host, path := hostPath[:slash], hostPath[slash:]
		if w.conn == nil {
			c, err := net.Dial("tcp", host)
			if err != nil {
				return err
			}
			w.conn, w.br = c, bufio.NewReaderSize(c, 4<<10)
		}
		w.req = append(append(append(append(w.req[:0], "GET "...), path...), " HTTP/1.1\r\nHost: "...), host...)
		w.req = append(w.req, "\r\nUser-Agent: layers\r\n\r\n"...)
		if _, err := w.conn.Write(w.req); err != nil {
			return err
		}
		n, err := rawHead(w.br)
		if err != nil {
			return err
		}
		return save(dir, name(s), io.LimitReader(w.br, n), w.buf[:])
	})
}

// rawHead reads a reply's head, which must be 200 with a Content-Length,
// and returns that length.
func rawHead(br *bufio.Reader) (int64, error) {
	n := int64(-1)
	for i := 0; ; i++ {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		l := strings.TrimRight(string(line), "\r\n")
		switch {
		case i == 0 && !strings.HasPrefix(l, "HTTP/1.1 200 "):
			return 0, fmt.Errorf("reply %q", l)
		case l == "":
			if n < 0 {
				return 0, errors.New("no Content-Length")
			}
			return n, nil
		}
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Content-Length") {
			if n, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
				return 0, err
			}
		}
	}
}
