package ftp

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// fakeServer is a scripted FTP server on 127.0.0.1:0 that records every
// command it receives, for asserting exact command sequences. Its file
// system is a map of absolute paths to contents; directories are the
// paths' parents.
type fakeServer struct {
	t       testing.TB
	address string // set by start
	files   map[string][]byte
	users   map[string]string // user → password; "anonymous" takes any

	// Behaviour switches, set before the first connection.
	homes        map[string]string // user → login directory; default "/"
	pwd          string            // PWD reply text; default the quoted home
	noEPSV       bool
	noSize       bool
	noRest       bool
	ignoreRest   bool                     // REST is accepted (350) but RETR sends from the start
	emptyCWD     string                   // where "CWD " with no argument goes; "" refuses with emptyCWDCode
	emptyCWDCode int                      // the refusal of an empty CWD; 0 means 550
	asciiNoSize  bool                     // SIZE in TYPE A is refused (550), as proftpd does
	cut426       map[string]bool          // RETR of these paths: half the data, then 426
	noFinal      map[string]bool          // RETR of these paths: the data, then the control connection closes
	sizeExtra    map[string]int64         // SIZE of these paths is overstated by this much
	hold         map[string]chan int      // RETR of these paths: half the data, then wait for the channel to close
	drip         map[string]time.Duration // RETR of these paths: 16 bytes at a time, this long apart
	tlsConf      *tls.Config              // when set, AUTH TLS, PBSZ and PROT are understood
	implicit     bool                     // with tlsConf: TLS from the first byte (ftps)
	nagle        bool                     // each reply written in two pieces, Nagle's algorithm on
	links        map[string]string        // symbolic links: absolute path → target (relative to the link's folder, or absolute)
	pipes        *fetchtest.Pipes         // when set, the network it serves and connects on (see pipeClient)

	mu     sync.Mutex
	refuse map[string]bool // CWD to these absolute paths fails (set with refuseCWD)
	log    [][]string      // commands per connection, in order
	logins int
	conns  map[net.Conn]bool // open control connections
}

func newFakeServer(t testing.TB) *fakeServer {
	t.Helper()
	return &fakeServer{
		t: t, files: map[string][]byte{}, users: map[string]string{"anonymous": ""},
		homes: map[string]string{}, cut426: map[string]bool{}, noFinal: map[string]bool{},
		sizeExtra: map[string]int64{}, hold: map[string]chan int{}, drip: map[string]time.Duration{}, conns: map[net.Conn]bool{},
	}
}

// start begins serving until the test ends; the switches must be set
// before.
func (s *fakeServer) start() *fakeServer {
	s.t.Helper()
	serve := fetchtest.Serve
	if s.pipes != nil {
		serve = s.pipes.Serve
	}
	s.address = serve(s.t, func(c net.Conn) {
		s.mu.Lock()
		s.conns[c] = true
		s.log = append(s.log, nil)
		id := len(s.log) - 1
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
		s.serve(c, id)
	})
	return s
}

// listen makes a passive data listener at 127.0.0.1, on s.pipes when set.
func (s *fakeServer) listen() (net.Listener, error) {
	if s.pipes != nil {
		return s.pipes.Listen("127.0.0.1:0")
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// dial connects an active-mode data connection to addr, on s.pipes when
// set.
func (s *fakeServer) dial(addr string) (net.Conn, error) {
	if s.pipes != nil {
		return s.pipes.DialContext(context.Background(), "tcp", addr)
	}
	return net.Dial("tcp", addr)
}

// refuseCWD makes CWD to p fail from now on.
func (s *fakeServer) refuseCWD(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse == nil {
		s.refuse = map[string]bool{}
	}
	s.refuse[p] = true
}

func (s *fakeServer) loginCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

func (s *fakeServer) addr() string { return s.address }

// commands returns the commands of every connection so far.
func (s *fakeServer) commands() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]string, len(s.log))
	for i, l := range s.log {
		out[i] = append([]string(nil), l...)
	}
	return out
}

// real returns p with its symbolic links followed, as the server's file
// system resolves it (vsftpd's PWD shows this path), or "" for a cycle.
func (s *fakeServer) real(p string) string {
	for range 40 {
		parts := strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/")
		cur, changed := "/", false
		for i, part := range parts {
			if part == "" {
				continue
			}
			next := path.Join(cur, part)
			if t, ok := s.links[next]; ok {
				if !strings.HasPrefix(t, "/") {
					t = path.Join(cur, t)
				}
				p = path.Join(append([]string{t}, parts[i+1:]...)...)
				changed = true
				break
			}
			cur = next
		}
		if !changed {
			return cur
		}
	}
	return ""
}

func (s *fakeServer) isDir(p string) bool {
	if p == "/" {
		return true
	}
	for f := range s.files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

type session struct {
	s      *fakeServer
	tp     *textproto.Conn
	ctrl   net.Conn
	id     int
	user   string
	authed bool
	cwd    string
	rest   int64
	pasv   net.Listener
	port   string
	protP  bool
	typ    string
}

func (s *fakeServer) serve(c net.Conn, id int) {
	defer func() { c.Close() }() // c, TLS once implicit TLS starts
	if s.nagle {
		c = fetchtest.NagleConn(c)
	}
	if s.implicit {
		c = tls.Server(c, s.tlsConf)
	}
	ss := &session{s: s, tp: textproto.NewConn(c), ctrl: c, id: id, cwd: "/"}
	defer func() {
		if ss.pasv != nil {
			ss.pasv.Close()
		}
	}()
	ss.reply(220, "fake FTP ready")
	for {
		line, err := ss.tp.ReadLine()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.log[id] = append(s.log[id], line)
		s.mu.Unlock()
		verb, arg, _ := strings.Cut(line, " ")
		if !ss.handle(strings.ToUpper(verb), arg) {
			return
		}
	}
}

func (ss *session) reply(code int, msg string) { ss.tp.PrintfLine("%d %s", code, msg) }

func (ss *session) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Join(ss.cwd, p)
}

// handle answers one command; false ends the session.
func (ss *session) handle(verb, arg string) bool {
	s := ss.s
	if !ss.authed && verb != "USER" && verb != "PASS" && verb != "QUIT" && verb != "AUTH" {
		ss.reply(530, "Please login with USER and PASS.")
		return true
	}
	switch verb {
	case "USER":
		ss.user = arg
		ss.reply(331, "Please specify the password.")
	case "PASS":
		want, ok := s.users[ss.user]
		if !ok || (ss.user != "anonymous" && want != arg) {
			ss.reply(530, "Login incorrect.")
			return true
		}
		ss.authed = true
		if h, ok := s.homes[ss.user]; ok {
			ss.cwd = h
		}
		s.mu.Lock()
		s.logins++
		s.mu.Unlock()
		ss.reply(230, "Login successful.")
	case "PWD":
		if s.pwd != "" {
			ss.reply(257, s.pwd)
		} else {
			ss.reply(257, strconv.Quote(ss.cwd)+" is the current directory")
		}
	case "CWD":
		if arg == "" {
			if s.emptyCWD == "" {
				code := s.emptyCWDCode
				if code == 0 {
					code = 550
				}
				ss.reply(code, "Failed to change directory.")
				return true
			}
			ss.cwd = s.emptyCWD
			ss.reply(250, "Directory successfully changed.")
			return true
		}
		p := s.real(ss.abs(arg))
		s.mu.Lock()
		refused := s.refuse[p]
		s.mu.Unlock()
		if refused || p == "" || !ss.s.isDir(p) {
			ss.reply(550, "Failed to change directory.")
			return true
		}
		ss.cwd = p
		ss.reply(250, "Directory successfully changed.")
	case "TYPE":
		ss.typ = arg
		ss.reply(200, "Switching to "+arg+" mode.")
	case "SIZE":
		f, ok := s.files[s.real(ss.abs(arg))]
		if s.asciiNoSize && ss.typ == "A" {
			ss.reply(550, "SIZE not allowed in ASCII mode")
		} else if s.noSize {
			ss.reply(502, "SIZE not implemented.")
		} else if !ok {
			ss.reply(550, "Could not get file size.")
		} else {
			ss.reply(213, strconv.FormatInt(int64(len(f))+s.sizeExtra[ss.abs(arg)], 10))
		}
	case "MDTM":
		if _, ok := s.files[ss.abs(arg)]; !ok {
			ss.reply(550, "Could not get file modification time.")
		} else {
			ss.reply(213, "20240102030405")
		}
	case "REST":
		if s.noRest {
			ss.reply(502, "REST not implemented.")
			return true
		}
		n, _ := strconv.ParseInt(arg, 10, 64)
		ss.rest = n
		ss.reply(350, "Restart position accepted ("+arg+").")
	case "EPSV", "PASV":
		if verb == "EPSV" && s.noEPSV {
			ss.reply(500, "Unknown command.")
			return true
		}
		ln, err := ss.s.listen()
		if err != nil {
			ss.reply(425, "cannot listen")
			return true
		}
		if ss.pasv != nil {
			ss.pasv.Close()
		}
		ss.pasv, ss.port = ln, ""
		p := ln.Addr().(*net.TCPAddr).Port
		if verb == "EPSV" {
			ss.reply(229, fmt.Sprintf("Entering Extended Passive Mode (|||%d|)", p))
		} else {
			ss.reply(227, fmt.Sprintf("Entering Passive Mode (10,9,8,7,%d,%d).", p>>8, p&0xff))
		}
	case "EPRT":
		f := strings.Split(arg, "|")
		if len(f) != 5 {
			ss.reply(501, "bad EPRT")
			return true
		}
		ss.port = net.JoinHostPort(f[2], f[3])
		ss.reply(200, "EPRT command successful.")
	case "RETR":
		ss.retr(s.real(ss.abs(arg)))
	case "LIST":
		dir := s.real(ss.cwd)
		if arg != "" {
			dir = s.real(ss.abs(arg))
		}
		if !s.isDir(dir) {
			ss.reply(550, "No such directory.")
			return true
		}
		ss.send([]byte(s.listUnix(dir)), "", false, false)
	case "NLST":
		dir := ss.cwd
		if arg != "" {
			dir = ss.abs(arg)
		}
		if !s.isDir(dir) {
			ss.reply(550, "No such directory.")
			return true
		}
		var names []string
		seen := map[string]bool{}
		for f := range s.files {
			if rest, ok := strings.CutPrefix(f, strings.TrimSuffix(dir, "/")+"/"); ok {
				n, _, _ := strings.Cut(rest, "/")
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			b.WriteString(n + "\r\n")
		}
		ss.send([]byte(b.String()), "", false, false)
	case "AUTH":
		if s.tlsConf == nil || arg != "TLS" {
			ss.reply(502, "AUTH not implemented.")
			return true
		}
		ss.reply(234, "Proceed with negotiation.")
		ss.ctrl = tls.Server(ss.ctrl, s.tlsConf)
		ss.tp = textproto.NewConn(ss.ctrl)
	case "PBSZ":
		ss.reply(200, "PBSZ set to 0.")
	case "PROT":
		ss.protP = arg == "P"
		ss.reply(200, "PROT now "+arg+".")
	case "NOOP":
		ss.reply(200, "NOOP ok.")
	case "QUIT":
		ss.reply(221, "Goodbye.")
		return false
	default:
		ss.reply(502, "Command not implemented.")
	}
	return true
}

func (ss *session) retr(p string) {
	s := ss.s
	f, ok := s.files[p]
	if !ok {
		ss.reply(550, "Failed to open file.")
		return
	}
	if ss.rest > 0 && ss.rest <= int64(len(f)) && !s.ignoreRest {
		f = f[ss.rest:]
	}
	ss.rest = 0
	ss.send(f, p, s.cut426[p], s.noFinal[p])
}

// send opens the data connection, writes b and ends the transfer as told.
func (ss *session) send(b []byte, p string, cut, noFinal bool) {
	var dc net.Conn
	var err error
	if ss.port != "" {
		ss.reply(150, "Opening BINARY mode data connection.")
		dc, err = ss.s.dial(ss.port)
	} else if ss.pasv != nil {
		ss.reply(150, "Opening BINARY mode data connection.")
		dc, err = ss.pasv.Accept()
		ss.pasv.Close()
		ss.pasv = nil
	} else {
		ss.reply(425, "Use PORT or PASV first.")
		return
	}
	ss.port = ""
	if err != nil {
		ss.reply(425, "Failed to establish connection.")
		return
	}
	if ss.protP {
		dc = tls.Server(dc, ss.s.tlsConf)
	}
	if hold, ok := ss.s.hold[p]; ok {
		dc.Write(b[:len(b)/2])
		select {
		case <-hold:
		case <-time.After(10 * time.Second):
		}
		dc.Close()
		ss.reply(426, "Failure writing network stream.")
		return
	}
	if d, ok := ss.s.drip[p]; ok {
		for i := 0; i < len(b); i += 16 {
			time.Sleep(d)
			dc.Write(b[i:min(i+16, len(b))])
		}
		dc.Close()
		ss.reply(226, "Transfer complete.")
		return
	}
	if cut {
		dc.Write(b[:len(b)/2])
		dc.Close()
		ss.reply(426, "Failure writing network stream.")
		return
	}
	io.Copy(dc, strings.NewReader(string(b)))
	dc.Close()
	if noFinal {
		ss.ctrl.Close()
		return
	}
	ss.reply(226, "Transfer complete.")
}

// listUnix is LIST's answer for dir, as vsftpd writes it ("ls -l"):
// folders, files and symbolic links ("name -> target"), by name.
func (s *fakeServer) listUnix(dir string) string {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	lines := map[string]string{}
	for f, b := range s.files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		if n, _, sub := strings.Cut(rest, "/"); sub {
			lines[n] = "drwxr-xr-x    2 0        0            4096 Nov 23 17:05 " + n
		} else {
			lines[n] = fmt.Sprintf("-rw-r--r--    1 0        0        %8d Nov 23 17:05 %s", len(b), n)
		}
	}
	for l, t := range s.links {
		if n, ok := strings.CutPrefix(l, prefix); ok && !strings.Contains(n, "/") {
			lines[n] = fmt.Sprintf("lrwxrwxrwx    1 0        0        %8d Nov 23 17:05 %s -> %s", len(t), n, t)
		}
	}
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(lines[n] + "\r\n")
	}
	return b.String()
}
