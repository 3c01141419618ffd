package ftp

import (
	"bytes"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestSizeAndEPSVTogether: a file's SIZE and EPSV reach the server in one
// write (EPSV is already there when SIZE is read), and the file arrives
// whole, its size from SIZE.
func TestSizeAndEPSVTogether(t *testing.T) {
	var mu sync.Mutex
	var together []bool
	addr := scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
		switch verb {
		case "SIZE":
			mu.Lock()
			together = append(together, strings.HasPrefix(peekLine(tp), "EPSV"))
			mu.Unlock()
			tp.PrintfLine("213 5")
		case "EPSV":
			passive(tp, func(dc net.Conn) { dc.Write([]byte("hello")) })
		case "RETR":
			tp.PrintfLine("150 here")
			time.Sleep(50 * time.Millisecond) // after the data
			tp.PrintfLine("226 done")
		default:
			return false
		}
		return true
	})
	h := &Handler{}
	defer h.Close()
	for range 2 {
		res, body, err := get(t, h, req(t, "ftp://"+addr+"/f.bin"))
		if err != nil || string(body) != "hello" || res.Size != 5 {
			t.Fatalf("fetch = %q, %v (size %v), want hello, size 5", body, err, res)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(together) != 2 || !together[0] || !together[1] {
		t.Errorf("EPSV already sent when SIZE was read: %v, want [true true]", together)
	}
}

// peekLine returns the command line buffered after the one just read, or
// "" when none has arrived.
func peekLine(tp *textproto.Conn) string {
	b, _ := tp.R.Peek(tp.R.Buffered())
	line, _, _ := bytes.Cut(b, []byte("\r\n"))
	return string(line)
}

// TestPipelineLost: a server that reads one command from each packet and
// drops the rest never answers the EPSV sent with SIZE. The fetch starts
// again on a new connection, sending one command at a time, and gets the
// file; later fetches of the same Handler send one command at a time from
// the start.
//
// On pipes in a bubble, the exchanges take no time on its clock: the wait
// for the lost reply is exactly pipeGrace.
func TestPipelineLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		var mu sync.Mutex
		logins, lost := 0, 0
		addr := p.Serve(t, func(c net.Conn) {
			c.Write([]byte("220 ready\r\n"))
			reply := func(s string) { c.Write([]byte(s + "\r\n")) }
			buf := make([]byte, 4096)
			var data net.Listener
			defer func() {
				if data != nil {
					data.Close()
				}
			}()
			for {
				n, err := c.Read(buf)
				if err != nil {
					return
				}
				line, rest, _ := strings.Cut(string(buf[:n]), "\r\n")
				if rest != "" {
					mu.Lock()
					lost++ // dropped, as such a server does
					mu.Unlock()
				}
				verb, _, _ := strings.Cut(line, " ")
				switch verb {
				case "USER":
					reply("331 password, please")
				case "PASS":
					mu.Lock()
					logins++
					mu.Unlock()
					reply("230 in")
				case "PWD":
					reply(`257 "/"`)
				case "TYPE":
					reply("200 ok")
				case "SIZE":
					reply("213 5")
				case "EPSV":
					if data, err = p.Listen("127.0.0.1:0"); err != nil {
						reply("425 no")
						continue
					}
					reply("229 Entering Extended Passive Mode (|||" + strings.TrimPrefix(data.Addr().String(), "127.0.0.1:") + "|)")
				case "RETR":
					stop := time.AfterFunc(5*time.Second, func() { data.Close() })
					dc, err := data.Accept()
					stop.Stop()
					data.Close()
					data = nil
					if err != nil {
						reply("425 no connection")
						continue
					}
					reply("150 here")
					dc.Write([]byte("hello"))
					dc.Close()
					time.Sleep(20 * time.Millisecond)
					reply("226 done")
				case "QUIT":
					reply("221 bye")
					return
				default:
					reply("502 no")
				}
			}
		})
		h := &Handler{}
		defer h.Close()
		c := pipeClient(p, h)
		var trace strings.Builder
		r := req(t, "ftp://"+addr+"/f.bin")
		r.Trace = fetch.NewTrace(&trace)
		start := time.Now()
		_, body, err := getVia(t, c, r)
		if err != nil || string(body) != "hello" {
			t.Fatalf("fetch from a server that drops pipelined commands = %q, %v, want hello", body, err)
		}
		// The wait for the lost reply, and the server's 20 ms before a
		// 226 when the Close awaits it.
		if d := time.Since(start); d < pipeGrace || d > pipeGrace+20*time.Millisecond {
			t.Errorf("the fetch took %v, want pipeGrace (%v) and at most 20ms", d, pipeGrace)
		}
		if !strings.Contains(trace.String(), "one at a time") {
			t.Errorf("the trace does not say why it starts again:\n%s", trace.String())
		}
		start = time.Now()
		_, body, err = getVia(t, c, req(t, "ftp://"+addr+"/f.bin"))
		if err != nil || string(body) != "hello" {
			t.Fatalf("second fetch = %q, %v, want hello", body, err)
		}
		if d := time.Since(start); d >= pipeGrace {
			t.Errorf("the second fetch took %v: it waited for a lost reply again", d)
		}
		mu.Lock()
		defer mu.Unlock()
		if lost != 1 || logins != 2 {
			t.Errorf("%d commands dropped, %d logins; want 1 dropped (the first EPSV) and 2 logins", lost, logins)
		}
	})
}
