// Command sink is the least a client can do to save a gopher item: it
// connects, sends one selector, and moves what the server sends into a
// file until the server closes, by splice(2) on Linux (os.File.ReadFrom),
// woken once a MiB has come as fetch's gopher splice is. Its time is the
// server's own pace plus the file's, which bench/bulk.sh sets beside
// fetch's and curl's.
//
//	sink -addr 127.0.0.1:PORT -selector /big.bin -o FILE [-lowat BYTES]
//
// -lowat sets the socket's receive low mark (default 1 MiB, as fetch's;
// 0 sets none, so that the sink wakes for every write of the server's).
//
// It prints the bytes moved on stdout, and exits 1 on any failure.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "", "the server's address, host:port")
	selector := flag.String("selector", "", "the selector to send")
	out := flag.String("o", os.DevNull, "the file to write")
	timeout := flag.Duration("timeout", time.Minute, "the most the whole transfer may take")
	lowat := flag.Int("lowat", 1<<20, "the socket's receive low mark in bytes; 0 for none")
	flag.Parse()
	n, err := sink(*addr, *selector, *out, *timeout, *lowat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sink:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}

func sink(addr, selector, out string, timeout time.Duration, lowat int) (int64, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if lowat > 0 {
		setLowat(c.(*net.TCPConn), lowat)
	}
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, selector+"\r\n"); err != nil {
		return 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	n, err := f.ReadFrom(c)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
