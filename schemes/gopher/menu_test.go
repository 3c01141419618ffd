package gopher

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rfc1738/fetch/url"
)

// TestParseItem checks menu lines (RFC 1436 §3.8, Gopher+ fifth field).
func TestParseItem(t *testing.T) {
	tests := []struct {
		in   string
		want Item
		ok   bool
	}{
		{"0About this\t/about.txt\texample.org\t70\r\n", Item{Type: '0', Display: "About this", Selector: "/about.txt", Host: "example.org", Port: 70}, true},
		{"1Sub\t/sub\th\t7070", Item{Type: '1', Display: "Sub", Selector: "/sub", Host: "h", Port: 7070}, true},
		{"1G+\t/g\th\t70\t+", Item{Type: '1', Display: "G+", Selector: "/g", Host: "h", Port: 70, Plus: true}, true},
		{"1Form\t/f\th\t70\t?", Item{Type: '1', Display: "Form", Selector: "/f", Host: "h", Port: 70, Plus: true, Ask: true}, true},
		{"7Search\t/s\th\t70\textra\tfields", Item{Type: '7', Display: "Search", Selector: "/s", Host: "h", Port: 70}, true},
		{"iJust text\t\tnull.host\t1", Item{Type: 'i', Display: "Just text", Host: "null.host", Port: 1}, true},
		{"iBare info", Item{Type: 'i', Display: "Bare info"}, true},
		{"3Error\t\terror.host\t1", Item{Type: '3', Display: "Error", Host: "error.host", Port: 1}, true},
		{"1Padded\t/p\th\t 70 ", Item{Type: '1', Display: "Padded", Selector: "/p", Host: "h", Port: 70}, true},
		{"1Empty sel\t\th\t70", Item{Type: '1', Display: "Empty sel", Host: "h", Port: 70}, true},
		{"", Item{}, false},
		{".", Item{}, false},
		{".\r\n", Item{}, false},
		{"0No tabs at all", Item{}, false},
		{"0Two\tfields", Item{}, false},
		{"0Three\tfields\th", Item{}, false},
		{"0Bad port\t/x\th\tseventy", Item{}, false},
		{"0Big port\t/x\th\t70000", Item{}, false},
		{"0Neg port\t/x\th\t-1", Item{}, false},
		{" Space type\t/x\th\t70", Item{}, false},
		{"\x01Ctl\t/x\th\t70", Item{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseItem(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseItem(%q) = %+v, %v, want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestItemURL checks each item's URL (RFC 1738 §3.4.1: type, then the
// selector encoded).
func TestItemURL(t *testing.T) {
	tests := []struct {
		it   Item
		want string
	}{
		{Item{Type: '0', Selector: "/about.txt", Host: "example.org", Port: 70}, "gopher://example.org/0/about.txt"},
		{Item{Type: '1', Selector: "", Host: "example.org", Port: 7070}, "gopher://example.org:7070/1"},
		{Item{Type: '1', Selector: "/a b/c#d%e", Host: "h", Port: 70}, "gopher://h/1/a%20b/c%23d%25e"},
		{Item{Type: '0', Selector: "0x", Host: "h", Port: 70}, "gopher://h/00x"},
		{Item{Type: '1', Selector: "/f", Host: "h", Port: 70, Plus: true, Ask: true}, "gopher://h/1/f%09%09?"},
		{Item{Type: '1', Selector: "/s", Host: "h", Port: 70, TLS: true}, "gophers://h/1/s"},
		{Item{Type: '7', Selector: "/s?x=1;y", Host: "h", Port: 70}, "gopher://h/7/s?x=1;y"},
		{Item{Type: '9', Selector: "/f", Host: "::1", Port: 70}, "gopher://[::1]/9/f"},
		{Item{Type: '8', Selector: "guest", Host: "bbs.example", Port: 23}, "telnet://guest@bbs.example/"},
		{Item{Type: '8', Host: "bbs.example", Port: 2323}, "telnet://bbs.example:2323/"},
		{Item{Type: 'T', Host: "ibm.example", Port: 23}, "tn3270://ibm.example:23/"},
		{Item{Type: 'h', Selector: "URL:http://example.org/x", Host: "h", Port: 70}, "http://example.org/x"},
		{Item{Type: 'h', Selector: "/page.html", Host: "h", Port: 70}, "gopher://h/h/page.html"},
		{Item{Type: 'i', Display: "info", Host: "h", Port: 70}, ""},
		{Item{Type: '3', Display: "err", Host: "h", Port: 70}, ""},
		{Item{Type: '0', Selector: "/x", Host: "", Port: 70}, ""},
		{Item{Type: '0', Selector: "/x", Host: "evil.host/../x", Port: 70}, ""},
		{Item{Type: '0', Selector: "/x", Host: "a b", Port: 70}, ""},
	}
	for _, tt := range tests {
		got := tt.it.URL()
		if got != tt.want {
			t.Errorf("%+v.URL() = %q, want %q", tt.it, got, tt.want)
			continue
		}
		if got == "" || tt.it.Type == '8' || tt.it.Type == 'T' || tt.it.Type == 'h' && tt.it.Selector[0] == 'U' {
			continue
		}
		// Round trip: the URL's gopher view gives back type and selector.
		u, err := url.ParseLenient(got)
		if err != nil {
			t.Errorf("url.ParseLenient(%q): %v", got, err)
			continue
		}
		g := u.Gopher()
		if g.Type != string(tt.it.Type) || g.Selector != tt.it.Selector {
			t.Errorf("url.ParseLenient(%q).Gopher() = %q %q, want %q %q", got, g.Type, g.Selector, tt.it.Type, tt.it.Selector)
		}
	}
}

// TestMenuReader checks that malformed and over-long lines are skipped and
// counted, that "." ends the menu, and that lines split across reads join.
func TestMenuReader(t *testing.T) {
	menu := "iWelcome\t\tnull.host\t1\r\n" +
		"0Text\t/t\th\t70\r\n" +
		"garbage line\r\n" +
		"\r\n" +
		"1" + strings.Repeat("L", 100) + "\t/long\th\t70\r\n" +
		"1Dir\t/d\th\t70\n" +
		".\r\n" +
		"0After the end\t/x\th\t70\r\n"
	for _, r := range []io.Reader{strings.NewReader(menu), iotest.OneByteReader(strings.NewReader(menu))} {
		m := NewMenuReader(r)
		m.MaxLine = 64
		var got []string
		for {
			it, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(it.Type)+it.Display)
		}
		if want := []string{"iWelcome", "0Text", "1Dir"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("items %q, want %q", got, want)
		}
		if m.Skipped() != 3 {
			t.Errorf("Skipped() = %d, want 3", m.Skipped())
		}
	}
	// A last line without its line end still counts; a read error surfaces.
	m := NewMenuReader(strings.NewReader("0Last\t/l\th\t70"))
	if it, err := m.Next(); err != nil || it.Selector != "/l" {
		t.Errorf("unterminated last line: %+v, %v", it, err)
	}
	boom := errors.New("boom")
	m = NewMenuReader(io.MultiReader(strings.NewReader("0A\t/a\th\t70\r\n"), iotest.ErrReader(boom)))
	m.Next()
	if _, err := m.Next(); !errors.Is(err, boom) {
		t.Errorf("read error: %v, want boom", err)
	}
}

// TestMenuReaderEndless checks an endless line costs flat memory.
func TestMenuReaderEndless(t *testing.T) {
	r := io.MultiReader(strings.NewReader("1"), io.LimitReader(repeatReader('x'), 50<<20), strings.NewReader("\r\n0Ok\t/ok\th\t70\r\n"))
	m := NewMenuReader(r)
	it, err := m.Next()
	if err != nil || it.Selector != "/ok" || m.Skipped() != 1 {
		t.Errorf("after an endless line: %+v, %v, skipped %d", it, err, m.Skipped())
	}
	if cap(m.line) > 64<<10 {
		t.Errorf("line buffer grew to %d bytes", cap(m.line))
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestWriteMenu checks the rendering for reading.
func TestWriteMenu(t *testing.T) {
	menu := "iWelcome to \x1b[31mred\x1b[0m\t\tnull.host\t1\r\n" +
		"0About\t/about\texample.org\t70\r\n" +
		"1Files\t/files\texample.org\t7070\r\n" +
		"7Find\t/find\texample.org\t70\r\n" +
		"8Chat\tguest\tbbs.example\t23\r\n" +
		"3Oops\t\terror.host\t1\r\n" +
		"xOdd type\t/odd\texample.org\t70\r\n" +
		"bad line\r\n" +
		".\r\n"
	want := "      Welcome to \\x1b[31mred\\x1b[0m\n" +
		"[TXT] About <gopher://example.org/0/about>\n" +
		"[DIR] Files <gopher://example.org:7070/1/files>\n" +
		"[FIND] Find <gopher://example.org/7/find>\n" +
		"[TEL] Chat <telnet://guest@bbs.example/>\n" +
		"[ERR] Oops\n" +
		"[x]   Odd type <gopher://example.org/x/odd>\n" +
		"(1 malformed menu lines skipped)\n"
	var b bytes.Buffer
	base, _ := url.Parse("gopher://example.org/")
	if err := WriteMenu(&b, strings.NewReader(menu), base); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("WriteMenu:\n%s\nwant:\n%s", b.String(), want)
	}
}

func FuzzParseItem(f *testing.F) {
	for _, s := range []string{"0About\t/a\th\t70", "1G\t/g\th\t70\t+", "iinfo", "3err\t\th\t1", "h\tURL:http://x/\th\t70", "8\tu\th\t23", ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		it, ok := ParseItem(s)
		if !ok {
			return
		}
		if it.Port < 0 || it.Port > 65535 {
			t.Errorf("ParseItem(%q) port %d", s, it.Port)
		}
		u := it.URL()
		if u == "" {
			return
		}
		p, err := url.ParseLenient(u)
		if err != nil {
			t.Fatalf("ParseItem(%q).URL() = %q does not parse: %v", s, u, err)
		}
		if p.Scheme == "gopher" {
			g := p.Gopher()
			if g.Type != string(it.Type) || g.Selector != it.Selector {
				t.Errorf("ParseItem(%q).URL() = %q: gopher view %q %q, want %q %q", s, u, g.Type, g.Selector, it.Type, it.Selector)
			}
		}
	})
}

func FuzzMenuReader(f *testing.F) {
	f.Add("0About\t/a\th\t70\r\n1Sub\t/s\th\t70\r\n.\r\n", 16)
	f.Add("iinfo\n\n.\n0x\t/x\th\t70\n", 8)
	f.Fuzz(func(t *testing.T, menu string, max int) {
		m := NewMenuReader(strings.NewReader(menu))
		m.MaxLine = max % 512
		n := 0
		for {
			_, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if n > len(menu) {
				t.Fatalf("more items than bytes")
			}
		}
		var b bytes.Buffer
		if err := WriteMenu(&b, strings.NewReader(menu), nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range b.Bytes() {
			if c < 0x20 && c != '\n' || c == 0x7f {
				t.Fatalf("WriteMenu output holds control byte %#x", c)
			}
		}
	})
}
