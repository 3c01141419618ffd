package gopher

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// TestParsePlusHeader checks the Gopher+ reply header ("+-1", "+-2", "+N",
// and the "-" error forms).
func TestParsePlusHeader(t *testing.T) {
	tests := []struct {
		in    string
		size  int64
		isErr bool
		ok    bool
	}{
		{"+-1", -1, false, true},
		{"+-2", -2, false, true},
		{"+0", 0, false, true},
		{"+1234", 1234, false, true},
		{"+-1 ", -1, false, true},
		{"--1", -1, true, true},
		{"--2", -2, true, true},
		{"-17", 17, true, true},
		{"+", 0, false, false},
		{"+-3", 0, false, false},
		{"+INFO: 0Foo\t/foo\th\t70\t+", 0, false, false},
		{"+12a", 0, false, false},
		{"++1", 0, false, false},
		{"+1234567890123456789", 0, false, false},
		{"0text", 0, false, false},
		{"", 0, false, false},
	}
	for _, tt := range tests {
		size, isErr, ok := parsePlusHeader(tt.in)
		if size != tt.size || isErr != tt.isErr || ok != tt.ok {
			t.Errorf("parsePlusHeader(%q) = %d, %v, %v, want %d, %v, %v", tt.in, size, isErr, ok, tt.size, tt.isErr, tt.ok)
		}
	}
}

func FuzzParsePlusHeader(f *testing.F) {
	for _, s := range []string{"+-1", "+-2", "+42", "--1", "-0", "+INFO", "+-", "+ 1", "+00000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		size, _, ok := parsePlusHeader(s)
		if !ok {
			return
		}
		if size < -2 {
			t.Errorf("parsePlusHeader(%q) size %d", s, size)
		}
		if s[0] != '+' && s[0] != '-' {
			t.Errorf("parsePlusHeader(%q) accepted a line without + or -", s)
		}
	})
}

// TestPlus checks Gopher+ replies: the three header forms, attribute
// blocks, alternate views, errors, and plain servers.
func TestPlus(t *testing.T) {
	attrs := "+INFO: 0Doc\t/doc\thost\t70\t+\r\n+ADMIN:\r\n Admin: Someone <a@b>\r\n+VIEWS:\r\n text/plain: <1k>\r\n"
	s := newServer(t, map[string]respond{
		"/doc\t\t+":                          send("+-1\r\nline one\r\n..dotted\r\n.\r\n"),
		"/raw\t\t+":                          send("+-2\r\nuntil close\r\n.\r\n"),
		"/doc\t\t+text/plain":                send("+10\r\n0123456789trailing"),
		"/doc\t\t+text/plain En_US":          send("+5\r\nabc"),
		"/doc\t\t!":                          send("+-1\r\n" + attrs + ".\r\n"),
		"/doc\t\t$":                          send("+-2\r\n" + attrs),
		"/menu\t\t+":                         send("+-1\r\n0Doc\t/doc\thost\t70\t+\r\n.\r\n"),
		"/gone\t\t+":                         send("--1\r\n1 Admin <admin@example.org>\r\nNo such item here\r\n.\r\n"),
		"/busy\t\t+":                         send("--2\r\n2 Admin <admin@example.org>\r\nLoad too high\r\n"),
		"/moved\t\t+":                        send("-50\r\n3 Admin <a@b>\r\n0Doc\t/new\tother.host\t70\r\n"),
		"/plain\t\t+":                        send("plain text from a plain server\r\n"),
		"/plain\t\t!":                        send("plain text from a plain server\r\n"),
		"/err3\t\t+":                         send("3Not here\t\terror.host\t1\r\n"),
		"/cut\t\t+":                          send("+-1\r\nno end\r\n"),
		"/long\t\t!":                         send("+" + strings.Repeat("1", 100000) + "\r\n"),
		"/reset\t\t+":                        reset("+-2\r\n" + strings.Repeat("data", 10000)),
		"/nothing\t\t+":                      send(""),
		"/doc\tq\t+application/pdf":          send("+-2\r\n%PDF"),
		"/doc\t\t+application/postscript Es": send("+3\r\n%!P"),
	})
	base := "gopher://" + s.addr + "/"
	tests := []struct {
		path, want string
		kind       fetch.ResourceKind
		media      string
		size       int64
	}{
		{"0/doc%09%09+", "line one\r\n.dotted\r\n", fetch.ResourceFile, "text/plain", -1},
		{"0/raw%09%09+", "until close\r\n.\r\n", fetch.ResourceFile, "text/plain", -1},
		{"0/doc%09%09+text/plain", "0123456789", fetch.ResourceFile, "text/plain", 10},
		{"0/doc%09%09!", attrs, fetch.ResourceFile, "text/plain", -1},
		{"1/doc%09%09$", attrs, fetch.ResourceFile, "text/plain", -1},
		{"1/menu%09%09+", "0Doc\t/doc\thost\t70\t+\r\n", fetch.ResourceMenu, "application/gopher-menu", -1},
		{"0/plain%09%09+", "plain text from a plain server\r\n", fetch.ResourceFile, "text/plain", -1},
		{"9/doc%09q%09+application/pdf", "%PDF", fetch.ResourceFile, "application/pdf", -1},
		{"9/doc%09%09+application/postscript%20Es", "%!P", fetch.ResourceFile, "application/postscript", 3},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res, got, err := get(t, &Handler{}, base+tt.path, nil)
			if err != nil {
				t.Fatalf("fetch %s: %v", tt.path, err)
			}
			if string(got) != tt.want {
				t.Errorf("fetch %s = %q, want %q", tt.path, got, tt.want)
			}
			if res.Kind != tt.kind || res.MediaType != tt.media || res.Size != tt.size {
				t.Errorf("fetch %s: kind %v media %q size %d, want %v %q %d", tt.path, res.Kind, res.MediaType, res.Size, tt.kind, tt.media, tt.size)
			}
		})
	}
	errs := []struct {
		path string
		kind fetch.Kind
		text string
	}{
		{"0/gone%09%09+", fetch.NotFound, "No such item here"},
		{"0/busy%09%09+", fetch.Unavailable, "Load too high"},
		{"0/moved%09%09+", fetch.NotFound, "moved"},
		{"0/plain%09%09!", fetch.Protocol, "does not speak Gopher+"},
		{"0/err3%09%09+", fetch.NotFound, "Not here"},
		{"0/cut%09%09+", fetch.Incomplete, `"."`},
		{"0/doc%09%09+text/plain%20En_US", fetch.Incomplete, "3 of 5"},
		{"0/long%09%09!", fetch.Protocol, "longer than"},
		{"9/reset%09%09+", fetch.Incomplete, ""},
		{"0/nothing%09%09+", fetch.Protocol, "closed"},
	}
	for _, tt := range errs {
		t.Run(tt.path, func(t *testing.T) {
			_, _, err := get(t, &Handler{}, base+tt.path, nil)
			if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("fetch %s: %v (kind %v), want %v containing %q", tt.path, err, fetch.KindOf(err), tt.kind, tt.text)
			}
		})
	}
}

// TestForm checks a Gopher+ item with a +ASK form (§3.4.5, §3.4.9): the
// form is fetched, answered from Answers and the prompt, and sent back.
func TestForm(t *testing.T) {
	ask := "+INFO: 1Form\t/form\thost\t70\t?\r\n+ASK:\r\n Note: Fill this in\r\n Ask: Your name?\tAnon\r\n AskP: Password:\r\n Choose: Colour?\tred\tblue\r\n.\r\n"
	got := make(chan []string, 4)
	s := newServer(t, map[string]respond{
		"/form\t!": send("+-1\r\n" + ask),
		"/form\t+\t1": func(c net.Conn, br *bufio.Reader, _ string) {
			var block []string
			for {
				l, err := br.ReadString('\n')
				if err != nil {
					break
				}
				l = strings.TrimSuffix(l, "\r\n")
				block = append(block, l)
				if l == "." {
					break
				}
			}
			got <- block
			io.WriteString(c, "+-2\r\n0Thanks\t/thanks\thost\t70\r\n")
		},
	})
	raw := "gopher://" + s.addr + "/1/form%09%09?"
	var asked []string
	prompt := func(r *fetch.Request) {
		r.Prompt = func(label string, secret bool) (string, error) {
			asked = append(asked, label)
			if secret {
				return "pw", nil
			}
			return "", nil
		}
	}
	var trace strings.Builder
	h := &Handler{Answers: []string{".Ann"}}
	res, body, err := get(t, h, raw, func(r *fetch.Request) { prompt(r); r.Trace = fetch.NewTrace(&trace) })
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "0Thanks\t/thanks\thost\t70\r\n" || res.Kind != fetch.ResourceMenu {
		t.Errorf("form reply = %q, kind %v", body, res.Kind)
	}
	if want := []string{"+-1", "..Ann", "pw", ""}; !reflect.DeepEqual((<-got)[:4], want) {
		t.Errorf("form block sent wrong; want %q", want)
	}
	if want := []string{"Password:", "Colour? [red|blue]"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if strings.Contains(trace.String(), "> pw") || !strings.Contains(trace.String(), "> ****") {
		t.Errorf("trace shows the password or no mask:\n%s", trace.String())
	}
	if want := []string{"/form\t!", "/form\t+\t1"}; !reflect.DeepEqual(s.received(), want) {
		t.Errorf("request lines %q, want %q", s.received(), want)
	}
	// Without answers or a terminal: Kind Usage, and no form is sent.
	if _, _, err := get(t, &Handler{}, raw, nil); !errors.Is(err, fetch.Usage) {
		t.Errorf("form without answers: %v, want fetch.Usage", err)
	}
	u, _ := url.Parse(raw)
	lines, err := (&Handler{Answers: []string{"a", "b"}}).Plan(&fetch.Request{URL: u})
	if want := []string{"/form\t!", "/form\t+\t1", "+-1", "<answer 1>", "<answer 2>", "."}; err != nil || !reflect.DeepEqual(lines, want) {
		t.Errorf("Plan(form) = %q, %v, want %q", lines, err, want)
	}
}

func TestParseAsk(t *testing.T) {
	in := "+INFO: 1F\t/f\th\t70\t?\n+ASK:\n Ask: Name\tdef\n Bogus: x\n AskP: Pw\n Select: Opt:1\n Note: n\n+VIEWS:\n Ask: not in ask\n"
	want := []Question{
		{Kind: "Ask", Prompt: "Name", Defaults: []string{"def"}},
		{Kind: "AskP", Prompt: "Pw", Defaults: []string{}},
		{Kind: "Select", Prompt: "Opt:1", Defaults: []string{}},
		{Kind: "Note", Prompt: "n", Defaults: []string{}},
	}
	if got := ParseAsk(in); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseAsk = %#v, want %#v", got, want)
	}
}

// TestAttributesHeader checks that an attribute request ("!") fills
// Resource.Header with the blocks, and still delivers every byte.
func TestAttributesHeader(t *testing.T) {
	attrs := "+INFO: 0Doc\t/doc\thost\t70\t+\r\n+ADMIN:\r\n Admin: Someone <a@b>\r\n Mod-Date: <20240301120000>\r\n+VIEWS:\r\n text/plain: <1k>\r\n+ABSTRACT:\r\n"
	s := newServer(t, map[string]respond{"/doc\t\t!": send("+-1\r\n" + attrs + ".\r\n")})
	for _, head := range []bool{false, true} {
		res, body, err := get(t, &Handler{}, "gopher://"+s.addr+"/0/doc%09%09!", func(r *fetch.Request) { r.Head = head })
		if err != nil {
			t.Fatal(err)
		}
		if !head && string(body) != attrs {
			t.Errorf("body %q, want %q", body, attrs)
		}
		want := http.Header{
			"+INFO":     {"0Doc\t/doc\thost\t70\t+"},
			"+ADMIN":    {"Admin: Someone <a@b>", "Mod-Date: <20240301120000>"},
			"+VIEWS":    {"text/plain: <1k>"},
			"+ABSTRACT": nil,
		}
		if !reflect.DeepEqual(res.Header, want) {
			t.Errorf("head %v: Header = %q, want %q", head, res.Header, want)
		}
	}
}
