package ftp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/textproto"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestDataDialRefusedThenReply: proftpd answers RETR of a missing file
// with 550 and closes its passive port, so the data dial is refused. The
// control connection's reply decides: not found, not "cannot connect", and
// the connection stays in step for the next URL.
func TestDataDialRefusedThenReply(t *testing.T) {
	closed := closedPort(t)
	var logins atomic.Int32
	addr := scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
		switch verb {
		case "PASS":
			logins.Add(1)
			tp.PrintfLine("230 in")
		case "SIZE":
			tp.PrintfLine("550 %s: No such file or directory", arg)
		case "EPSV":
			tp.PrintfLine("229 Entering Extended Passive Mode (|||%d|)", closed)
		case "RETR":
			tp.PrintfLine("550 %s: No such file or directory", arg)
		default:
			return false
		}
		return true
	})
	h := &Handler{}
	defer h.Close()
	for _, name := range []string{"missing.bin", "gone.bin"} {
		_, _, err := get(t, h, req(t, "ftp://"+addr+"/"+name))
		if fetch.KindOf(err) != fetch.NotFound {
			t.Fatalf("fetch %s: %v (kind %d), want NotFound", name, err, fetch.KindOf(err))
		}
		if !strings.Contains(err.Error(), "550") {
			t.Errorf("the error does not give the server's reply: %v", err)
		}
	}
	if n := logins.Load(); n != 1 {
		t.Errorf("%d logins: the connection was not kept in step after the 550", n)
	}
}

// TestTypeA: TYPE A delivers local line ends (CR LF → LF, a lone CR
// kept), asks no SIZE (the Size is unknown), and Raw keeps the wire's
// bytes.
func TestTypeA(t *testing.T) {
	s := newFakeServer(t)
	wire := "line one\r\nodd\rcr\r\n\r\nlast\r\n"
	s.files["/pub/t.txt"] = []byte(wire)
	s.files["/pub/b.bin"] = []byte("a\r\nb")
	s.asciiNoSize = true
	s.start()
	for _, raw := range []bool{false, true} {
		h := &Handler{Raw: raw}
		res, body, err := get(t, h, req(t, "ftp://"+s.addr()+"/pub/t.txt"))
		if err != nil {
			t.Fatalf("raw %v: %v", raw, err)
		}
		want := "line one\nodd\rcr\n\nlast\n"
		if raw {
			want = wire
		}
		if string(body) != want || res.Size != -1 {
			t.Errorf("raw %v: body %q, size %d, want %q, -1", raw, body, res.Size, want)
		}
		// TYPE I moves the bytes as they are.
		_, body, err = get(t, h, req(t, "ftp://"+s.addr()+"/pub/b.bin"))
		if err != nil || string(body) != "a\r\nb" {
			t.Errorf("raw %v, TYPE I: %q, %v", raw, body, err)
		}
		h.Close()
	}
	for _, cmds := range s.commands() {
		if slices.Contains(cmds, "SIZE t.txt") {
			t.Errorf("SIZE asked in TYPE A: %q", cmds)
		}
	}
}

// TestHeadAsksSizeInTypeI: -I of a text file asks SIZE in TYPE I, the
// file's size, which proftpd refuses in TYPE A.
func TestHeadAsksSizeInTypeI(t *testing.T) {
	s := newFakeServer(t)
	s.files["/t.txt"] = []byte("a\r\nb\r\n")
	s.asciiNoSize = true
	s.start()
	h := &Handler{}
	r := req(t, "ftp://"+s.addr()+"/t.txt")
	r.Head = true
	res, _, err := get(t, h, r)
	if err != nil || res.Size != 6 || res.Extra[ExtraType] != "A" {
		t.Fatalf("head: %v, %+v", err, res)
	}
	plan, _ := h.Plan(r)
	h.Close()
	want := withQuit(anonLogin, []string{"TYPE I", "SIZE t.txt", "MDTM t.txt"})
	if got := s.commands(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Errorf("commands = %q\nwant %q", got, want)
	}
	if !slices.Equal(plan, []string{"USER anonymous", "PASS ****", "PWD", "TYPE I", "SIZE t.txt", "MDTM t.txt"}) {
		t.Errorf("Plan = %q", plan)
	}
}

// TestResumeTypeARefused: a TYPE A transfer's offsets count converted
// bytes, not the file's, so it cannot be resumed: refused before any
// connection, with the way to resume.
func TestResumeTypeARefused(t *testing.T) {
	h := &Handler{}
	for _, u := range []string{"ftp://127.0.0.1:1/t.txt", "ftp://127.0.0.1:1/x.bin;type=a"} {
		r := req(t, u)
		r.Offset = 3
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := h.Fetch(ctx, r)
		cancel()
		if fetch.KindOf(err) != fetch.Unsupported || !strings.Contains(err.Error(), ";type=i") {
			t.Errorf("resume %s: %v, want Unsupported naming ;type=i", u, err)
		}
		if _, err := h.Plan(r); fetch.KindOf(err) != fetch.Unsupported {
			t.Errorf("Plan of resume %s: %v, want Unsupported", u, err)
		}
	}
}

// TestASCIIConversion: CR LF becomes LF wherever the reads split it.
func TestASCIIConversion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\r\nb", "a\nb"},
		{"lone\rcr", "lone\rcr"},
		{"end\r", "end\r"},
		{"\r\r\n", "\r\n"},
		{"\r\n\r\n", "\n\n"},
		{"", ""},
		{"no line end", "no line end"},
	}
	for _, tt := range tests {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if one {
				r = iotest.OneByteReader(r)
			}
			got, err := io.ReadAll(newASCII(io.NopCloser(r)))
			if err != nil || string(got) != tt.want {
				t.Errorf("ascii(%q, one byte %v) = %q, %v, want %q", tt.in, one, got, err, tt.want)
			}
		}
	}
	// A CR at the end of a large read, its LF at the start of the next.
	in := strings.Repeat("x", 32<<10-1) + "\r\n" + "y\r\n"
	got, err := io.ReadAll(newASCII(io.NopCloser(strings.NewReader(in))))
	if want := strings.Repeat("x", 32<<10-1) + "\ny\n"; err != nil || string(got) != want {
		t.Errorf("CR LF across reads: %d bytes, %v", len(got), err)
	}
	// A failure after a held CR is the failure.
	r := io.MultiReader(strings.NewReader("a\r"), iotest.ErrReader(io.ErrUnexpectedEOF))
	got, err = io.ReadAll(newASCII(io.NopCloser(r)))
	if !errors.Is(err, io.ErrUnexpectedEOF) || !bytes.Equal(got, []byte("a")) {
		t.Errorf("failure after CR: %q, %v", got, err)
	}
}

// TestEmptyCWDRefused: the empty CWD of "ftp://h//path" is sent (RFC 1738
// §3.2.2); when refused (vsftpd 550, proftpd 501) the error says so and
// points to the %2F form of an absolute path.
func TestEmptyCWDRefused(t *testing.T) {
	for _, code := range []int{550, 501} {
		s := newFakeServer(t)
		s.files["/pub/f.bin"] = []byte("f")
		s.emptyCWDCode = code
		s.start()
		h := &Handler{}
		_, _, err := get(t, h, req(t, "ftp://"+s.addr()+"//pub/f.bin"))
		h.Close()
		if fetch.KindOf(err) != fetch.NotFound {
			t.Errorf("%d: %v (kind %d), want NotFound", code, err, fetch.KindOf(err))
			continue
		}
		msg := err.Error()
		for _, want := range []string{"empty", "%2F", "RFC 1738"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%d: the error lacks %q: %s", code, want, msg)
			}
		}
		if strings.Contains(msg, "--") {
			t.Errorf("%d: a library error names a CLI flag: %s", code, msg)
		}
		if got := s.commands(); len(got) != 1 || !slices.Contains(got[0], "CWD ") {
			t.Errorf("%d: no empty CWD sent: %q", code, got)
		}
	}
}
