// Command delayproxy relays TCP connections on 127.0.0.1 to a server,
// delaying every byte by half a round trip in each direction, so that
// benchmarks on loopback see the latency of a distant server.
//
//	delayproxy -rtt 20ms -to 127.0.0.1:2121 [-ftp]
//
// It prints the address it listens on ("127.0.0.1:PORT") on stdout and
// relays until killed. With -ftp it also carries FTP data connections: a
// server's passive reply (227 or 229) is rewritten to name a port of the
// proxy's, which relays, with the same delay, to the port the server named.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"regexp"
	"strconv"
	"time"
)

func main() {
	rtt := flag.Duration("rtt", 20*time.Millisecond, "the round trip to simulate")
	to := flag.String("to", "", "the server's address, host:port")
	ftp := flag.Bool("ftp", false, "rewrite FTP passive replies and relay the data connections")
	flag.Parse()
	if *to == "" {
		log.Fatal("delayproxy: -to is required")
	}
	p := &proxy{delay: *rtt / 2, ftp: *ftp}
	ln, err := p.listen(*to, p.ftp)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr())
	os.Stdout.Sync()
	select {}
}

type proxy struct {
	delay time.Duration
	ftp   bool
}

// listen accepts connections on a new port of 127.0.0.1 and relays each to
// target; control says whether they are FTP control connections.
func (p *proxy) listen(target string, control bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.relay(c, target, control)
		}
	}()
	return ln, nil
}

func (p *proxy) relay(c net.Conn, target string, control bool) {
	// The handshake takes a round trip before the first byte can pass.
	time.Sleep(2 * p.delay)
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.pipe(s, c, nil); done <- struct{}{} }()
	var rewrite func([]byte) []byte
	if control {
		rewrite = p.rewritePassive
	}
	go func() { p.pipe(c, s, rewrite); done <- struct{}{} }()
	<-done
	<-done
	c.Close()
	s.Close()
}

type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst, each chunk held until half the round trip after
// it was read. With rewrite, src is read a line at a time and each line
// passes through rewrite first.
func (p *proxy) pipe(dst, src net.Conn, rewrite func([]byte) []byte) {
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		if rewrite != nil {
			br := bufio.NewReader(src)
			for {
				line, err := br.ReadBytes('\n')
				if len(line) > 0 {
					q <- chunk{rewrite(line), time.Now().Add(p.delay)}
				}
				if err != nil {
					return
				}
			}
		}
		for {
			b := make([]byte, 64<<10)
			n, err := src.Read(b)
			if n > 0 {
				q <- chunk{b[:n], time.Now().Add(p.delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range q {
		if d := time.Until(ch.due); d > 0 {
			time.Sleep(d)
		}
		if _, err := dst.Write(ch.b); err != nil {
			// Drain so the reader is not stuck, then give up.
			src.Close()
			for range q {
			}
			return
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
	io.Copy(io.Discard, src)
}

var (
	pasv = regexp.MustCompile(`^227 [^(]*\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)`)
	epsv = regexp.MustCompile(`^229 [^(]*\((.)(.)(.)(\d+)(.)\)`)
)

// rewritePassive turns a 227 or 229 reply into one naming a proxy port
// that relays to the port the server named.
func (p *proxy) rewritePassive(line []byte) []byte {
	if m := pasv.FindSubmatch(line); m != nil {
		hi, _ := strconv.Atoi(string(m[5]))
		lo, _ := strconv.Atoi(string(m[6]))
		target := fmt.Sprintf("%s.%s.%s.%s:%d", m[1], m[2], m[3], m[4], hi<<8|lo)
		ln, err := p.listenOnce(target)
		if err != nil {
			return line
		}
		port := ln.Addr().(*net.TCPAddr).Port
		return fmt.Appendf(nil, "227 Entering Passive Mode (127,0,0,1,%d,%d).\r\n", port>>8, port&0xff)
	}
	if m := epsv.FindSubmatch(line); m != nil {
		port, _ := strconv.Atoi(string(m[4]))
		ln, err := p.listenOnce(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return line
		}
		d := string(m[1])
		return fmt.Appendf(nil, "229 Entering Extended Passive Mode (%s%s%s%d%s)\r\n", d, d, d, ln.Addr().(*net.TCPAddr).Port, d)
	}
	return line
}

// listenOnce relays the first connection to a new port to target, then
// closes the port (or after a minute without one).
func (p *proxy) listenOnce(target string) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		defer ln.Close()
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(time.Minute))
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.relay(c, target, false)
	}()
	return ln, nil
}
