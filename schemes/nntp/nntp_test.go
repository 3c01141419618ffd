package nntp

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

const article1 = "From: a@example.org\nSubject: first\nMessage-ID: <one@example.org>\nDate: Sat, 21 Nov 2026 10:00:00 +0000\nNewsgroups: local.test\n\nLine one.\n.A line starting with a dot.\n..Two dots.\n.\nSee http://example.org/page and ftp://ftp.example.org/pub/.\n"
const article2 = "From: b@example.org\nSubject: second\nMessage-ID: <two@example.org>\n\nSecond body.\n"

// newServer returns a fake server with local.test holding two articles,
// and an empty group.
func newServer(t *testing.T) *fakeServer {
	f := newFakeServer(t)
	f.add("local.test", 1, "one@example.org", article1)
	f.add("local.test", 2, "two@example.org", article2)
	f.groups["local.empty"] = nil
	f.descriptions["local.test"] = "Tests."
	f.descriptions["local.empty"] = "Nothing."
	return f
}

func newHandler(t *testing.T, addr string) *Handler {
	h := &Handler{Server: addr}
	t.Cleanup(func() { h.Close() })
	return h
}

// pipeClient returns a Client whose connections are made on p, a network
// in memory, with h as its nntp and news handler.
func pipeClient(p *fetchtest.Pipes, h *Handler) *fetch.Client {
	c := &fetch.Client{DialContext: p.DialContext}
	c.Register("nntp", h)
	c.Register("news", h)
	return c
}

// getVia fetches s through c (pipeClient's, say) and reads the whole body.
func getVia(t *testing.T, c *fetch.Client, s string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.Do(ctx, &fetch.Request{URL: parse(t, s)})
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

func parse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.ParseLenient(s)
	if err != nil {
		t.Fatalf("ParseLenient(%q): %v", s, err)
	}
	return u
}

// get fetches s and reads the whole body.
func get(t *testing.T, h *Handler, s string, mod ...func(*fetch.Request)) (*fetch.Resource, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := &fetch.Request{URL: parse(t, s)}
	for _, m := range mod {
		m(req)
	}
	res, err := h.Fetch(ctx, req)
	if err != nil {
		if res != nil {
			t.Errorf("Fetch(%s) returned a Resource with error %v", s, err)
		}
		return nil, "", err
	}
	b, err := io.ReadAll(res.Body)
	if cerr := res.Body.Close(); cerr != nil {
		t.Errorf("Close: %v", cerr)
	}
	return res, string(b), err
}

func TestFetch(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	overview := "1\tfirst\tfake@example\tdate\t<one@example.org>\t\t" + strconv.Itoa(len(article1)) + "\t1\n" +
		"2\tsecond\tfake@example\tdate\t<two@example.org>\t\t" + strconv.Itoa(len(article2)) + "\t1\n"
	tests := []struct {
		name, url string
		descr     bool
		want      string
		kind      fetch.ResourceKind
		sent      []string // the commands after the session setup
	}{
		{"article by number", "nntp://" + addr + "/local.test/1", false, article1, fetch.ResourceArticle,
			[]string{"GROUP local.test", "ARTICLE 1"}},
		{"article by message-id", "news:two@example.org", false, article2, fetch.ResourceArticle,
			[]string{"ARTICLE <two@example.org>"}},
		{"message-id with brackets", "news:%3Ctwo@example.org%3E", false, article2, fetch.ResourceArticle,
			[]string{"ARTICLE <two@example.org>"}},
		{"nntp overview", "nntp://" + addr + "/local.test", false, overview, fetch.ResourceList,
			[]string{"GROUP local.test", "OVER 1-2"}},
		{"news overview", "news:local.test", false, overview, fetch.ResourceList,
			[]string{"GROUP local.test", "OVER 1-2"}},
		{"empty group", "news:local.empty", false, "", fetch.ResourceList,
			[]string{"GROUP local.empty"}},
		{"group list", "news:*", false, "local.empty 0000000000 0000000001 y\nlocal.test 0000000002 0000000001 y\n", fetch.ResourceList,
			[]string{"LIST ACTIVE"}},
		{"wildmat", "news:local.t*", false, "local.test 0000000002 0000000001 y\n", fetch.ResourceList,
			[]string{"LIST ACTIVE local.t*"}},
		{"descriptions", "news:*", true, "local.empty\tNothing.\nlocal.test\tTests.\n", fetch.ResourceList,
			[]string{"LIST NEWSGROUPS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, addr)
			h.Descriptions = tt.descr
			before := len(f.received())
			res, got, err := get(t, h, tt.url)
			if err != nil {
				t.Fatalf("Fetch(%s): %v", tt.url, err)
			}
			if got != tt.want {
				t.Errorf("Fetch(%s) body = %q, want %q", tt.url, got, tt.want)
			}
			if res.Kind != tt.kind {
				t.Errorf("Fetch(%s) kind = %v, want %v", tt.url, res.Kind, tt.kind)
			}
			sent := f.received()[before:]
			sent = slices.DeleteFunc(sent, func(l string) bool { return l == "CAPABILITIES" || l == "QUIT" })
			if !slices.Equal(sent, tt.sent) {
				t.Errorf("Fetch(%s) sent %q, want %q", tt.url, sent, tt.sent)
			}
			// Plan names the same commands (the overview's range aside).
			plan, err := h.Plan(&fetch.Request{URL: parse(t, tt.url)})
			if err != nil {
				t.Fatalf("Plan(%s): %v", tt.url, err)
			}
			if len(plan) == 0 || plan[0] != tt.sent[0] {
				t.Errorf("Plan(%s) = %q, want it to begin with %q", tt.url, plan, tt.sent[0])
			}
		})
	}
}

func TestErrors(t *testing.T) {
	f := newServer(t)
	f.override["ARTICLE 9"] = "503 server exploded"
	f.override["GROUP local.denied"] = "502 access denied"
	f.truncate["<one@example.org>"] = true
	addr := f.start(nil)
	tests := []struct {
		url  string
		kind fetch.Kind
		text string // a word the error must hold
		code int    // the ReplyError's code; 0: none
	}{
		{"nntp://" + addr + "/local.test/7", fetch.NotFound, "423", 423},
		{"nntp://" + addr + "/no.such.group/1", fetch.NotFound, "411", 411},
		{"news:no.such.group", fetch.NotFound, "no such newsgroup", 411},
		{"news:nobody@example.org", fetch.NotFound, "430", 430},
		{"nntp://" + addr + "/local.test/9", fetch.Protocol, "server exploded", 503},
		{"news:local.denied", fetch.Auth, "access denied", 502},
		{"news:one@example.org", fetch.Incomplete, "final", 0},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			h := newHandler(t, addr)
			_, _, err := get(t, h, tt.url)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("Fetch(%s): %v (kind %v), want kind %v", tt.url, err, fetch.KindOf(err), tt.kind)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Fetch(%s): %v, want it to mention %q", tt.url, err, tt.text)
			}
			var re *fetch.ReplyError
			if got := errors.As(err, &re); got != (tt.code != 0) || got && re.Code != tt.code {
				t.Errorf("Fetch(%s): %v: ReplyError %v, want code %d", tt.url, err, re, tt.code)
			}
		})
	}
}

func TestGreeting(t *testing.T) {
	for _, tt := range []struct {
		greeting string
		kind     fetch.Kind
	}{
		{"502 you may not read here", fetch.Auth},
		{"400 come back later", fetch.Unavailable},
		{"hello there", fetch.Protocol},
		{"201 posting not allowed", 0},
	} {
		t.Run(tt.greeting, func(t *testing.T) {
			f := newServer(t)
			f.greeting = tt.greeting
			h := newHandler(t, f.start(nil))
			_, _, err := get(t, h, "news:one@example.org")
			if tt.kind == 0 {
				if err != nil {
					t.Fatalf("greeting %q: %v", tt.greeting, err)
				}
				return
			}
			if !errors.Is(err, tt.kind) {
				t.Fatalf("greeting %q: %v (kind %v), want kind %v", tt.greeting, err, fetch.KindOf(err), tt.kind)
			}
		})
	}
}

func TestModeReader(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		modeSwitching, noCaps bool
		wantMode              bool
	}{
		{"reader server", false, false, false},
		{"mode-switching server", true, false, true},
		{"server without CAPABILITIES", false, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newServer(t)
			f.modeSwitching, f.noCaps = tt.modeSwitching, tt.noCaps
			h := newHandler(t, f.start(nil))
			if _, got, err := get(t, h, "news:one@example.org"); err != nil || got != article1 {
				t.Fatalf("Fetch: %q, %v", got, err)
			}
			if sent := slices.Contains(f.received(), "MODE READER"); sent != tt.wantMode {
				t.Errorf("MODE READER sent: %v, want %v (lines %q)", sent, tt.wantMode, f.received())
			}
		})
	}
}

func TestXOverFallback(t *testing.T) {
	f := newServer(t)
	f.noOver = true
	h := newHandler(t, f.start(nil))
	for range 2 {
		_, got, err := get(t, h, "news:local.test")
		if err != nil || strings.Count(got, "\n") != 2 {
			t.Fatalf("Fetch: %q, %v", got, err)
		}
	}
	var over, xover int
	for _, l := range f.received() {
		over += boolInt(strings.HasPrefix(l, "OVER "))
		xover += boolInt(strings.HasPrefix(l, "XOVER "))
	}
	if over != 1 || xover != 2 {
		t.Errorf("sent OVER %d times and XOVER %d times, want 1 and 2 (the fallback is remembered)", over, xover)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestAuth(t *testing.T) {
	const secret = "s3cr3t-pw"
	f := newServer(t)
	f.user, f.pass = "reader", secret
	addr := f.start(nil)
	t.Run("URL credentials", func(t *testing.T) {
		var trace strings.Builder
		h := newHandler(t, addr)
		_, got, err := get(t, h, "nntp://reader:"+secret+"@"+addr+"/local.test/2", func(r *fetch.Request) { r.Trace = fetch.NewTrace(&trace) })
		if err != nil || got != article2 {
			t.Fatalf("Fetch: %q, %v", got, err)
		}
		if strings.Contains(trace.String(), secret) || !strings.Contains(trace.String(), "AUTHINFO PASS ****") {
			t.Errorf("trace shows the password or no masked PASS:\n%s", trace.String())
		}
	})
	t.Run("request credentials for news", func(t *testing.T) {
		h := newHandler(t, addr)
		_, got, err := get(t, h, "news:two@example.org", func(r *fetch.Request) { r.User = url.UserPassword("reader", secret) })
		if err != nil || got != article2 {
			t.Fatalf("Fetch: %q, %v", got, err)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		h := newHandler(t, addr)
		_, _, err := get(t, h, "news:two@example.org")
		if !errors.Is(err, fetch.Auth) || !strings.Contains(err.Error(), "480") {
			t.Fatalf("Fetch: %v (kind %v), want Auth mentioning 480", err, fetch.KindOf(err))
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		var trace strings.Builder
		h := newHandler(t, addr)
		_, _, err := get(t, h, "nntp://reader:wrong-"+secret+"@"+addr+"/local.test/2", func(r *fetch.Request) { r.Trace = fetch.NewTrace(&trace) })
		if !errors.Is(err, fetch.Auth) || strings.Contains(err.Error(), secret) {
			t.Fatalf("Fetch: %v (kind %v), want Auth without the password", err, fetch.KindOf(err))
		}
		if strings.Contains(trace.String(), secret) {
			t.Errorf("trace shows the password:\n%s", trace.String())
		}
	})
	t.Run("password asked", func(t *testing.T) {
		h := newHandler(t, addr)
		var asked string
		prompt := func(label string, hidden bool) (string, error) {
			asked = label
			return secret, nil
		}
		_, got, err := get(t, h, "nntp://reader@"+addr+"/local.test/2", func(r *fetch.Request) { r.Prompt = prompt })
		if err != nil || got != article2 || !strings.Contains(asked, "reader") {
			t.Fatalf("Fetch with a prompt: %q, %v (asked %q)", got, err, asked)
		}
	})
	t.Run("user without password", func(t *testing.T) {
		h := newHandler(t, addr)
		_, _, err := get(t, h, "nntp://reader@"+addr+"/local.test/2")
		if !errors.Is(err, fetch.Auth) {
			t.Fatalf("Fetch: %v (kind %v), want Auth", err, fetch.KindOf(err))
		}
	})
}

func TestReuse(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	for _, s := range []string{"/local.test/1", "/local.test/2", "/local.test/1"} {
		if _, _, err := get(t, h, "nntp://"+addr+s); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := get(t, h, "news:two@example.org"); err != nil {
		t.Fatal(err)
	}
	if n := f.connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
	groups := 0
	for _, l := range f.received() {
		groups += boolInt(strings.HasPrefix(l, "GROUP "))
	}
	if groups != 1 {
		t.Errorf("GROUP sent %d times, want 1: %q", groups, f.received())
	}
}

func TestReuseAfterEarlyClose(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	res, err := h.Fetch(context.Background(), &fetch.Request{URL: parse(t, "nntp://"+addr+"/local.test/1")})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close() // nothing read: Close drains to the "."
	if _, got, err := get(t, h, "nntp://"+addr+"/local.test/2"); err != nil || got != article2 {
		t.Fatalf("second fetch: %q, %v", got, err)
	}
	if n := f.connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestStaleConnection(t *testing.T) {
	f := newServer(t)
	f.closeAfter = 3 // CAPABILITIES, ARTICLE, then the next command finds the connection closed
	addr := f.start(nil)
	h := newHandler(t, addr)
	for i := range 3 {
		if _, got, err := get(t, h, "news:two@example.org"); err != nil || got != article2 {
			t.Fatalf("fetch %d: %q, %v", i, got, err)
		}
	}
	if n := f.connections(); n < 2 {
		t.Errorf("%d connections, want a new one after the server closed the first", n)
	}
}

func TestNoServer(t *testing.T) {
	t.Setenv("NNTPSERVER", "")
	h := &Handler{}
	_, err := h.Fetch(context.Background(), &fetch.Request{URL: parse(t, "news:local.test")})
	if !errors.Is(err, fetch.Usage) || !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), "NNTPSERVER") || strings.Contains(err.Error(), "--") {
		t.Fatalf("Fetch without a server: %v (kind %v), want Usage naming NNTPSERVER", err, fetch.KindOf(err))
	}
	// Plan needs no server.
	if lines, err := h.Plan(&fetch.Request{URL: parse(t, "news:local.test")}); err != nil || len(lines) == 0 {
		t.Fatalf("Plan without a server: %q, %v", lines, err)
	}
}

func TestServerFromEnvironment(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	t.Setenv("NNTPSERVER", addr)
	h := newHandler(t, "")
	if _, got, err := get(t, h, "news:two@example.org"); err != nil || got != article2 {
		t.Fatalf("Fetch with NNTPSERVER=%s: %q, %v", addr, got, err)
	}
}

func TestServerSetting(t *testing.T) {
	for _, tt := range []struct {
		server string
		tls    bool
		want   string
		ok     bool
	}{
		{"news.example.org", false, "news.example.org:119", true},
		{"news.example.org", true, "news.example.org:563", true},
		{"news.example.org:1119", false, "news.example.org:1119", true},
		{"[::1]:1119", false, "[::1]:1119", true},
		{"::1", false, "[::1]:119", true},
		{"[::1]", false, "[::1]:119", true},
		{"news.example.org:x", false, "", false},
		{"news.example.org:0", false, "", false},
	} {
		h := &Handler{Server: tt.server}
		tg := &target{tls: tt.tls}
		err := h.server(tg)
		if (err == nil) != tt.ok || (tt.ok && tg.addr() != tt.want) {
			t.Errorf("server(%q, tls=%v) = %q, %v; want %q, ok=%v", tt.server, tt.tls, tg.addr(), err, tt.want, tt.ok)
		}
	}
}

func TestPlan(t *testing.T) {
	h := &Handler{}
	for _, tt := range []struct {
		url  string
		head bool
		want []string
		kind fetch.Kind
	}{
		{"nntp://news.example.org/comp.lang.go/42", false, []string{"GROUP comp.lang.go", "ARTICLE 42"}, 0},
		{"nntp://news.example.org/comp.lang.go/42", true, []string{"GROUP comp.lang.go", "HEAD 42"}, 0},
		{"nntp://news.example.org/comp.lang.go", false, []string{"GROUP comp.lang.go", "OVER low-high"}, 0},
		{"nntps://news.example.org/comp.lang.go/", false, []string{"GROUP comp.lang.go", "OVER low-high"}, 0},
		{"news:abc@example.org", false, []string{"ARTICLE <abc@example.org>"}, 0},
		{"snews:abc@example.org", true, []string{"HEAD <abc@example.org>"}, 0},
		{"news:*", false, []string{"LIST ACTIVE"}, 0},
		{"news:comp.*", false, []string{"LIST ACTIVE comp.*"}, 0},
		{"news:comp.lang.go", false, []string{"GROUP comp.lang.go", "OVER low-high"}, 0},
		{"news:comp.lang%0D%0AQUIT", false, nil, fetch.Refused},
		{"news:comp.lang%09go", false, nil, fetch.Refused},
		{"news:comp%00lang", false, nil, fetch.Refused},
		{"news:a%0Db@example.org", false, nil, fetch.Refused},
		{"nntp://h/comp.lang%0Ago/1", false, nil, fetch.Refused},
		{"news:comp%20lang", false, nil, fetch.Malformed},
		{"news:a%3Eb@example.org", false, nil, fetch.Malformed},
		{"news:" + strings.Repeat("a", 600), false, nil, fetch.Malformed},
	} {
		got, err := h.Plan(&fetch.Request{URL: parse(t, tt.url), Head: tt.head})
		if tt.kind != 0 {
			if !errors.Is(err, tt.kind) {
				t.Errorf("Plan(%s) = %q, %v; want kind %v", tt.url, got, err, tt.kind)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Plan(%s) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
	h.Descriptions = true
	if got, _ := h.Plan(&fetch.Request{URL: parse(t, "news:*")}); !slices.Equal(got, []string{"LIST NEWSGROUPS"}) {
		t.Errorf("Plan(news:*) with descriptions = %q", got)
	}
}

// TestFetchRefusesControlCharacters checks that a CR/LF reaching Fetch
// directly (no Client policy in front) is refused before any connection.
func TestFetchRefusesControlCharacters(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	_, _, err := get(t, h, "nntp://"+addr+"/local.test%0D%0AQUIT/1")
	if !errors.Is(err, fetch.Refused) {
		t.Fatalf("Fetch: %v, want Refused", err)
	}
	if n := f.connections(); n != 0 {
		t.Errorf("%d connections made, want none", n)
	}
	s := &session{}
	if err := s.send("GROUP a\r\nQUIT", "GROUP a"); !errors.Is(err, fetch.Refused) {
		t.Errorf("send with CR LF: %v, want Refused", err)
	}
}

func TestHead(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	res, body, err := get(t, h, "nntp://"+addr+"/local.test/1", func(r *fetch.Request) { r.Head = true })
	if err != nil {
		t.Fatal(err)
	}
	if body != "" || res.Kind != fetch.ResourceArticle {
		t.Errorf("Head: body %q kind %v", body, res.Kind)
	}
	if want := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC); !res.ModTime.Equal(want) {
		t.Errorf("ModTime = %v, want %v", res.ModTime, want)
	}
	if res.Extra["nntp-subject"] != "first" || res.Extra[ExtraMessageID] != "<one@example.org>" {
		t.Errorf("Extra = %v", res.Extra)
	}
	res, _, err = get(t, h, "news:local.test", func(r *fetch.Request) { r.Head = true })
	if err != nil || res.Extra[ExtraCount] != "2" || res.Extra[ExtraHigh] != "2" {
		t.Fatalf("Head of a group: %v, %v", res, err)
	}
	if slices.ContainsFunc(f.received(), func(l string) bool { return strings.HasPrefix(l, "OVER") }) {
		t.Errorf("Head of a group sent OVER")
	}
}

func TestTLS(t *testing.T) {
	serverCfg, clientCfg := fetchtest.TLS(t)

	f := newServer(t)
	addr := f.start(serverCfg)
	h := newHandler(t, addr)
	cfg := clientCfg.Clone()
	cfg.ServerName = "localhost"
	_, got, err := get(t, h, "snews:two@example.org", func(r *fetch.Request) { r.TLS = cfg })
	if err != nil || got != article2 {
		t.Fatalf("snews: %q, %v", got, err)
	}
	_, got, err = get(t, h, "nntps://"+addr+"/local.test/2", func(r *fetch.Request) { r.TLS = cfg })
	if err != nil || got != article2 {
		t.Fatalf("nntps: %q, %v", got, err)
	}
	// Without the test roots the certificate does not verify.
	h2 := newHandler(t, addr)
	_, _, err = get(t, h2, "snews:two@example.org")
	if !errors.Is(err, fetch.Connect) {
		t.Fatalf("snews with an unknown certificate: %v (kind %v), want Connect", err, fetch.KindOf(err))
	}
}

// TestTLSResumes checks that a Handler's later TLS connections to a
// server resume the session of the first.
func TestTLSResumes(t *testing.T) {
	serverCfg, clientCfg := fetchtest.TLS(t)
	f := newServer(t)
	addr := f.start(serverCfg)
	h := newHandler(t, addr)
	h.MaxIdle = -1 // every fetch connects anew
	for range 3 {
		if _, _, err := get(t, h, "nntps://"+addr+"/local.test/2", func(r *fetch.Request) { r.TLS = clientCfg }); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if want := []bool{false, true, true}; !slices.Equal(f.resumed, want) {
		t.Errorf("DidResume of the connections: %v, want %v", f.resumed, want)
	}
}

func TestLongReplyLine(t *testing.T) {
	f := newServer(t)
	f.override["ARTICLE <long@example.org>"] = "220 " + strings.Repeat("x", 10000)
	h := newHandler(t, f.start(nil))
	_, _, err := get(t, h, "news:long@example.org")
	if !errors.Is(err, fetch.Protocol) {
		t.Fatalf("Fetch: %v, want Protocol", err)
	}
}

func TestConformance(t *testing.T) {
	f := newServer(t)
	var b strings.Builder
	b.WriteString("From: big@example.org\nSubject: big\nMessage-ID: <big@example.org>\n\n")
	for i := 0; b.Len() < 200<<10; i++ {
		if i%7 == 0 {
			b.WriteString(".")
		}
		b.WriteString("line " + strconv.Itoa(i) + " of a long article body.\n")
	}
	big := b.String()
	f.add("local.big", 1, "big@example.org", big)
	f.user, f.pass = "", ""
	addr := f.start(nil)
	stalled, _ := stallingServer(t, nil)
	h := newHandler(t, addr)
	fetchtest.Run(t, h, fetchtest.Cases{
		Existing: "nntp://" + addr + "/local.big/1",
		Want:     []byte(big),
		Missing:  "nntp://" + addr + "/local.big/2",
		Secret:   "nntp://u:pa55word@" + addr + "/local.nothere/1",
		Password: "pa55word",
		Parser:   url.Parser{Lenient: true},
		Stalled:  "nntp://" + stalled + "/g/1",
	})
}

func TestServerHost(t *testing.T) {
	t.Setenv("NNTPSERVER", "env.example.org:1119")
	for _, tt := range []struct {
		server, url, want string
	}{
		{"", "nntp://news.example.org/g/1", "news.example.org"},
		{"opt.example.org", "news:g", "opt.example.org"},
		{"", "snews:a@b", "env.example.org"},
		{"[::1]:1119", "news:g", "::1"},
		{"opt.example.org", "news://other.example.org/g", "other.example.org"},
	} {
		h := &Handler{Server: tt.server}
		if got := h.ServerHost(parse(t, tt.url)); got != tt.want {
			t.Errorf("Handler{Server: %q}.ServerHost(%s) = %q, want %q", tt.server, tt.url, got, tt.want)
		}
	}
	t.Setenv("NNTPSERVER", "")
	if got := (&Handler{}).ServerHost(parse(t, "news:g")); got != "" {
		t.Errorf("ServerHost with no server = %q, want \"\"", got)
	}
}

func TestNewsWithHost(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, "") // no configured server: the URL names it
	t.Setenv("NNTPSERVER", "")
	for _, tt := range []struct {
		url, want string
	}{
		{"news://" + addr + "/two@example.org", article2},
		{"news://" + addr + "/%3Ctwo@example.org%3E", article2},
		{"news://" + addr + "/local.t*", "local.test 0000000002 0000000001 y\n"},
	} {
		if _, got, err := get(t, h, tt.url); err != nil || got != tt.want {
			t.Errorf("Fetch(%s) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		url  string
		kind fetch.Kind
	}{
		{"news://127.0.0.1:25/local.test", fetch.Refused},
		{"news://127.0.0.1:x/local.test", fetch.Malformed},
		{"news:///local.test", fetch.Usage}, // the configured server, and there is none
	} {
		if _, _, err := get(t, h, tt.url); !errors.Is(err, tt.kind) {
			t.Errorf("Fetch(%s): %v (kind %v), want kind %v", tt.url, err, fetch.KindOf(err), tt.kind)
		}
	}
	if got, err := h.Plan(&fetch.Request{URL: parse(t, "news://news.example.org/comp.lang.go")}); err != nil || !slices.Equal(got, []string{"GROUP comp.lang.go", "OVER low-high"}) {
		t.Errorf("Plan(news://news.example.org/comp.lang.go) = %q, %v", got, err)
	}
}

func TestReuseAfterRefusal(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	for _, tt := range []struct {
		url  string
		kind fetch.Kind
	}{
		{"nntp://" + addr + "/local.test/9", fetch.NotFound},
		{"news:nothere@example.org", fetch.NotFound},
		{"news:no.such.group", fetch.NotFound},
		{"nntp://" + addr + "/local.test/1", 0},
		{"news:two@example.org", 0},
	} {
		if _, _, err := get(t, h, tt.url); (tt.kind == 0 && err != nil) || (tt.kind != 0 && !errors.Is(err, tt.kind)) {
			t.Fatalf("Fetch(%s): %v, want kind %v", tt.url, err, tt.kind)
		}
	}
	if n := f.connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestSilentServer(t *testing.T) {
	f := newServer(t)
	f.hang["ARTICLE <one@example.org>"] = true
	f.truncate["<two@example.org>"] = true
	h := newHandler(t, f.start(nil))
	_, _, err := get(t, h, "news:one@example.org", func(r *fetch.Request) { r.IdleTimeout = 50 * time.Millisecond })
	if !errors.Is(err, fetch.Timeout) {
		t.Errorf("silent server: %v (kind %v), want Timeout", err, fetch.KindOf(err))
	}
	// A header block cut short (HEAD) is incomplete too.
	_, _, err = get(t, h, "news:two@example.org", func(r *fetch.Request) { r.Head = true })
	if !errors.Is(err, fetch.Incomplete) {
		t.Errorf("HEAD cut short: %v (kind %v), want Incomplete", err, fetch.KindOf(err))
	}
}

// TestMain fails the run when goroutines outlive the tests.
func TestMain(m *testing.M) { fetchtest.Main(m) }
