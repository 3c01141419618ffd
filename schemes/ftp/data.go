package ftp

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// dataSetup is a data connection on its way: a passive port to dial, or
// a listener waiting for the server in active mode.
type dataSetup struct {
	conn *wire.Conn       // passive: the dialed connection, once dial returned
	ln   *net.TCPListener // active: where the server connects
	addr string           // passive: the address to dial, "" once dialed
	peer net.IP           // the control connection's peer
	stop func() bool      // the context watch of conn
	idle time.Duration
}

// peerIP is the address of the control connection's server.
func (c *ctrl) peerIP() net.IP {
	if a, ok := c.raw.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP
	}
	return nil
}

// openData prepares the data connection for the next transfer command:
// passive mode (EPSV, then PASV when the server has no EPSV) unless active
// is set, then active mode (EPRT, then PORT). A passive connection is
// dialed only once the transfer command is out (see dial).
func (c *ctrl) openData(req *fetch.Request, active bool) (*dataSetup, error) {
	if active {
		return c.active(req)
	}
	if !c.noEPSV {
		code, msg, err := c.cmd("EPSV")
		if err != nil {
			return nil, err
		}
		if ds, err := c.epsvReply(code, msg); ds != nil || err != nil {
			return ds, err
		}
	}
	return c.pasv()
}

// epsvReply reads EPSV's reply: the passive port to dial, or (nil, nil)
// when the server has no EPSV, which it then is not sent again.
func (c *ctrl) epsvReply(code int, msg string) (*dataSetup, error) {
	if code == 229 {
		port, ok := parseEPSV(msg)
		if !ok {
			return nil, replyErr(fetch.Protocol, "EPSV", code, msg, "no port in the reply")
		}
		return passiveData(c.peerIP(), fetch.PeerHost(c.raw), port), nil
	}
	if code/100 != 5 {
		return nil, c.unexpected("EPSV", code, msg)
	}
	c.noEPSV = true
	c.trace.Notef("the server has no EPSV: trying PASV")
	return nil, nil
}

// pasv asks for a passive port with PASV (RFC 959), for servers without
// EPSV.
func (c *ctrl) pasv() (*dataSetup, error) {
	code, msg, err := c.cmd("PASV")
	if err != nil {
		return nil, err
	}
	if code != 227 {
		return nil, c.unexpected("PASV", code, msg)
	}
	port, ok := parsePASV(msg)
	if !ok {
		return nil, replyErr(fetch.Protocol, "PASV", code, msg, "no port in the reply")
	}
	// The address in the reply is ignored: the data connection goes to the
	// server the control connection reached (as curl's --ftp-skip-pasv-ip).
	return passiveData(c.peerIP(), fetch.PeerHost(c.raw), port), nil
}

// passiveData is the data connection to the server's port host:port, to
// be dialed: host is the address the control connection reached or,
// through a proxy that resolved the server's name, that name (see
// fetch.PeerHost).
func passiveData(peer net.IP, host string, port int) *dataSetup {
	return &dataSetup{peer: peer, addr: net.JoinHostPort(host, strconv.Itoa(port))}
}

// dial connects to the server's passive port, when there is one to dial,
// and ties the connection to ctx. It is called once the transfer command
// is written: a passive server-DTP "waits for a connection" (RFC 959
// §3.2), and the connection and the command travel at the same time, as
// a dial in a goroutine of its own would have them, without handing the
// request to another goroutine and back. On failure nothing is left to
// close.
func (ds *dataSetup) dial(ctx context.Context, req *fetch.Request) error {
	if ds.addr == "" {
		return nil
	}
	conn, err := wire.Dial(ctx, req, "tcp", ds.addr)
	ds.addr = ""
	if err != nil {
		return err
	}
	ds.conn = conn
	ds.stop = conn.Watch(ctx)
	return nil
}

// active listens on the control connection's local address and tells the
// server where to connect: EPRT, or PORT for servers without it.
func (c *ctrl) active(req *fetch.Request) (*dataSetup, error) {
	if p, _, err := req.Proxy(); err == nil && p != nil {
		return nil, fetch.Errorf(fetch.Unsupported, "active mode: the server cannot connect back through the proxy %s (use passive mode)", p.Redacted())
	}
	local, _ := c.raw.LocalAddr().(*net.TCPAddr)
	if local == nil {
		return nil, fetch.Errorf(fetch.Unsupported, "active mode needs a TCP control connection")
	}
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: local.IP})
	if err != nil {
		return nil, fetch.Errorf(fetch.Connect, "active mode: listening: %w", err)
	}
	ds := &dataSetup{ln: ln, peer: c.peerIP(), idle: req.EffectiveIdleTimeout()}
	port := ln.Addr().(*net.TCPAddr).Port
	if !c.noEPRT {
		af := 1
		if local.IP.To4() == nil {
			af = 2
		}
		line := fmt.Sprintf("EPRT |%d|%s|%d|", af, local.IP, port)
		code, msg, err := c.cmd(line)
		if err != nil {
			ln.Close()
			return nil, err
		}
		if code/100 == 2 {
			return ds, nil
		}
		if code/100 != 5 || local.IP.To4() == nil {
			ln.Close()
			return nil, c.unexpected(line, code, msg)
		}
		c.noEPRT = true
		c.trace.Notef("the server has no EPRT: trying PORT")
	}
	ip := local.IP.To4()
	line := fmt.Sprintf("PORT %d,%d,%d,%d,%d,%d", ip[0], ip[1], ip[2], ip[3], port>>8, port&0xff)
	code, msg, err := c.cmd(line)
	if err != nil {
		ln.Close()
		return nil, err
	}
	if code/100 != 2 {
		ln.Close()
		return nil, c.unexpected(line, code, msg)
	}
	return ds, nil
}

// finish completes the data connection once the server accepted the
// transfer command: accepts the server's connection in active mode, and
// shakes hands for TLS under PROT P. It returns the stream to read, its
// underlying *wire.Conn, and the function that ends its context watch.
func (ds *dataSetup) finish(ctx context.Context, req *fetch.Request, c *ctrl) (dataConn, error) {
	if err := ds.dial(ctx, req); err != nil {
		return dataConn{}, err
	}
	if ds.ln != nil {
		ds.ln.SetDeadline(time.Now().Add(ds.idle))
		stopLn := context.AfterFunc(ctx, func() { ds.ln.SetDeadline(wire.Past()) })
		nc, err := ds.ln.AcceptTCP()
		stopLn()
		ds.ln.Close()
		ds.ln = nil
		if err != nil {
			if ctx.Err() != nil {
				return dataConn{}, fetch.Classify(context.Cause(ctx))
			}
			return dataConn{}, &fetch.Error{Kind: fetch.KindOf(err), Err: fmt.Errorf("active mode: waiting for the server's data connection: %w", err)}
		}
		if a, ok := nc.RemoteAddr().(*net.TCPAddr); !ok || !a.IP.Equal(ds.peer) {
			nc.Close()
			return dataConn{}, fetch.Errorf(fetch.Protocol, "active mode: data connection from %v, not from the server %v", nc.RemoteAddr(), ds.peer)
		}
		c.trace.Notef("data connection from %s", nc.RemoteAddr())
		ds.conn = wire.NewConn(nc, ds.idle)
		ds.stop = ds.conn.Watch(ctx)
	}
	dc := dataConn{raw: ds.conn, r: ds.conn, stop: ds.stop}
	if c.protP {
		tc := tls.Client(ds.conn, c.tlsConf)
		if err := tc.HandshakeContext(ctx); err != nil {
			dc.close()
			return dataConn{}, &fetch.Error{Kind: fetch.Connect, Err: fmt.Errorf("TLS handshake on the data connection: %w", err)}
		}
		dc.r = tc
	}
	return dc, nil
}

// abort gives up a data connection not yet handed over.
func (ds *dataSetup) abort() {
	if ds.ln != nil {
		ds.ln.Close()
	}
	if ds.conn != nil {
		ds.stop()
		ds.conn.Close()
	}
}

// dataConn is an open data connection.
type dataConn struct {
	raw  *wire.Conn
	r    net.Conn // raw, or TLS over raw
	stop func() bool
}

func (d dataConn) close() {
	if d.raw == nil {
		return
	}
	d.stop()
	d.r.Close()
	d.raw.Close()
}

// cut closes the socket under the connection, from any goroutine, so
// that a Read blocked on it returns; close still follows.
func (d dataConn) cut() {
	if d.raw != nil {
		d.raw.Conn.Close()
	}
}

// parseEPSV reads the port of a 229 reply: "... (|||port|)" with any
// delimiter (RFC 2428).
func parseEPSV(msg string) (int, bool) {
	i := strings.IndexByte(msg, '(')
	j := strings.LastIndexByte(msg, ')')
	if i < 0 || j < i+6 {
		return 0, false
	}
	s := msg[i+1 : j]
	d := s[0]
	f := strings.Split(s, string(d))
	if len(f) != 5 || f[1] != "" || f[2] != "" || f[4] != "" {
		return 0, false
	}
	p, err := strconv.Atoi(f[3])
	if err != nil || p < 1 || p > 65535 {
		return 0, false
	}
	return p, true
}

// parsePASV reads the port of a 227 reply: "... (h1,h2,h3,h4,p1,p2)",
// parentheses optional (RFC 959 and RFC 1123 §4.1.2.6).
func parsePASV(msg string) (int, bool) {
	i := strings.IndexAny(msg, "0123456789")
	if i < 0 {
		return 0, false
	}
	s := msg[i:]
	j := 0
	for j < len(s) && (s[j] == ',' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	f := strings.Split(s[:j], ",")
	if len(f) != 6 {
		return 0, false
	}
	var n [6]int
	for k, x := range f {
		v, err := strconv.Atoi(x)
		if err != nil || v < 0 || v > 255 {
			return 0, false
		}
		n[k] = v
	}
	p := n[4]<<8 | n[5]
	return p, p > 0
}
