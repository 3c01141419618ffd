package main

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSessionRefusesOutputFile checks that -o with a telnet URL is refused
// (exit 2) before anything is dialled, leaving no file and no temporary.
func TestSessionRefusesOutputFile(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialled := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialled <- struct{}{}
			c.Write([]byte("hello\r\n"))
			c.Close()
		}
	}()
	dir := t.TempDir()
	u := "telnet://" + ln.Addr().String() + "/"
	_, errs, code := fetchCmd(t, "", "--max-time", "20", "-o", dir+"/session.txt", u)
	if code != 2 || !strings.Contains(errs, u) {
		t.Errorf("-o with a telnet URL: exit %d, stderr %q; want 2 naming the URL", code, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the output folder holds %d entries (%s...), want none", len(entries), entries[0].Name())
	}
	select {
	case <-dialled:
		t.Error("the server was dialled")
	case <-time.After(100 * time.Millisecond):
	}
}
