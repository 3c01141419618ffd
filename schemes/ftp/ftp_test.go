package ftp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

var anonLogin = []string{"USER anonymous", "PASS fetch@example.com", "PWD"}

func parse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// get fetches rawURL with h and returns the body, or the error of Fetch or
// of reading.
func get(t *testing.T, h *Handler, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.Fetch(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b, err
}

// getVia is get through a Client (pipeClient's, say).
func getVia(t *testing.T, c *fetch.Client, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b, err
}

func req(t *testing.T, s string) *fetch.Request {
	return &fetch.Request{URL: parse(t, s)}
}

func withQuit(lines ...[]string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l...)
	}
	return append(out, "QUIT")
}

// TestCommandSequences checks the exact commands of RFC 1738 §3.2.2's
// examples and of the typecodes, each on a new connection.
func TestCommandSequences(t *testing.T) {
	bob := []string{"USER myname", "PASS pw", "PWD"}
	tests := []struct {
		url   string
		want  []string
		body  string
		setup func(s *fakeServer)
	}{
		// §3.2.2: "%2F" makes an absolute CWD.
		{url: "ftp://myname:pw@H/%2Fetc/motd", want: withQuit(bob, []string{"CWD /etc", "TYPE A", "EPSV", "RETR motd"}), body: "root motd"},
		// §3.2.2: relative to the login directory.
		{url: "ftp://myname:pw@H/etc/motd", want: withQuit(bob, []string{"CWD etc", "TYPE A", "EPSV", "RETR motd"}), body: "home motd"},
		// §3.2.2: an empty segment is a CWD with an empty argument.
		{url: "ftp://myname:pw@H//etc/motd", want: withQuit(bob, []string{"CWD ", "CWD etc", "TYPE A", "EPSV", "RETR motd"}), body: "root motd"},
		// Encoded '/' and ';' are part of one argument.
		{url: "ftp://H/a%2Fb/c%3Bd.bin", want: withQuit(anonLogin, []string{"CWD a/b", "TYPE I", "SIZE c;d.bin", "EPSV", "RETR c;d.bin"}), body: "semi"},
		{url: "ftp://H/pub/x.txt;type=i", want: withQuit(anonLogin, []string{"CWD pub", "TYPE I", "SIZE x.txt", "EPSV", "RETR x.txt"}), body: "text"},
		{url: "ftp://H/pub/x.bin;type=a", want: withQuit(anonLogin, []string{"CWD pub", "TYPE A", "EPSV", "RETR x.bin"}), body: "binary"},
		{url: "ftp://H/pub;type=d", want: withQuit(anonLogin, []string{"TYPE A", "EPSV", "NLST pub"}), body: "x.bin\nx.txt\n"},
		{url: "ftp://H/pub/", want: withQuit(anonLogin, []string{"CWD pub", "TYPE A", "EPSV", "NLST"}), body: "x.bin\nx.txt\n"},
		{url: "ftp://H/", want: withQuit(anonLogin, []string{"TYPE A", "EPSV", "NLST"}), body: "a\netc\nhome\npub\n"},
		{url: "ftp://H", want: withQuit(anonLogin, []string{"TYPE A", "EPSV", "NLST"}), body: "a\netc\nhome\npub\n"},
		// A server without EPSV: PASV, whose address is ignored.
		{url: "ftp://H/pub/x.bin", want: withQuit(anonLogin, []string{"CWD pub", "TYPE I", "SIZE x.bin", "EPSV", "PASV", "RETR x.bin"}), body: "binary",
			setup: func(s *fakeServer) { s.noEPSV = true }},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			s := newFakeServer(t)
			s.users["myname"] = "pw"
			s.homes["myname"] = "/home/myname"
			s.emptyCWD = "/"
			s.files["/etc/motd"] = []byte("root motd")
			s.files["/home/myname/etc/motd"] = []byte("home motd")
			s.files["/a/b/c;d.bin"] = []byte("semi")
			s.files["/pub/x.txt"] = []byte("text")
			s.files["/pub/x.bin"] = []byte("binary")
			if tt.setup != nil {
				tt.setup(s)
			}
			s.start()
			h := &Handler{}
			r := req(t, strings.Replace(tt.url, "H", s.addr(), 1))
			_, body, err := get(t, h, r)
			if err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if string(body) != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
			plan, err := h.Plan(r)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			h.Close()
			got := s.commands()
			if len(got) != 1 || !slices.Equal(got[0], tt.want) {
				t.Errorf("commands = %q\nwant %q", got, tt.want)
			}
			// The plan is the same sequence, password masked, without the
			// fallbacks (PASV) and the QUIT.
			var wantPlan []string
			for _, l := range tt.want {
				switch {
				case l == "QUIT" || l == "PASV":
				case strings.HasPrefix(l, "PASS "):
					wantPlan = append(wantPlan, "PASS ****")
				default:
					wantPlan = append(wantPlan, l)
				}
			}
			if !slices.Equal(plan, wantPlan) {
				t.Errorf("Plan = %q\nwant %q", plan, wantPlan)
			}
		})
	}
}

func TestConformance(t *testing.T) {
	s := newFakeServer(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 16<<10)
	s.files["/pub/big.bin"] = big
	s.users["bob"] = "s3cret-pass"
	s.start()
	h := &Handler{}
	defer h.Close()
	fetchtest.Run(t, h, fetchtest.Cases{
		Existing: "ftp://" + s.addr() + "/pub/big.bin",
		Want:     big,
		Missing:  "ftp://" + s.addr() + "/pub/nothing.bin",
		Secret:   "ftp://bob:wrong-pass-123@" + s.addr() + "/pub/big.bin",
		Password: "wrong-pass-123",
	})
}

func TestErrors(t *testing.T) {
	s := newFakeServer(t)
	s.users["bob"] = "right"
	s.files["/pub/cut.bin"] = bytes.Repeat([]byte("x"), 100000)
	s.files["/pub/nofinal.bin"] = []byte("all the bytes")
	s.files["/pub/short.bin"] = []byte("fewer bytes")
	s.files["/pub/ok.bin"] = []byte("ok")
	s.cut426["/pub/cut.bin"] = true
	s.noFinal["/pub/nofinal.bin"] = true
	s.sizeExtra["/pub/short.bin"] = 10
	s.start()
	h := &Handler{}
	defer h.Close()
	base := "ftp://" + s.addr()
	tests := []struct {
		url  string
		kind fetch.Kind
	}{
		{base + "/pub/missing.bin", fetch.NotFound},
		{base + "/nodir/file.bin", fetch.NotFound},
		{"ftp://bob:wrong@" + s.addr() + "/pub/ok.bin", fetch.Auth},
		{"ftp://nobody:x@" + s.addr() + "/pub/ok.bin", fetch.Auth},
		{base + "/pub/cut.bin", fetch.Incomplete},
		{base + "/pub/nofinal.bin", fetch.Incomplete},
		{base + "/pub/short.bin", fetch.Incomplete},
		{base + "/pub/short.bin;type=a", 0},     // SIZE is not binding in TYPE A
		{base + "//pub/ok.bin", fetch.NotFound}, // this server refuses an empty CWD
		{base + "/pub/ok.bin", 0},
	}
	for _, tt := range tests {
		_, _, err := get(t, h, req(t, tt.url))
		if fetch.KindOf(err) != tt.kind {
			t.Errorf("fetch %s: %v (kind %d), want kind %d", tt.url, err, fetch.KindOf(err), tt.kind)
		}
		if err != nil && (strings.Contains(err.Error(), "wrong") || strings.Contains(err.Error(), ":x@")) {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

func TestPasswordPrompt(t *testing.T) {
	s := newFakeServer(t)
	s.users["bob"] = "typed"
	s.files["/f.bin"] = []byte("data")
	s.start()
	h := &Handler{}
	defer h.Close()
	u := "ftp://bob@" + s.addr() + "/f.bin"
	_, _, err := get(t, h, req(t, u))
	if !errors.Is(err, fetch.Auth) || !errors.Is(err, ErrNeedPassword) {
		t.Fatalf("without a prompt: %v, want an Auth error asking for a password", err)
	}
	var re *fetch.ReplyError
	if !errors.As(err, &re) || re.Code != 331 || strings.Contains(err.Error(), "-u") {
		t.Errorf("without a prompt: %v, want the 331 reply and no CLI option", err)
	}
	var asked []string
	r := req(t, u)
	r.Prompt = func(label string, secret bool) (string, error) {
		asked = append(asked, label)
		return "typed", nil
	}
	var trace strings.Builder
	r.Trace = fetch.NewTrace(&trace)
	_, body, err := get(t, h, r)
	if err != nil || string(body) != "data" {
		t.Fatalf("with a prompt: %q, %v", body, err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "bob@") {
		t.Errorf("prompts = %q, want one for bob", asked)
	}
	if strings.Contains(trace.String(), "typed") || !strings.Contains(trace.String(), "> PASS ****") {
		t.Errorf("trace does not mask the password:\n%s", trace.String())
	}
	// -u with the same user supplies the password.
	h2 := &Handler{}
	defer h2.Close()
	r = req(t, u)
	r.User = url.UserPassword("bob", "typed")
	if _, _, err := get(t, h2, r); err != nil {
		t.Errorf("with -u: %v", err)
	}
}

func TestResume(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("0123456789")
	s.start()
	h := &Handler{}
	r := req(t, "ftp://"+s.addr()+"/f.bin")
	r.Offset = 4
	res, body, err := get(t, h, r)
	if err != nil || string(body) != "456789" || res.Offset != 4 || res.Size != 6 {
		t.Fatalf("resume: %q, %v, %+v", body, err, res)
	}
	h.Close()
	want := withQuit(anonLogin, []string{"TYPE I", "SIZE f.bin", "EPSV", "REST 4", "RETR f.bin"})
	if got := s.commands(); !slices.Equal(got[0], want) {
		t.Errorf("commands = %q\nwant %q", got[0], want)
	}
	// The dry run states the same commands, REST right before RETR.
	wantPlan := []string{"USER anonymous", "PASS ****", "PWD", "TYPE I", "SIZE f.bin", "EPSV", "REST 4", "RETR f.bin"}
	if plan, err := h.Plan(r); err != nil || !slices.Equal(plan, wantPlan) {
		t.Errorf("Plan = %q, %v\nwant %q", plan, err, wantPlan)
	}
}

// TestDataDialFails: the data connection is dialed while RETR goes out;
// when the dial fails, Fetch says so at once (Kind Connect) rather than
// wait for a reply the server cannot give without that connection.
func TestDataDialFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		const closed = 2121 // nothing listens there: the dial is refused
		var mu sync.Mutex
		var got []string
		addr := p.Serve(t, func(c net.Conn) {
			tp := textproto.NewConn(c)
			tp.PrintfLine("220 ready")
			for {
				line, err := tp.ReadLine()
				if err != nil {
					return
				}
				mu.Lock()
				got = append(got, line)
				mu.Unlock()
				verb, _, _ := strings.Cut(line, " ")
				switch verb {
				case "USER":
					tp.PrintfLine("230 in")
				case "PWD":
					tp.PrintfLine(`257 "/"`)
				case "TYPE":
					tp.PrintfLine("200 ok")
				case "SIZE":
					tp.PrintfLine("213 5")
				case "EPSV":
					tp.PrintfLine("229 Entering Extended Passive Mode (|||%d|)", closed)
				case "RETR":
					// A server waits for the data connection before it
					// replies: it never comes.
				default:
					tp.PrintfLine("502 no")
				}
			}
		})
		h := &Handler{}
		defer h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// On the bubble's clock the exchanges take no time: the RETR reply
		// is awaited dataGrace, for a refusal, and no longer.
		start := time.Now()
		_, err := pipeClient(p, h).Do(ctx, req(t, "ftp://"+addr+"/f.bin"))
		if !errors.Is(err, fetch.Connect) {
			t.Fatalf("Fetch with a refused data connection: %v, want Kind Connect", err)
		}
		if d := time.Since(start); d != dataGrace {
			t.Errorf("Fetch took %v, want dataGrace (%v): it waited for the RETR reply", d, dataGrace)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"USER anonymous", "PWD", "TYPE I", "SIZE f.bin", "EPSV", "RETR f.bin"}; !slices.Equal(got, want) && !slices.Equal(got, want[:len(want)-1]) {
			t.Errorf("commands = %q\nwant %q", got, want)
		}
	})
}

func TestResumeAtOrPastTheEnd(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("0123456789")
	s.start()
	h := &Handler{}
	defer h.Close()
	r := req(t, "ftp://"+s.addr()+"/f.bin")
	r.Offset = 10
	res, body, err := get(t, h, r)
	if err != nil || len(body) != 0 || res.Offset != 10 || res.Size != 0 {
		t.Errorf("resume at the end: %q, %v, %+v", body, err, res)
	}
	r.Offset = 11
	if _, _, err := get(t, h, r); err == nil {
		t.Errorf("resume past the end: no error")
	}
}

func TestResumeRefused(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("0123456789")
	s.noRest = true
	s.start()
	h := &Handler{}
	defer h.Close()
	r := req(t, "ftp://"+s.addr()+"/f.bin")
	r.Offset = 4
	res, body, err := get(t, h, r)
	if err != nil || string(body) != "0123456789" || res.Offset != 0 {
		t.Fatalf("resume refused: %q, %v, offset %d", body, err, res.Offset)
	}
}

func TestResumeIgnored(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("0123456789")
	s.ignoreRest = true
	s.start()
	h := &Handler{}
	defer h.Close()
	r := req(t, "ftp://"+s.addr()+"/f.bin")
	r.Offset = 4
	if _, _, err := get(t, h, r); !errors.Is(err, fetch.Protocol) {
		t.Fatalf("a server that ignores REST: %v, want a protocol error", err)
	}
}

func TestHead(t *testing.T) {
	s := newFakeServer(t)
	s.files["/pub/f.bin"] = []byte("0123456789")
	s.start()
	h := &Handler{}
	r := req(t, "ftp://"+s.addr()+"/pub/f.bin")
	r.Head = true
	res, body, err := get(t, h, r)
	if err != nil || len(body) != 0 || res.Size != 10 || !res.ModTime.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Fatalf("head: %v, %+v", err, res)
	}
	r = req(t, "ftp://"+s.addr()+"/pub/none.bin")
	r.Head = true
	if _, _, err := get(t, h, r); !errors.Is(err, fetch.NotFound) {
		t.Errorf("head of a missing file: %v, want NotFound", err)
	}
	r = req(t, "ftp://"+s.addr()+"/pub/")
	r.Head = true
	if res, _, err := get(t, h, r); err != nil || res.Kind != fetch.ResourceDirectory {
		t.Errorf("head of a directory: %v, %+v", err, res)
	}
	h.Close()
	// The later requests are in the same directory: no CWD at all.
	want := withQuit(anonLogin, []string{"CWD pub", "TYPE I", "SIZE f.bin", "MDTM f.bin",
		"SIZE none.bin", "MDTM none.bin"})
	if got := s.commands(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Errorf("commands = %q\nwant %q", got, want)
	}
}

// TestReuse checks RFC 1738 §3.2.5 done right: one login for many URLs, a
// return to the absolute login directory between different paths, and
// none when the path is the same.
func TestReuse(t *testing.T) {
	s := newFakeServer(t)
	s.files["/d1/a.bin"] = []byte("a")
	s.files["/d1/b.bin"] = []byte("b")
	s.files["/d2/c.bin"] = []byte("c")
	s.files["/top.bin"] = []byte("t")
	s.start()
	h := &Handler{}
	var trace strings.Builder
	for _, p := range []string{"/d1/a.bin", "/d1/b.bin", "/d2/c.bin", "/top.bin", "/d1/a.bin"} {
		r := req(t, "ftp://"+s.addr()+p)
		r.Trace = fetch.NewTrace(&trace)
		_, body, err := get(t, h, r)
		if err != nil || string(body) != string(s.files[p]) {
			t.Fatalf("fetch %s: %q, %v", p, body, err)
		}
	}
	h.Close()
	want := withQuit(anonLogin,
		[]string{"CWD d1", "TYPE I", "SIZE a.bin", "EPSV", "RETR a.bin"},
		[]string{"SIZE b.bin", "EPSV", "RETR b.bin"},
		[]string{"CWD /", "CWD d2", "SIZE c.bin", "EPSV", "RETR c.bin"},
		[]string{"CWD /", "SIZE top.bin", "EPSV", "RETR top.bin"},
		[]string{"CWD d1", "SIZE a.bin", "EPSV", "RETR a.bin"},
	)
	if got := s.commands(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Errorf("commands = %q\nwant %q", got, want)
	}
	if n := s.loginCount(); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
	for _, note := range []string{"* reusing the connection", `* returning to the login directory "/"`, "* already in the directory"} {
		if !strings.Contains(trace.String(), note) {
			t.Errorf("trace lacks %q:\n%s", note, trace.String())
		}
	}
}

// TestReuseWithoutAbsolutePWD: a server whose PWD is not an absolute path
// gets a new login after any CWD (the RFC's "only reliable algorithm").
func TestReuseWithoutAbsolutePWD(t *testing.T) {
	s := newFakeServer(t)
	s.pwd = `"SYS:USERS" is the current directory`
	s.files["/d1/a.bin"] = []byte("a")
	s.files["/top.bin"] = []byte("t")
	s.start()
	h := &Handler{}
	var trace strings.Builder
	for _, p := range []string{"/top.bin", "/top.bin", "/d1/a.bin", "/top.bin"} {
		r := req(t, "ftp://"+s.addr()+p)
		r.Trace = fetch.NewTrace(&trace)
		if _, _, err := get(t, h, r); err != nil {
			t.Fatalf("fetch %s: %v", p, err)
		}
	}
	h.Close()
	got := s.commands()
	want := [][]string{
		withQuit(anonLogin, []string{"TYPE I", "SIZE top.bin", "EPSV", "RETR top.bin", "SIZE top.bin", "EPSV", "RETR top.bin",
			"CWD d1", "SIZE a.bin", "EPSV", "RETR a.bin"}),
		withQuit(anonLogin, []string{"TYPE I", "SIZE top.bin", "EPSV", "RETR top.bin"}),
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("commands = %q\nwant %q", got, want)
	}
	if !strings.Contains(trace.String(), "no absolute PWD") {
		t.Errorf("trace does not say why the connection was closed:\n%s", trace.String())
	}
}

// TestReuseCWDFails: when the CWD back to the login directory fails, the
// connection is dropped and a new one logs in.
func TestReuseCWDFails(t *testing.T) {
	s := newFakeServer(t)
	s.homes["anonymous"] = "/home"
	s.files["/home/d1/a.bin"] = []byte("a")
	s.files["/home/d2/b.bin"] = []byte("b")
	s.start()
	h := &Handler{}
	if _, _, err := get(t, h, req(t, "ftp://"+s.addr()+"/d1/a.bin")); err != nil {
		t.Fatal(err)
	}
	s.refuseCWD("/home")
	if _, _, err := get(t, h, req(t, "ftp://"+s.addr()+"/d2/b.bin")); err != nil {
		t.Fatal(err)
	}
	h.Close()
	got := s.commands()
	want := [][]string{
		withQuit(anonLogin, []string{"CWD d1", "TYPE I", "SIZE a.bin", "EPSV", "RETR a.bin", "CWD /home"}),
		withQuit(anonLogin, []string{"CWD d2", "TYPE I", "SIZE b.bin", "EPSV", "RETR b.bin"}),
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("commands = %q\nwant %q", got, want)
	}
}

// TestReuseAfterFailures: a 550 and a 426 leave the connection in step,
// so the next URL reuses it.
func TestReuseAfterFailures(t *testing.T) {
	s := newFakeServer(t)
	s.files["/cut.bin"] = bytes.Repeat([]byte("x"), 1000)
	s.files["/ok.bin"] = []byte("ok")
	s.cut426["/cut.bin"] = true
	s.start()
	h := &Handler{}
	for _, p := range []string{"/none.bin", "/cut.bin", "/ok.bin"} {
		get(t, h, req(t, "ftp://"+s.addr()+p))
	}
	h.Close()
	if n := s.loginCount(); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// TestStalePooledConnection: a pooled connection the server dropped is
// replaced by a new anonLogin, transparently.
func TestStalePooledConnection(t *testing.T) {
	s := newFakeServer(t)
	s.files["/ok.bin"] = []byte("ok")
	s.start()
	h := &Handler{}
	defer h.Close()
	if _, _, err := get(t, h, req(t, "ftp://"+s.addr()+"/ok.bin")); err != nil {
		t.Fatal(err)
	}
	// The server drops every connection.
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	if _, body, err := get(t, h, req(t, "ftp://"+s.addr()+"/ok.bin")); err != nil || string(body) != "ok" {
		t.Fatalf("after the server dropped the pooled connection: %q, %v", body, err)
	}
	if n := s.loginCount(); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
}

// TestParallel: transfers at once use connections of their own.
func TestParallel(t *testing.T) {
	s := newFakeServer(t)
	s.files["/a.bin"] = bytes.Repeat([]byte("a"), 1000)
	s.files["/b.bin"] = bytes.Repeat([]byte("b"), 1000)
	release := make(chan int)
	s.hold["/a.bin"] = release
	s.start()
	h := &Handler{}
	defer h.Close()
	ctx := context.Background()
	ra, err := h.Fetch(ctx, req(t, "ftp://"+s.addr()+"/a.bin"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := get(t, h, req(t, "ftp://"+s.addr()+"/b.bin"))
	if err != nil || len(body) != 1000 {
		t.Fatalf("second transfer while the first is open: %v", err)
	}
	close(release)
	io.Copy(io.Discard, ra.Body)
	ra.Body.Close()
	if n := s.loginCount(); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
}

func TestActive(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("active data")
	s.start()
	h := &Handler{Active: true}
	_, body, err := get(t, h, req(t, "ftp://"+s.addr()+"/f.bin"))
	if err != nil || string(body) != "active data" {
		t.Fatalf("active: %q, %v", body, err)
	}
	h.Close()
	got := s.commands()[0]
	if !strings.HasPrefix(got[5], "EPRT |1|127.0.0.1|") || got[6] != "RETR f.bin" {
		t.Errorf("commands = %q, want EPRT then RETR", got)
	}
}

func TestRefusesControlCharacters(t *testing.T) {
	h := &Handler{}
	for _, u := range []string{"ftp://h/a%0D%0ADELE%20x/f", "ftp://h/f%00.bin", "ftp://h/%0A;type=d"} {
		r := req(t, u)
		if _, err := h.Fetch(context.Background(), r); !errors.Is(err, fetch.Refused) {
			t.Errorf("Fetch(%s): %v, want Refused", u, err)
		}
		if _, err := h.Plan(r); !errors.Is(err, fetch.Refused) {
			t.Errorf("Plan(%s): %v, want Refused", u, err)
		}
	}
}

func TestListing(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\r\nb", "a\nb\n"},
		{"a\nb\n", "a\nb\n"},
		{"", ""},
		{"odd\rname\r\n", "odd\rname\n"},
		{"end\r", "end\r\n"},
	}
	for _, tt := range tests {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if one {
				r = iotest.OneByteReader(r)
			}
			got, err := io.ReadAll(newListing(io.NopCloser(r)))
			if err != nil || string(got) != tt.want {
				t.Errorf("listing(%q, one byte %v) = %q, %v, want %q", tt.in, one, got, err, tt.want)
			}
		}
	}
}

func TestParseReplies(t *testing.T) {
	pwd := []struct {
		in   string
		want string
		ok   bool
	}{
		{`"/" is the current directory`, "/", true},
		{`"/home/a ""q""" created`, `/home/a "q"`, true},
		{`no quotes`, "", false},
	}
	for _, tt := range pwd {
		got, ok := parsePWD(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parsePWD(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	epsv := []struct {
		in   string
		want int
	}{
		{"Entering Extended Passive Mode (|||6446|)", 6446},
		{"Entering Extended Passive Mode (!!!6446!)", 6446},
		{"Entering Extended Passive Mode (|||0|)", 0},
		{"nonsense", 0},
	}
	for _, tt := range epsv {
		if got, _ := parseEPSV(tt.in); got != tt.want {
			t.Errorf("parseEPSV(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	pasv := []struct {
		in   string
		want int
	}{
		{"Entering Passive Mode (127,0,0,1,4,1).", 1025},
		{"Entering Passive Mode 127,0,0,1,4,1", 1025},
		{"Entering Passive Mode (127,0,0,1,256,1)", 0},
	}
	for _, tt := range pasv {
		if got, _ := parsePASV(tt.in); got != tt.want {
			t.Errorf("parsePASV(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestGuessType(t *testing.T) {
	for name, want := range map[string]string{"motd": "A", "README": "A", "notes.TXT": "A", "a.tar.gz": "I", "x.bin": "I", "core": "I"} {
		if got, _ := guessType(name); got != want {
			t.Errorf("guessType(%q) = %s, want %s", name, got, want)
		}
	}
}
