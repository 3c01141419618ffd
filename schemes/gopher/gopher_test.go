package gopher

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

// fetchItem fetches raw with h under the tests' bounds: a 10 s idle
// timeout and 20 s in all, from now until the test ends. mod, when set,
// adjusts the request first.
func fetchItem(t *testing.T, h *Handler, raw string, mod func(*fetch.Request)) (*fetch.Resource, error) {
	t.Helper()
	u, err := url.ParseLenient(raw)
	if err != nil {
		t.Fatalf("ParseLenient(%q): %v", raw, err)
	}
	req := &fetch.Request{URL: u, IdleTimeout: 10 * time.Second}
	if mod != nil {
		mod(req)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return h.Fetch(ctx, req)
}

// get fetches raw with h, reads the whole body and closes it.
func get(t *testing.T, h *Handler, raw string, mod func(*fetch.Request)) (*fetch.Resource, []byte, error) {
	t.Helper()
	res, err := fetchItem(t, h, raw, mod)
	if err != nil {
		if res != nil {
			t.Errorf("Fetch(%s) returned a Resource with error %v", raw, err)
		}
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// getVia fetches raw through c (pipeClient's, say) with the idle
// timeout idle, and reads the whole body.
func getVia(t *testing.T, c *fetch.Client, raw string, idle time.Duration) (*fetch.Resource, []byte, error) {
	t.Helper()
	u, err := url.ParseLenient(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, &fetch.Request{URL: u, IdleTimeout: idle})
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func binary(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// TestDelivery checks what a fetch delivers for each kind of reply
// (CONTRACT §2, RFC 1436 §3.8 and §3.9).
func TestDelivery(t *testing.T) {
	bin := string(binary(100000)) + "\r\n.\r\n"
	long := strings.Repeat("x", 200000) + "\r\n"
	s := newServer(t, map[string]respond{
		"/menu":          send("0About\t/about\texample.org\t70\r\n1Sub\t/sub\texample.org\t70\r\n.\r\n"),
		"/stuffed":       send("one\r\n..two\r\n...three\r\n.\r\nfour\r\n.\r\n"),
		"/unterminated":  send("one\r\n.dot\r\n..two\r\nlast\r\n"),
		"/lf":            send("one\n..two\n.\n"),
		"/plain":         send("no dots here\r\nat all\r\n"),
		"/plainterm":     send("no dots here\r\n.\r\n"),
		"/empty":         send(""),
		"/onlydot":       send(".\r\n"),
		"/dotnoeol":      send("a\r\n."),
		"/binary":        send(bin),
		"/longline":      send(long),
		"/leadingdot":    send(".start\r\n.\r\n"),
		"/dotted-binary": send(".\r\n"),
		"/html":          send("<p>\r\n.\r\n"),
	})
	tests := []struct {
		path, want string
		kind       fetch.ResourceKind
		media      string
	}{
		{"1/menu", "0About\t/about\texample.org\t70\r\n1Sub\t/sub\texample.org\t70\r\n", fetch.ResourceMenu, "application/gopher-menu"},
		{"0/stuffed", "one\r\n.two\r\n..three\r\n\r\nfour\r\n", fetch.ResourceFile, "text/plain"},
		{"0/unterminated", "one\r\n.dot\r\n..two\r\nlast\r\n", fetch.ResourceFile, "text/plain"},
		{"0/lf", "one\n.two\n", fetch.ResourceFile, "text/plain"},
		{"0/plain", "no dots here\r\nat all\r\n", fetch.ResourceFile, "text/plain"},
		{"0/plainterm", "no dots here\r\n", fetch.ResourceFile, "text/plain"},
		{"0/empty", "", fetch.ResourceFile, "text/plain"},
		{"0/onlydot", "", fetch.ResourceFile, "text/plain"},
		{"0/dotnoeol", "a\r\n.", fetch.ResourceFile, "text/plain"},
		{"9/binary", bin, fetch.ResourceFile, "application/octet-stream"},
		{"0/longline", long, fetch.ResourceFile, "text/plain"},
		{"0/leadingdot", "start\r\n", fetch.ResourceFile, "text/plain"},
		{"9/dotted-binary", ".\r\n", fetch.ResourceFile, "application/octet-stream"},
		{"h/html", "<p>\r\n.\r\n", fetch.ResourceFile, "text/html"},
		{"I/binary", bin, fetch.ResourceFile, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res, got, err := get(t, &Handler{}, "gopher://"+s.addr+"/"+tt.path, nil)
			if err != nil {
				t.Fatalf("fetch %s: %v", tt.path, err)
			}
			if string(got) != tt.want {
				t.Errorf("fetch %s = %q, want %q", tt.path, truncate(string(got), 200), truncate(tt.want, 200))
			}
			if res.Kind != tt.kind || res.MediaType != tt.media {
				t.Errorf("fetch %s: kind %v media %q, want %v %q", tt.path, res.Kind, res.MediaType, tt.kind, tt.media)
			}
		})
	}
}

// TestSpill checks that held-back text spills to disk, is delivered right,
// and is bounded.
func TestSpill(t *testing.T) {
	var stuffed, want strings.Builder
	stuffed.WriteString("head\r\n")
	want.WriteString("head\r\n")
	for i := range 5000 {
		line := strings.Repeat(string(rune('a'+i%26)), i%50)
		if i%3 == 0 {
			stuffed.WriteString("..")
			want.WriteString(".")
		}
		stuffed.WriteString(line + "\r\n")
		want.WriteString(line + "\r\n")
	}
	stuffed.WriteString(".\r\n")
	s := newServer(t, map[string]respond{"/big": send(stuffed.String())})
	dir := t.TempDir()
	h := &Handler{HoldMemory: 1024, TempDir: dir}
	_, got, err := get(t, h, "gopher://"+s.addr+"/0/big", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("spilled text: got %d bytes, want %d", len(got), want.Len())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill files left behind: %v", ents)
	}
	_, _, err = get(t, &Handler{HoldMemory: 1024, MaxHold: 4096, TempDir: dir}, "gopher://"+s.addr+"/0/big", nil)
	if !errors.Is(err, fetch.Protocol) {
		t.Errorf("text past MaxHold: %v, want fetch.Protocol", err)
	}
}

// TestRequestLines checks the exact line sent for each URL shape (RFC 1738
// §3.4, CONTRACT §2) and the matching Plan.
func TestRequestLines(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct{ path, line string }{
		{"", ""},
		{"1", ""},
		{"1/", "/"},
		{"0/a%20b", "/a b"},
		{"00about", "0about"},
		{"7/find%09two%20words", "/find\ttwo words"},
		{"1/dir%09", "/dir\t"},
		{"1/x%09%09+", "/x\t\t+"},
		{"1/x%09q%09!+ABSTRACT%20+SMELL", "/x\tq\t!+ABSTRACT +SMELL"},
		{"0/x%09%09+application/postscript%20Es_ES", "/x\t\t+application/postscript Es_ES"},
		{"1/%3Fq;a=b", "/?q;a=b"},
	}
	h := &Handler{}
	for _, tt := range tests {
		raw := "gopher://" + s.addr + "/" + tt.path
		u, err := url.ParseLenient(raw)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := h.Plan(&fetch.Request{URL: u})
		if err != nil || len(lines) != 1 || lines[0] != tt.line {
			t.Errorf("Plan(%s) = %q, %v, want [%q]", raw, lines, err, tt.line)
		}
		get(t, h, raw, nil)
		got := s.received()
		if len(got) == 0 || got[len(got)-1] != tt.line {
			t.Errorf("fetch %s sent %q, want %q", raw, got, tt.line)
		}
	}
}

// TestRefused checks that no decoded CR, LF, NUL or stray TAB reaches the
// request line (RFC 1738 §6) and that nothing is dialed.
func TestRefused(t *testing.T) {
	s := newServer(t, nil)
	for _, p := range []string{"0/a%0Db", "0/a%0Ab", "0/a%00", "7/s%09a%0D%0Ab", "1/x%09%09+%0D%0A", "1/x%09%09+%091%0D%0A+-1%0D%0Aa%0D%0A.%0D%0A", "%0D/x"} {
		_, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/"+p, nil)
		if !errors.Is(err, fetch.Refused) {
			t.Errorf("fetch %s: %v, want fetch.Refused", p, err)
		}
		u, _ := url.ParseLenient("gopher://" + s.addr + "/" + p)
		if _, err := (&Handler{}).Plan(&fetch.Request{URL: u}); !errors.Is(err, fetch.Refused) {
			t.Errorf("Plan %s: %v, want fetch.Refused", p, err)
		}
	}
	if got := s.received(); len(got) != 0 {
		t.Errorf("the server received %q", got)
	}
}

// TestErrors checks the error classes (CONTRACT §5).
func TestErrors(t *testing.T) {
	s := newServer(t, map[string]respond{
		"/gone":      send("3Item not found: /gone\t\terror.host\t1\r\n.\r\n"),
		"/gone-bare": send("3No such thing\r\n"),
		"/three":     send("3 is a number\r\n"),
		"/reset":     reset(strings.Repeat("partial line\r\n", 1000)),
		"/resetbin":  reset(string(binary(5000))),
		"/resetdot":  reset("a\r\n..b\r\n"),
		"/silent":    hang,
		"/huge3":     send("3" + strings.Repeat("y", 100000) + "\r\n"),
		"/gone-two":  send("3Not found\t\terror.host\t1\r\n3Try elsewhere\terr\terror.host\t1\r\n.\r\n"),
		"/gone-open": send("3Not found\t\terror.host\t1"),
	})
	addr := "gopher://" + s.addr + "/"
	short := func(r *fetch.Request) { r.IdleTimeout = 50 * time.Millisecond }
	tests := []struct {
		path string
		mod  func(*fetch.Request)
		kind fetch.Kind
		text string
	}{
		{"0/gone", nil, fetch.NotFound, "Item not found: /gone"},
		{"1/gone", nil, fetch.NotFound, "Item not found"},
		{"9/gone", nil, fetch.NotFound, "Item not found"},
		{"0/gone-two", nil, fetch.NotFound, "Not found"},
		{"9/gone-open", nil, fetch.NotFound, "Not found"},
		{"0/nowhere", nil, fetch.NotFound, "does not exist"},
		{"0/reset", nil, fetch.Incomplete, ""},
		{"9/resetbin", nil, fetch.Incomplete, ""},
		{"0/resetdot", nil, fetch.Incomplete, ""},
		{"1/silent", short, fetch.Timeout, ""},
		{"9/silent", short, fetch.Timeout, ""},
		{"8/telnet", nil, fetch.Unsupported, "telnet"},
		{"T/tn3270", nil, fetch.Unsupported, "telnet"},
		{"i/info", nil, fetch.Unsupported, "information"},
		{"3/err", nil, fetch.Unsupported, "error item"},
		{"2/cso", nil, fetch.Unsupported, "CSO"},
		{"7/search", nil, fetch.Usage, "search words"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, _, err := get(t, &Handler{}, addr+tt.path, tt.mod)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("fetch %s: %v (kind %v), want %v", tt.path, err, fetch.KindOf(err), tt.kind)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("fetch %s: %q does not contain %q", tt.path, err, tt.text)
			}
		})
	}
	// A first line that begins with "3" but is no whole menu line is data.
	if _, got, err := get(t, &Handler{}, addr+"0/three", nil); err != nil || string(got) != "3 is a number\r\n" {
		t.Errorf("fetch 0/three = %q, %v", got, err)
	}
	if _, got, err := get(t, &Handler{}, addr+"0/gone-bare", nil); err != nil || string(got) != "3No such thing\r\n" {
		t.Errorf("fetch 0/gone-bare = %q, %v", got, err)
	}
	// Files that begin like an error item are data unless the whole reply
	// is the server's error form.
	for name, data := range map[string]string{
		"tsv":        "3\t1994\tRFC\t1738\n",
		"tsv-lines":  "3\t1994\tRFC\t1738\n4\t1994\tRFC\t1808\n",
		"binary":     "3\tx\ty\t1\r\n" + string(binary(3000)),
		"then-data":  "3Oops\t\th\t1\r\nmore data\r\n",
		"after-dot":  "3Oops\t\th\t1\r\n.\r\nmore data\r\n",
		"bad-port":   "3Oops\t\th\tport\r\n",
		"empty-3rd":  "3Oops\t\th\t1\r\n3\t\th\t1\r\n",
		"long-reply": strings.Repeat("3Oops\t\th\t1\r\n", 20000),
	} {
		s.routes["/"+name] = send(data)
		for _, typ := range []string{"0", "9"} {
			_, got, err := get(t, &Handler{}, addr+typ+"/"+name, nil)
			if err != nil || string(got) != data {
				t.Errorf("fetch %s/%s = %d bytes, %v; want the %d bytes of the file", typ, name, len(got), err, len(data))
			}
		}
	}
	// An endless first line is bounded: looked at up to MaxLine, then data.
	if _, got, err := get(t, &Handler{MaxLine: 1000}, addr+"0/huge3", nil); err != nil || len(got) != 100003 {
		t.Errorf("fetch 0/huge3 = %d bytes, %v", len(got), err)
	}
	// Nothing can connect: Kind Connect.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	if _, _, err := get(t, &Handler{}, "gopher://"+dead+"/", nil); !errors.Is(err, fetch.Connect) {
		t.Errorf("fetch from a closed port: %v, want fetch.Connect", err)
	}
}

// TestMenuBound checks that a menu past MaxMenu fails with Kind Protocol.
func TestMenuBound(t *testing.T) {
	s := newServer(t, map[string]respond{"/m": send(strings.Repeat("iinfo\t\th\t1\r\n", 1000))})
	_, _, err := get(t, &Handler{MaxMenu: 5000}, "gopher://"+s.addr+"/1/m", nil)
	if !errors.Is(err, fetch.Protocol) {
		t.Errorf("menu past MaxMenu: %v, want fetch.Protocol", err)
	}
}

// TestSearch checks type-7 searches: the words from the URL, else asked.
func TestSearch(t *testing.T) {
	s := newServer(t, map[string]respond{
		"/find": func(c net.Conn, _ *bufio.Reader, line string) {
			_, q, _ := strings.Cut(line, "\t")
			io.WriteString(c, "0Hit for "+q+"\t/hit\thost\t70\r\n.\r\n")
		},
	})
	res, got, err := get(t, &Handler{}, "gopher://"+s.addr+"/7/find%09gopher%20urls", nil)
	if err != nil || string(got) != "0Hit for gopher urls\t/hit\thost\t70\r\n" || res.Kind != fetch.ResourceMenu {
		t.Errorf("search = %q, %v", got, err)
	}
	var label string
	ask := func(r *fetch.Request) {
		r.Prompt = func(l string, secret bool) (string, error) { label = l; return "asked words", nil }
	}
	_, got, err = get(t, &Handler{}, "gopher://"+s.addr+"/7/find", ask)
	if err != nil || string(got) != "0Hit for asked words\t/hit\thost\t70\r\n" {
		t.Errorf("prompted search = %q, %v", got, err)
	}
	if !strings.Contains(label, "/find") {
		t.Errorf("prompt label %q does not name the selector", label)
	}
	bad := func(r *fetch.Request) { r.Prompt = func(string, bool) (string, error) { return "a\r\nb", nil } }
	if _, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/7/find", bad); !errors.Is(err, fetch.Refused) {
		t.Errorf("answer with CRLF: %v, want fetch.Refused", err)
	}
	u, _ := url.Parse("gopher://" + s.addr + "/7/find")
	if lines, _ := (&Handler{}).Plan(&fetch.Request{URL: u}); !reflect.DeepEqual(lines, []string{"/find\t<search>"}) {
		t.Errorf("Plan of a search without words = %q", lines)
	}
}

// TestHead checks -I: metadata, the error check, no body.
func TestHead(t *testing.T) {
	s := newServer(t, map[string]respond{"/m": send("iHi\t\th\t1\r\n.\r\n"), "/gone": send("3Gone\t\th\t1\r\n")})
	head := func(r *fetch.Request) { r.Head = true }
	res, got, err := get(t, &Handler{}, "gopher://"+s.addr+"/1/m", head)
	if err != nil || len(got) != 0 || res.Kind != fetch.ResourceMenu || res.Size != -1 {
		t.Errorf("head 1/m: %v, %q, %+v", err, got, res)
	}
	if _, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/0/gone", head); !errors.Is(err, fetch.NotFound) {
		t.Errorf("head 0/gone: %v, want fetch.NotFound", err)
	}
}

// TestTrace checks the trace shows the line sent, TABs visible.
func TestTrace(t *testing.T) {
	s := newServer(t, map[string]respond{"/x": send("hi\r\n")})
	var b bytes.Buffer
	_, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/0/x%09q", func(r *fetch.Request) { r.Trace = fetch.NewTrace(&b) })
	if err != nil || !strings.Contains(b.String(), "> /x<TAB>q\n") {
		t.Errorf("trace:\n%s\nerr %v", b.String(), err)
	}
}

// TestConformance runs the fetchtest kit.
func TestConformance(t *testing.T) {
	data := binary(256 << 10)
	stop := make(chan struct{})
	s := newServer(t, map[string]respond{"/file.bin": send(string(data)), "/stalled": drip("the start", "", stop)})
	t.Cleanup(func() { close(stop) }) // before the server's cleanup waits
	fetchtest.Run(t, &Handler{}, fetchtest.Cases{
		Existing: "gopher://" + s.addr + "/9/file.bin",
		Want:     data,
		Missing:  "gopher://" + s.addr + "/9/missing",
		Stalled:  "gopher://" + s.addr + "/9/stalled",
	})
	var text bytes.Buffer
	for i := 0; text.Len() < 200<<10; i++ {
		text.WriteString(strings.Repeat("word ", i%20) + "\r\n")
	}
	stuffed := strings.ReplaceAll("\r\n"+text.String(), "\r\nword", "\r\n..word")[2:]
	s2 := newServer(t, map[string]respond{
		"/t":       send(text.String() + ".\r\n"),
		"/stuffed": send("head\r\n" + stuffed + ".\r\n"),
	})
	fetchtest.Run(t, &Handler{}, fetchtest.Cases{
		Existing: "gopher://" + s2.addr + "/0/t",
		Want:     text.Bytes(),
		Missing:  "gopher://" + s2.addr + "/0/missing",
	})
	// Dot-stuffed text, held back (and spilled to disk) until its end.
	want := strings.ReplaceAll("\r\n"+stuffed, "\r\n..", "\r\n.")[2:]
	fetchtest.Run(t, &Handler{HoldMemory: 4096, TempDir: t.TempDir()}, fetchtest.Cases{
		Existing: "gopher://" + s2.addr + "/0/stuffed",
		Want:     []byte("head\r\n" + want),
	})
}

// TestGophers checks gopher over TLS on the same code.
func TestGophers(t *testing.T) {
	serverTLS, clientTLS := fetchtest.TLS(t)
	s := newTLSServer(t, map[string]respond{
		"": func(c net.Conn, _ *bufio.Reader, _ string) {
			_, port, _ := net.SplitHostPort(c.LocalAddr().String())
			io.WriteString(c, "1Sub\t/sub\t127.0.0.1\t"+port+"\r\n.\r\n")
		},
		"/ab": send("secret text\r\n"),
	}, serverTLS)
	_, port, _ := net.SplitHostPort(s.addr)
	trust := func(r *fetch.Request) { r.TLS = clientTLS }
	_, got, err := get(t, &Handler{}, "gophers://"+s.addr+"/0/ab", trust)
	if err != nil || string(got) != "secret text\r\n" {
		t.Fatalf("gophers text = %q, %v", got, err)
	}
	res, got, err := get(t, &Handler{}, "gophers://"+s.addr+"/", trust)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteMenu(&out, bytes.NewReader(got), res.URL); err != nil {
		t.Fatal(err)
	}
	if want := "[DIR] Sub <gophers://127.0.0.1:" + port + "/1/sub>\n"; out.String() != want {
		t.Errorf("gophers menu = %q, want %q", out.String(), want)
	}
	if _, _, err := get(t, &Handler{}, "gophers://"+s.addr+"/0/ab", nil); !errors.Is(err, fetch.Connect) {
		t.Errorf("untrusted certificate: %v, want fetch.Connect", err)
	}
}

// TestGophersResumes checks that a Handler's second gophers connection to
// a server resumes the TLS session of the first.
func TestGophersResumes(t *testing.T) {
	serverTLS, clientTLS := fetchtest.TLS(t)
	s := newTLSServer(t, map[string]respond{
		"/how": func(c net.Conn, _ *bufio.Reader, _ string) {
			if c.(*tls.Conn).ConnectionState().DidResume {
				io.WriteString(c, "resumed\r\n")
			} else {
				io.WriteString(c, "full\r\n")
			}
		},
	}, serverTLS)
	h := &Handler{}
	trust := func(r *fetch.Request) { r.TLS = clientTLS }
	for i, want := range []string{"full\r\n", "resumed\r\n", "resumed\r\n"} {
		_, got, err := get(t, h, "gophers://"+s.addr+"/0/how", trust)
		if err != nil || string(got) != want {
			t.Errorf("connection %d: %q, %v; want %q", i+1, got, err, want)
		}
	}
}
