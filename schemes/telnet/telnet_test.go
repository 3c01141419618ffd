package telnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

func parseB(b *testing.B, s string) *url.URL { return parse(b, s) }

func parse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

func open(t *testing.T, h *Handler, rawURL string, trace io.Writer) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, rawURL), Trace: fetch.NewTrace(trace)})
	if err != nil {
		t.Fatalf("Fetch(%s): %v", rawURL, err)
	}
	if res.Kind != fetch.ResourceSession {
		t.Errorf("Kind = %v, want session", res.Kind)
	}
	s, ok := res.Body.(*Session)
	if !ok {
		t.Fatalf("Body is %T, want *Session", res.Body)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// text is a long body without IAC bytes, for the conformance kit.
func text() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 100<<10; i++ {
		b.WriteString(strings.Repeat("line of the session output ", 2))
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

func TestConformance(t *testing.T) {
	want := text()
	addr, _ := serve(t, func(p *peer) {
		p.send(cIAC, cWILL, oECHO, cIAC, cWILL, oSGA)
		p.c.Write(want)
	})
	stalled, _ := serve(t, func(p *peer) {
		p.sendf("hello, then nothing\r\n")
		drain(p)
	})
	fetchtest.Run(t, &Handler{}, fetchtest.Cases{
		Existing: "telnet://" + addr + "/",
		Want:     want,
		Stalled:  "telnet://" + stalled + "/",
		Secret:   "telnet://fred:pw-s3cr3t@127.0.0.1:1/",
		Password: "pw-s3cr3t",
	})
}

// TestNegotiation checks that the library answers the server's options:
// ECHO and SGA accepted, TERMINAL-TYPE refused, NAWS answered with a size
// (whose bytes TestNAWSOnTheWire checks).
func TestNegotiation(t *testing.T) {
	addr, done := serve(t, func(p *peer) {
		p.send(cIAC, cWILL, oECHO, cIAC, cWILL, oSGA, cIAC, cDO, oTTYPE, cIAC, cDO, oNAWS)
		p.sendf("hello\r\n")
		p.readAll()
	})
	var trace strings.Builder
	s := open(t, &Handler{}, "telnet://"+addr, &trace)
	m, err := s.ExpectString(10*time.Second, "hello\r\n")
	if err != nil {
		t.Fatalf("Expect hello: %v (read %q)", err, m.Text)
	}
	if m.Text != "hello\r\n" {
		t.Errorf("Text = %q, want the output without telnet commands", m.Text)
	}
	s.Close()
	p := <-done
	got := p.commands()
	for _, want := range []string{"DO 1", "DO 3", "WONT 24", "WILL 31", "SB 31"} {
		if !slices.Contains(got, want) {
			t.Errorf("client negotiation %q missing; got %q", want, got)
		}
	}
	if !strings.Contains(trace.String(), "> IAC DO ECHO") {
		t.Errorf("trace lacks the negotiation:\n%s", trace.String())
	}
}

func TestWriteNVT(t *testing.T) {
	addr, done := serve(t, func(p *peer) {
		p.sendf("ready\r\n")
		p.readByte() // let the client finish
	})
	_ = addr
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"ls\n"}, "ls\r\n"},
		{[]string{"a\r\nb\rc\n"}, "a\r\nb\r\nc\r\n"},
		{[]string{"a\r", "\nb\r", "c"}, "a\r\nb\r\nc"},
		{[]string{"\xff\x00x"}, "\xff\x00x"},
	}
	for _, tt := range tests {
		addr, done := serve(t, func(p *peer) {
			p.sendf("ready\r\n")
			got := p.readAll()
			p.record("DATA " + got)
		})
		s := open(t, &Handler{}, "telnet://"+addr, nil)
		for _, w := range tt.in {
			if n, err := s.Write([]byte(w)); err != nil || n != len(w) {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		s.Close()
		p := <-done
		cmds := p.commands()
		if len(cmds) == 0 || cmds[len(cmds)-1] != "DATA "+tt.want {
			t.Errorf("Write(%q): server got %q, want %q", tt.in, cmds, tt.want)
		}
	}
	// The first server's connection was never opened: nothing to wait for.
	select {
	case <-done:
	default:
	}
}

func TestReadStripsCommands(t *testing.T) {
	addr, _ := serve(t, func(p *peer) {
		p.send('a', cIAC, cNOP, 'b', cIAC, cAYT, 'c', cIAC, cIAC, 'd', cIAC, cSB, oTTYPE, 1, cIAC, cSE, 'e')
	})
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	got, err := io.ReadAll(s)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if string(got) != "abc\xffde" {
		t.Errorf("read %q, want %q", got, "abc\xffde")
	}
}

func TestLogin(t *testing.T) {
	addr, done := serve(t, func(p *peer) {
		p.send(cIAC, cWILL, oECHO)
		p.sendf("Debian GNU/Linux\r\nhost login: ")
		user, _ := p.readLine()
		p.sendf("Password: ")
		pass, _ := p.readLine()
		p.record("USER " + user)
		p.record("PASS " + pass)
		p.sendf("\r\nWelcome\r\n$ ")
		drain(p)
	})
	var trace strings.Builder
	s := open(t, &Handler{Login: true}, "telnet://fred:s3cret@"+addr+"/", &trace)
	m, err := s.ExpectString(10*time.Second, "$ ")
	if err != nil {
		t.Fatalf("Expect: %v", err)
	}
	if want := "Debian GNU/Linux\r\nhost login: Password: \r\nWelcome\r\n$ "; m.Text != want {
		t.Errorf("output %q, want %q (the banner and prompts kept)", m.Text, want)
	}
	s.Close()
	p := <-done
	cmds := p.commands()
	if !slices.Contains(cmds, "USER fred\r\n") || !slices.Contains(cmds, "PASS s3cret\r\n") {
		t.Errorf("server got %q, want the user and password lines", cmds)
	}
	if strings.Contains(trace.String(), "s3cret") || !strings.Contains(trace.String(), "> ****") {
		t.Errorf("trace shows the password or lacks ****:\n%s", trace.String())
	}
}

// TestNoLoginUnasked checks §3.8: the URL's login is advice, never typed.
func TestNoLoginUnasked(t *testing.T) {
	addr, done := serve(t, func(p *peer) {
		p.sendf("login: ")
		p.record("DATA " + p.readAll())
	})
	var advice bytes.Buffer
	s := open(t, &Handler{Advise: &advice}, "telnet://fred:s3cret@"+addr, nil)
	if _, err := s.ExpectString(10*time.Second, "login: "); err != nil {
		t.Fatal(err)
	}
	s.Close()
	p := <-done
	if cmds := p.commands(); len(cmds) != 1 || cmds[0] != "DATA " {
		t.Errorf("server got %q, want nothing typed", cmds)
	}
	if got := advice.String(); got != "telnet: log in as fred with password s3cret\n" {
		t.Errorf("advice %q", got)
	}
}

func TestLoginPromptTimeout(t *testing.T) {
	addr, _ := serve(t, func(p *peer) {
		p.sendf("no prompt here\r\n")
		drain(p)
	})
	h := &Handler{Login: true}
	_, err := h.Fetch(context.Background(), &fetch.Request{URL: parse(t, "telnet://fred@"+addr), IdleTimeout: 50 * time.Millisecond})
	if !errors.Is(err, fetch.Timeout) {
		t.Errorf("Fetch without a login prompt: %v, want Kind Timeout", err)
	}
}

func TestExpect(t *testing.T) {
	addr, _ := serve(t, func(p *peer) {
		p.sendf("motd\r\nuser42 PROMPT> rest")
		drain(p)
	})
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	m, err := s.Expect(10*time.Second, regexp.MustCompile(`nomatch`), regexp.MustCompile(`user(\d+) PROMPT> `))
	if err != nil {
		t.Fatal(err)
	}
	if m.Index != 1 || m.Text != "motd\r\nuser42 PROMPT> " || !slices.Equal(m.Groups, []string{"user42 PROMPT> ", "42"}) {
		t.Errorf("Expect = %+v", m)
	}
	buf := make([]byte, 4)
	n, err := io.ReadFull(s, buf)
	if err != nil || string(buf[:n]) != "rest" {
		t.Errorf("Read after Expect = %q, %v; want the rest", buf[:n], err)
	}
	// Nothing more comes: a short timeout fails with Kind Timeout, and the
	// session stays usable.
	if _, err := s.ExpectString(20*time.Millisecond, "never"); !errors.Is(err, fetch.Timeout) {
		t.Errorf("Expect with nothing arriving: %v, want Kind Timeout", err)
	}
	if _, err := s.Write([]byte("x\n")); err != nil {
		t.Errorf("Write after an Expect timeout: %v", err)
	}
}

func TestExpectEOF(t *testing.T) {
	addr, _ := serve(t, func(p *peer) { p.sendf("bye\r\n") })
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	m, err := s.ExpectString(10*time.Second, "$ ")
	if !errors.Is(err, fetch.Incomplete) || !errors.Is(err, io.EOF) {
		t.Errorf("Expect at EOF: %v, want Kind Incomplete wrapping io.EOF", err)
	}
	if m.Text != "bye\r\n" {
		t.Errorf("Text = %q", m.Text)
	}
}

func TestRefused(t *testing.T) {
	for _, raw := range []string{"telnet://a%0Db@127.0.0.1/", "telnet://a:b%0Ac@127.0.0.1/", "telnet://a:b%00@127.0.0.1/"} {
		u, err := url.ParseLenient(raw)
		if err != nil {
			continue // refused by the parser: fine too
		}
		_, err = (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u})
		if !errors.Is(err, fetch.Refused) {
			t.Errorf("Fetch(%s): %v, want Kind Refused", raw, err)
		}
		if _, err := (&Handler{}).Plan(&fetch.Request{URL: u}); !errors.Is(err, fetch.Refused) {
			t.Errorf("Plan(%s): %v, want Kind Refused", raw, err)
		}
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		h    Handler
		url  string
		want []string
	}{
		{Handler{}, "telnet://fred:pw@host/", []string{}},
		{Handler{Login: true}, "telnet://fred:pw@host/", []string{"fred", "****"}},
		{Handler{Login: true}, "telnet://fred@host/", []string{"fred"}},
		{Handler{Login: true}, "telnet://host/", []string{}},
	}
	for _, tt := range tests {
		got, err := tt.h.Plan(&fetch.Request{URL: parse(t, tt.url)})
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Plan(%s, login %v) = %q, %v; want %q", tt.url, tt.h.Login, got, err, tt.want)
		}
	}
	if _, err := (&Handler{LoginPrompt: "("}).Plan(&fetch.Request{URL: parse(t, "telnet://host/")}); !errors.Is(err, fetch.Usage) {
		t.Errorf("Plan with a bad prompt pattern: %v, want Kind Usage", err)
	}
}

func TestHeadConnectsToNothing(t *testing.T) {
	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: parse(t, "telnet://127.0.0.1:1/"), Head: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != fetch.ResourceSession || res.Body != fetch.NoBody {
		t.Errorf("Head: %+v", res)
	}
}

func TestPipe(t *testing.T) {
	// The server answers each line in upper case and closes on QUIT.
	addr, _ := serve(t, func(p *peer) {
		p.send(cIAC, cWILL, oECHO)
		for {
			line, err := p.readLine()
			if err != nil {
				return
			}
			if strings.TrimSpace(line) == "QUIT" {
				p.sendf("BYE\r\n")
				return
			}
			p.sendf("%s", strings.ToUpper(line))
		}
	})
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	var out bytes.Buffer
	err := Pipe(context.Background(), s, strings.NewReader("hello\nworld\nQUIT\n"), &out, time.Minute)
	if err != nil {
		t.Fatalf("Pipe: %v", err)
	}
	if got := out.String(); got != "HELLO\r\nWORLD\r\nBYE\r\n" {
		t.Errorf("Pipe output %q", got)
	}
}

func TestPipeLinger(t *testing.T) {
	// The server never closes: Pipe ends once input is done and the
	// server has been quiet for the linger.
	addr, _ := serve(t, func(p *peer) {
		line, _ := p.readLine()
		p.sendf("got %s", line)
		drain(p)
	})
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	var out bytes.Buffer
	if err := Pipe(context.Background(), s, strings.NewReader("x\n"), &out, 50*time.Millisecond); err != nil {
		t.Fatalf("Pipe: %v", err)
	}
}

func TestPipeContext(t *testing.T) {
	addr, _ := serve(t, drain)
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pr, pw := io.Pipe()
	defer pw.Close()
	if err := Pipe(ctx, s, pr, io.Discard, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("Pipe after cancel: %v, want context.Canceled", err)
	}
}

func TestOpen(t *testing.T) {
	addr, _ := serve(t, func(p *peer) { p.sendf("hi\r\n") })
	s, err := (&Handler{}).Open(context.Background(), &fetch.Request{URL: parse(t, "telnet://"+addr), Head: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, _ := io.ReadAll(s)
	if string(got) != "hi\r\n" {
		t.Errorf("read %q", got)
	}
}

// TestLoginRefused checks that a refused login is an error of Kind Auth,
// whether the server says so or prompts for the login again, and that an
// accepted one is not.
func TestLoginRefused(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		want         fetch.Kind
	}{
		{"login incorrect", "\r\nLogin incorrect\r\n", fetch.Auth},
		{"busybox", "\r\n\r\nLogin incorrect\r\nhost login: ", fetch.Auth},
		{"prompt again", "\r\nlogin: ", fetch.Auth},
		{"welcome", "\r\nWelcome, fred\r\ndemo$ ", 0},
		{"motd", "\r\nLinux host 6.1.0\r\n\r\nThe programs included\r\n", 0},
		{"shell prompt only", "\r\n$ ", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, _ := serve(t, func(p *peer) {
				p.sendf("login: ")
				p.readLine()
				p.sendf("Password: ")
				p.readLine()
				p.sendf("%s", tc.answer)
				drain(p)
			})
			h := &Handler{Login: true}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, "telnet://fred:wrong@"+addr), IdleTimeout: 10 * time.Second})
			if tc.want == 0 {
				if err != nil {
					t.Fatalf("Fetch: %v, want a session", err)
				}
				res.Body.Close()
				return
			}
			if err == nil {
				res.Body.Close()
			}
			if fetch.KindOf(err) != tc.want {
				t.Errorf("Fetch: %v, want Kind %v", err, tc.want)
			}
		})
	}
}

// TestPipeTimeoutNamesURL checks that a session cut by its deadline fails
// with the Client's error, which names the URL. On pipes in a synctest
// bubble, the deadline comes on the bubble's clock, exactly.
func TestPipeTimeoutNamesURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		pn := new(fetchtest.Pipes)
		addr, _ := servePipes(t, pn, drain)
		c := &fetch.Client{DialContext: pn.DialContext}
		c.Register("telnet", &Handler{})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		u := "telnet://" + addr
		res, err := c.Fetch(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		pr, pw := io.Pipe()
		defer pw.Close()
		err = Pipe(ctx, res.Body.(io.ReadWriter), pr, io.Discard, time.Minute)
		if !errors.Is(err, fetch.Timeout) || !strings.Contains(err.Error(), u) {
			t.Errorf("Pipe past the deadline: %v, want Kind Timeout naming %s", err, u)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("Pipe ended %v into the test, want at the deadline, 2s", d)
		}
	})
}

// TestCloseAbortsRead checks that Close called while a Read waits on a
// silent server ends that Read promptly.
func TestCloseAbortsRead(t *testing.T) {
	addr, _ := serve(t, drain)
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	fetchtest.CloseAbortsRead(t, s)
}
