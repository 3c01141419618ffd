package nntp

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// fakeArticle is one article of the fake server.
type fakeArticle struct {
	num  int64
	id   string // without <>
	text string // headers, blank line, body; lines end "\n"
}

// fakeServer is an in-process NNTP server on 127.0.0.1:0 with scripted
// behaviour, recording every line it receives.
type fakeServer struct {
	t testing.TB

	greeting      string // default "200 fake server ready"
	modeSwitching bool   // CAPABILITIES lists MODE-READER; reader commands need MODE READER
	noCaps        bool   // CAPABILITIES answers 500
	noOver        bool   // OVER answers 500 (XOVER works)
	user, pass    string // when set, reader commands answer 480 until AUTHINFO
	groups        map[string][]fakeArticle
	descriptions  map[string]string
	truncate      map[string]bool   // ARTICLE arg → send half the article, then close
	override      map[string]string // command line → the literal status line to answer
	hang          map[string]bool   // command line → never answered
	closeAfter    int               // close each connection after this many commands (0: never)
	nagle         bool              // each reply written in two pieces, Nagle's algorithm on

	mu      sync.Mutex
	lines   []string // every line received, over all connections
	conns   int
	resumed []bool // per TLS connection, whether its handshake resumed a session
}

func newFakeServer(t testing.TB) *fakeServer {
	t.Helper()
	return &fakeServer{t: t, groups: map[string][]fakeArticle{}, descriptions: map[string]string{},
		truncate: map[string]bool{}, hang: map[string]bool{}, override: map[string]string{}}
}

// start listens (with TLS when cfg is non-nil) and serves until the test
// ends. It returns the address.
func (f *fakeServer) start(cfg *tls.Config) string {
	f.t.Helper()
	if cfg == nil {
		return fetchtest.Serve(f.t, f.serve)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	return fetchtest.ServeListener(f.t, ln, f.serve)
}

// startPipes serves on p, a network in memory, for a test in a synctest
// bubble (see pipeClient), and returns the address.
func (f *fakeServer) startPipes(p *fetchtest.Pipes) string {
	f.t.Helper()
	return p.Serve(f.t, f.serve)
}

// received returns the lines received so far.
func (f *fakeServer) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

func (f *fakeServer) connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns
}

// add adds an article to a group.
func (f *fakeServer) add(group string, num int64, id, text string) {
	f.groups[group] = append(f.groups[group], fakeArticle{num: num, id: id, text: text})
	sort.Slice(f.groups[group], func(i, j int) bool { return f.groups[group][i].num < f.groups[group][j].num })
}

func (f *fakeServer) serve(c net.Conn) {
	f.mu.Lock()
	f.conns++
	f.mu.Unlock()
	if f.nagle {
		c = fetchtest.NagleConn(c)
	}
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	say := func(s string) { w.WriteString(s + "\r\n") }
	block := func(text string) {
		for _, l := range strings.SplitAfter(text, "\n") {
			if l == "" {
				continue
			}
			l = strings.TrimSuffix(l, "\n")
			if strings.HasPrefix(l, ".") {
				l = "." + l
			}
			say(l)
		}
		say(".")
	}
	g := f.greeting
	if g == "" {
		g = "200 fake server ready"
	}
	say(g)
	w.Flush()
	if tc, ok := c.(*tls.Conn); ok {
		f.mu.Lock()
		f.resumed = append(f.resumed, tc.ConnectionState().DidResume)
		f.mu.Unlock()
	}
	if !strings.HasPrefix(g, "20") {
		return
	}
	reader := !f.modeSwitching
	authed := f.user == ""
	pendingUser := ""
	var group string
	cmds := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		f.mu.Lock()
		f.lines = append(f.lines, line)
		f.mu.Unlock()
		cmds++
		if f.closeAfter > 0 && cmds > f.closeAfter {
			return
		}
		if f.hang[line] {
			io.Copy(io.Discard, r) // answer nothing until the server stops
			return
		}
		if s, ok := f.override[line]; ok {
			say(s)
			w.Flush()
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		needReader := map[string]bool{"GROUP": true, "ARTICLE": true, "HEAD": true, "OVER": true, "XOVER": true, "LIST": true}[verb]
		switch {
		case verb == "QUIT":
			say("205 bye")
			w.Flush()
			return
		case verb == "CAPABILITIES":
			if f.noCaps {
				say("500 what?")
				break
			}
			say("101 Capability list:")
			say("VERSION 2")
			if reader {
				say("READER")
				say("OVER")
			} else {
				say("MODE-READER")
			}
			if f.user != "" {
				say("AUTHINFO USER")
			}
			say(".")
		case verb == "MODE" && strings.EqualFold(arg, "READER"):
			reader = true
			say("200 reader mode")
		case verb == "AUTHINFO":
			sub, val, _ := strings.Cut(arg, " ")
			switch strings.ToUpper(sub) {
			case "USER":
				pendingUser = val
				say("381 password please")
			case "PASS":
				if pendingUser == f.user && val == f.pass {
					authed = true
					say("281 welcome")
				} else {
					say("481 no")
				}
			default:
				say("501 syntax")
			}
		case needReader && !reader:
			say("500 transit mode: what?")
		case needReader && !authed:
			say("480 authentication required")
		case verb == "GROUP":
			arts, ok := f.groups[arg]
			if !ok {
				say("411 no such group")
				break
			}
			group = arg
			if len(arts) == 0 {
				say("211 0 1 0 " + arg)
				break
			}
			say(fmt.Sprintf("211 %d %d %d %s", len(arts), arts[0].num, arts[len(arts)-1].num, arg))
		case verb == "ARTICLE" || verb == "HEAD":
			a, code := f.find(group, arg)
			if code != 0 {
				say(strconv.Itoa(code) + " not there")
				break
			}
			text := a.text
			if verb == "HEAD" {
				text, _, _ = strings.Cut(text, "\n\n")
				text += "\n"
				say(fmt.Sprintf("221 %d <%s> head", a.num, a.id))
			} else {
				say(fmt.Sprintf("220 %d <%s> article", a.num, a.id))
			}
			if f.truncate[arg] {
				w.WriteString(strings.ReplaceAll(text[:len(text)/2], "\n", "\r\n"))
				w.Flush()
				return
			}
			block(text)
		case verb == "OVER" || verb == "XOVER":
			if verb == "OVER" && f.noOver {
				say("500 what?")
				break
			}
			if group == "" {
				say("412 no group")
				break
			}
			say("224 overview follows")
			var b strings.Builder
			for _, a := range f.groups[group] {
				subj := ""
				for _, l := range strings.Split(a.text, "\n") {
					if strings.HasPrefix(l, "Subject: ") {
						subj = l[9:]
					}
				}
				fmt.Fprintf(&b, "%d\t%s\tfake@example\tdate\t<%s>\t\t%d\t1\n", a.num, subj, a.id, len(a.text))
			}
			block(b.String())
		case verb == "LIST":
			sub, pat, _ := strings.Cut(arg, " ")
			var names []string
			for n := range f.groups {
				if pat == "" || pat == "*" || (strings.HasSuffix(pat, "*") && strings.HasPrefix(n, strings.TrimSuffix(pat, "*"))) || n == pat {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			var b strings.Builder
			switch strings.ToUpper(sub) {
			case "", "ACTIVE":
				for _, n := range names {
					arts := f.groups[n]
					hi, lo := int64(0), int64(1)
					if len(arts) > 0 {
						lo, hi = arts[0].num, arts[len(arts)-1].num
					}
					fmt.Fprintf(&b, "%s %010d %010d y\n", n, hi, lo)
				}
				say("215 list follows")
			case "NEWSGROUPS":
				for _, n := range names {
					fmt.Fprintf(&b, "%s\t%s\n", n, f.descriptions[n])
				}
				say("215 descriptions follow")
			default:
				say("501 unknown list")
				continue
			}
			block(b.String())
		default:
			say("500 what?")
		}
		w.Flush()
	}
}

// find looks an article up by number in group, or by "<id>".
func (f *fakeServer) find(group, arg string) (fakeArticle, int) {
	if strings.HasPrefix(arg, "<") {
		id := strings.TrimSuffix(strings.TrimPrefix(arg, "<"), ">")
		for _, arts := range f.groups {
			for _, a := range arts {
				if a.id == id {
					return a, 0
				}
			}
		}
		return fakeArticle{}, 430
	}
	if group == "" {
		return fakeArticle{}, 412
	}
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return fakeArticle{}, 501
	}
	for _, a := range f.groups[group] {
		if a.num == n {
			return a, 0
		}
	}
	return fakeArticle{}, 423
}
