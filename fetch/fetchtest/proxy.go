package fetchtest

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"sync"
	"testing"
)

// ProxyConfig configures a Proxy.
type ProxyConfig struct {
	// Kind is "socks5" (RFC 1928, with RFC 1929 login) or "http" (HTTP
	// CONNECT tunnels, and absolute-form GET relayed for http URLs).
	Kind string
	// User and Password, when User is set, are required of clients.
	User, Password string
	// Hosts maps a host name a client sends to the "ip:port" or "ip" the
	// proxy connects to; a name not there fails. An IP address is
	// connected to as it is.
	Hosts map[string]string
}

// Proxy is a SOCKS5 or HTTP proxy of a test's own, on 127.0.0.1: it
// records what each client asked for and relays the bytes. It is closed
// when the test ends.
type Proxy struct {
	// URL is the proxy's URL, for fetch.ParseProxy or fetch.ProxyAll:
	// socks5h://127.0.0.1:port or http://127.0.0.1:port, with the
	// credentials when the proxy requires them.
	URL *neturl.URL

	cfg    ProxyConfig
	ln     net.Listener
	wg     sync.WaitGroup
	mu     sync.Mutex
	asked  []string
	conns  map[net.Conn]bool
	closed bool
}

// NewProxy starts a proxy on 127.0.0.1:0 and closes it when tb ends.
func NewProxy(tb testing.TB, cfg ProxyConfig) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	scheme := "http"
	if cfg.Kind == "socks5" {
		scheme = "socks5h"
	}
	p := &Proxy{URL: &neturl.URL{Scheme: scheme, Host: ln.Addr().String()}, cfg: cfg, ln: ln, conns: map[net.Conn]bool{}}
	if cfg.User != "" {
		p.URL.User = neturl.UserPassword(cfg.User, cfg.Password)
	}
	p.wg.Add(1)
	go p.serve()
	tb.Cleanup(p.Close)
	return p
}

// Asked returns what clients asked for, in order: the "host:port" of
// each tunnel ("CONNECT host:port" for an HTTP proxy) and the request
// line of each relayed HTTP request.
func (p *Proxy) Asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// Close stops the proxy and closes every connection it holds.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) note(s string) {
	p.mu.Lock()
	p.asked = append(p.asked, s)
	p.mu.Unlock()
}

// track records c for Close; once the proxy is closed, it closes c
// instead, so that nothing it relays outlives Close.
func (p *Proxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return
	}
	p.conns[c] = true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.track(c)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			if p.cfg.Kind == "socks5" {
				p.socks(c)
			} else {
				p.http(c)
			}
		}()
	}
}

// dial connects to host:port as Hosts says.
func (p *Proxy) dial(host, port string) (net.Conn, error) {
	to := net.JoinHostPort(host, port)
	if net.ParseIP(host) == nil {
		m, ok := p.cfg.Hosts[host]
		if !ok {
			return nil, errors.New("proxy: unknown host " + host)
		}
		if _, _, err := net.SplitHostPort(m); err == nil {
			to = m
		} else {
			to = net.JoinHostPort(m, port)
		}
	}
	c, err := net.Dial("tcp", to)
	if err == nil {
		p.track(c)
	}
	return c, err
}

// relay copies between a client (whose first bytes may sit in br) and a
// server until either side ends.
func (p *Proxy) relay(client net.Conn, br *bufio.Reader, server net.Conn) {
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(server, br)
		done <- struct{}{}
	}()
	go func() {
		io.Copy(client, server)
		done <- struct{}{}
	}()
	<-done
	client.Close()
	server.Close()
	<-done
}

func (p *Proxy) socks(c net.Conn) {
	br := bufio.NewReader(c)
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != 5 {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	want := byte(0)
	if p.cfg.User != "" {
		want = 2
	}
	if !containsByte(methods, want) {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, want})
	if want == 2 {
		user, pass, ok := readUserPass(br)
		if !ok || user != p.cfg.User || pass != p.cfg.Password {
			c.Write([]byte{1, 1})
			return
		}
		c.Write([]byte{1, 0})
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[1] != 1 {
		return
	}
	var host string
	switch req[3] {
	case 1, 4:
		ip := make([]byte, 4)
		if req[3] == 4 {
			ip = make([]byte, 16)
		}
		if _, err := io.ReadFull(br, ip); err != nil {
			return
		}
		host = net.IP(ip).String()
	case 3:
		n, err := br.ReadByte()
		if err != nil {
			return
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(br, name); err != nil {
			return
		}
		host = string(name)
	default:
		return
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return
	}
	port := strconv.Itoa(int(binary.BigEndian.Uint16(pb[:])))
	p.note(net.JoinHostPort(host, port))
	s, err := p.dial(host, port)
	if err != nil {
		c.Write([]byte{5, 4, 0, 1, 0, 0, 0, 0, 0, 0}) // host unreachable
		return
	}
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	p.relay(c, br, s)
}

func containsByte(b []byte, x byte) bool {
	for _, y := range b {
		if y == x {
			return true
		}
	}
	return false
}

// readUserPass reads RFC 1929's username/password request.
func readUserPass(br *bufio.Reader) (user, pass string, ok bool) {
	v, err := br.ReadByte()
	if err != nil || v != 1 {
		return "", "", false
	}
	field := func() (string, bool) {
		n, err := br.ReadByte()
		if err != nil {
			return "", false
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b), err == nil
	}
	user, ok1 := field()
	pass, ok2 := field()
	return user, pass, ok1 && ok2
}

func (p *Proxy) http(c net.Conn) {
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if p.cfg.User != "" {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(p.cfg.User+":"+p.cfg.Password))
		if req.Header.Get("Proxy-Authorization") != want {
			p.note(req.Method + " " + req.RequestURI + " (no credentials)")
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n")
			return
		}
	}
	if req.Method == http.MethodConnect {
		p.note("CONNECT " + req.RequestURI)
		host, port, err := net.SplitHostPort(req.RequestURI)
		if err != nil {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n")
			return
		}
		s, err := p.dial(host, port)
		if err != nil {
			io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
			return
		}
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		p.relay(c, br, s)
		return
	}
	p.note(req.Method + " " + req.RequestURI)
	port := req.URL.Port()
	if port == "" {
		port = "80"
	}
	s, err := p.dial(req.URL.Hostname(), port)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer p.untrack(s)
	req.Header.Del("Proxy-Authorization")
	req.Close = true
	if err := req.Write(s); err != nil {
		return
	}
	io.Copy(c, s)
}
