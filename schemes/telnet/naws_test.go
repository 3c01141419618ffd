package telnet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// rawNAWS serves one connection that asks DO NAWS and sends on got the
// raw bytes the client answers, read until want's length or 10 seconds.
func rawNAWS(t *testing.T, n int) (string, <-chan []byte) {
	t.Helper()
	got := make(chan []byte, 1)
	addr := fetchtest.Serve(t, func(c net.Conn) {
		c.Write([]byte{cIAC, cDO, oNAWS})
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, n)
		k, _ := io.ReadFull(c, b)
		got <- b[:k]
		io.Copy(io.Discard, c)
	})
	return addr, got
}

// TestNAWSOnTheWire checks the bytes sent for NAWS (RFC 1073): WILL NAWS,
// then the window size in a subnegotiation whose 255 bytes are doubled
// (RFC 855), not the library's 65535×65535 with bare 255s.
func TestNAWSOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		want []byte
	}{
		{80, 24, []byte{0, 80, 0, 24}},
		{255, 255, []byte{0, 255, 255, 0, 255, 255}},
		{65535, 300, []byte{255, 255, 255, 255, 1, 44}},
		{511, 70000, []byte{1, 255, 255, 255, 255, 255, 255}},
	} {
		want := append([]byte{cIAC, cWILL, oNAWS, cIAC, cSB, oNAWS}, tc.want...)
		want = append(want, cIAC, cSE)
		addr, got := rawNAWS(t, len(want))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		h := &Handler{Width: tc.w, Height: tc.h}
		s, err := h.Open(ctx, &fetch.Request{URL: parse(t, "telnet://"+addr)})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		// Reading makes the library answer the server's DO NAWS.
		go io.Copy(io.Discard, s)
		if b := <-got; !bytes.Equal(b, want) {
			t.Errorf("%dx%d: client sent % x, want % x", tc.w, tc.h, b, want)
		}
		s.Close()
		cancel()
	}
}

// TestNAWSResize checks that SetWindowSize tells a server that asked for
// NAWS the new size.
func TestNAWSResize(t *testing.T) {
	addr, done := serve(t, func(p *peer) {
		p.send(cIAC, cDO, oNAWS)
		p.sendf("ready\r\n")
		p.readLine()
		p.sendf("ok\r\n")
	})
	s := open(t, &Handler{Width: 80, Height: 24}, "telnet://"+addr, nil)
	if _, err := s.ExpectString(10*time.Second, "ready\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWindowSize(132, 255); err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("done\n"))
	if _, err := s.ExpectString(10*time.Second, "ok\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWindowSize(0, 10); fetch.KindOf(err) != fetch.Usage {
		t.Errorf("SetWindowSize(0, 10) = %v, want Kind Usage", err)
	}
	s.Close()
	p := <-done
	subs := p.subnegotiations()
	want := [][]byte{{oNAWS, 0, 80, 0, 24}, {oNAWS, 0, 132, 0, 255}}
	if len(subs) != len(want) {
		t.Fatalf("subnegotiations % x, want % x", subs, want)
	}
	for i := range want {
		if !bytes.Equal(subs[i], want[i]) {
			t.Errorf("subnegotiation %d: % x, want % x", i, subs[i], want[i])
		}
	}
}

func TestNAWSDefaultSize(t *testing.T) {
	if w, h := windowSize(100, 40); w != 100 || h != 40 {
		t.Errorf("windowSize(100, 40) = %d, %d", w, h)
	}
	if w, h := windowSize(0, 0); w <= 0 || h <= 0 {
		t.Errorf("windowSize(0, 0) = %d, %d, want a positive size", w, h)
	}
}

// TestNAWSDont: a server that says DONT NAWS after the client agreed to
// it gets WONT NAWS, and no window size after (RFC 854's option rules;
// issue 28: the library ignored the DONT).
func TestNAWSDont(t *testing.T) {
	addr, done := serve(t, func(p *peer) {
		p.send(cIAC, cDO, oNAWS)
		p.sendf("ready\r\n")
		p.readLine()
		p.send(cIAC, cDONT, oNAWS)
		p.sendf("stopped\r\n")
		p.readLine()
		p.sendf("ok\r\n")
	})
	s := open(t, &Handler{Width: 80, Height: 24}, "telnet://"+addr, nil)
	if _, err := s.ExpectString(10*time.Second, "ready\r\n"); err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("a\n"))
	if _, err := s.ExpectString(10*time.Second, "stopped\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWindowSize(132, 50); err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("b\n"))
	if _, err := s.ExpectString(10*time.Second, "ok\r\n"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	p := <-done
	if subs := p.subnegotiations(); len(subs) != 1 || !bytes.Equal(subs[0], []byte{oNAWS, 0, 80, 0, 24}) {
		t.Errorf("subnegotiations % x, want only the first window size", subs)
	}
	if cmds := p.commands(); !slices.Contains(cmds, "WONT 31") {
		t.Errorf("commands %q, want WONT 31 after DONT NAWS", cmds)
	}
}

// TestCommandScan: the scan of the server's stream sees option commands
// in any split, and none inside a subnegotiation or a doubled IAC.
func TestCommandScan(t *testing.T) {
	stream := []byte{'a', cIAC, cIAC, cDONT, oNAWS, // IAC IAC: data 255, then text
		cIAC, cSB, 24, cIAC, cIAC, cDONT, oNAWS, cIAC, cSE, // inside SB
		'b', cIAC, cDONT, oNAWS, cIAC, cDO, oECHO}
	want := []string{"254 31", "253 1"}
	for split := range len(stream) + 1 {
		var c commandScan
		var got []string
		f := func(verb, opt byte) { got = append(got, fmt.Sprintf("%d %d", verb, opt)) }
		c.feed(stream[:split], f)
		c.feed(stream[split:], f)
		if !slices.Equal(got, want) {
			t.Errorf("split at %d: commands %q, want %q", split, got, want)
		}
	}
}
