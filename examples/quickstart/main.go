// Command quickstart shows fetch at work with no network: it writes a few
// files, serves them on 127.0.0.1 over HTTP and gopher from this very
// process, and fetches them by file:, http: and gopher: URLs through one
// fetch.Client, printing what each URL means (--dry-run's lines) and what
// came back.
//
//	go run ./examples/quickstart
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "fetch-quickstart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"hello.txt":  "Hello from a file served on 127.0.0.1.\n",
		"rfc1738.md": "Uniform Resource Locators (URL), December 1994.\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}

	httpAddr, stopHTTP, err := serveHTTP(dir)
	if err != nil {
		return err
	}
	defer stopHTTP()
	gopherAddr, stopGopher, err := serveGopher(dir)
	if err != nil {
		return err
	}
	defer stopGopher()

	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	schemes.Register(c)
	defer c.Close()

	urls := []string{
		"file://" + filepath.ToSlash(filepath.Join(dir, "hello.txt")),
		"file://" + filepath.ToSlash(dir) + "/",
		"http://" + httpAddr + "/hello.txt",
		"gopher://" + gopherAddr + "/0/rfc1738.md",
		"gopher://" + gopherAddr + "/1/",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	failed := 0
	for _, raw := range urls {
		fmt.Printf("== %s\n", raw)
		u, err := c.Parser.Parse(raw)
		if err != nil {
			return err
		}
		if lines, err := c.Plan(&fetch.Request{URL: u}); err == nil {
			for _, l := range lines {
				fmt.Printf("   means: %s\n", l)
			}
		}
		res, err := c.Do(ctx, &fetch.Request{URL: u})
		if err != nil {
			fmt.Printf("   error: %v (%v)\n", err, fetch.KindOf(err))
			failed++
			continue
		}
		h := sha256.New()
		body, err := io.ReadAll(io.TeeReader(io.LimitReader(res.Body, 1<<20), h))
		res.Body.Close()
		if err != nil {
			fmt.Printf("   error: %v\n", err)
			failed++
			continue
		}
		fmt.Printf("   kind %s, %d bytes, sha256 %x\n", res.Kind, len(body), h.Sum(nil)[:8])
		for _, line := range strings.SplitAfter(strings.TrimRight(string(body), "\n"), "\n") {
			fmt.Printf("   | %s", strings.TrimRight(line, "\n")+"\n")
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d fetches failed", failed, len(urls))
	}
	fmt.Println("all fetched.")
	return nil
}

// serveHTTP serves dir over HTTP on a loopback port.
func serveHTTP(dir string) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return ln.Addr().String(), func() { srv.Close() }, nil
}

// serveGopher serves dir by RFC 1436: the empty selector (or "/") is a menu
// of the files, any other selector names a file, sent as text and closed.
func serveGopher(dir string) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(10 * time.Second))
				line, err := bufio.NewReader(io.LimitReader(conn, 4096)).ReadString('\n')
				if err != nil {
					return
				}
				sel := strings.TrimRight(line, "\r\n")
				if sel == "" || sel == "/" {
					entries, _ := os.ReadDir(dir)
					for _, e := range entries {
						fmt.Fprintf(conn, "0%s\t/%s\t%s\t%s\r\n", e.Name(), e.Name(), host, port)
					}
					io.WriteString(conn, ".\r\n")
					return
				}
				f, err := os.Open(filepath.Join(dir, filepath.Base(sel)))
				if err != nil {
					fmt.Fprintf(conn, "3%s not found\t\terror.host\t1\r\n.\r\n", sel)
					return
				}
				defer f.Close()
				io.Copy(conn, f)
			}()
		}
	}()
	return ln.Addr().String(), func() { ln.Close() }, nil
}
