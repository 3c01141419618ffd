package prospero

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestTokenize follows prospero.md §2.1.
func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "", want: nil},
		{in: "LINK  L FILE", want: []string{"LINK", "L", "FILE"}},
		{in: "18' bytes'", want: []string{"18 bytes"}},
		{in: "''", want: []string{""}},
		{in: "a '' b", want: []string{"a", "", "b"}},
		{in: "'/srv/prospero/README'", want: []string{"/srv/prospero/README"}},
		{in: "it''s", want: []string{"its"}},
		{in: "'it''s'", want: []string{"it's"}},
		{in: "DATA Hello' from a real Prospero dirsrv.\n'", want: []string{"DATA", "Hello from a real Prospero dirsrv.\n"}},
		{in: "a'b c'd e", want: []string{"ab cd", "e"}},
		{in: " \tlead trail \t", want: []string{"lead", "trail"}},
		{in: "'open", err: true},
		{in: "x 'a''", err: true},
	}
	for _, tt := range tests {
		got, err := tokenize(tt.in)
		if (err != nil) != tt.err || !tt.err && !slices.Equal(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/prospero/README": "/srv/prospero/README",
		"":                     "''",
		"a b":                  "'a b'",
		"it's":                 "'it''s'",
		"#ALL":                 "#ALL",
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadLine(t *testing.T) {
	in := "LINK a 'b\nc'\nATTRIBUTE x\nlast"
	br := bufio.NewReader(strings.NewReader(in))
	var got []string
	for {
		l, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	if want := []string{"LINK a 'b\nc'", "ATTRIBUTE x", "last"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if _, err := readLine(bufio.NewReader(strings.NewReader("a 'b\n"))); !errors.Is(err, errUnterminated) {
		t.Errorf("open quote at the end: %v", err)
	}
	long := strings.Repeat("x", maxLine+10) + "\n"
	if _, err := readLine(bufio.NewReaderSize(strings.NewReader(long), 16)); err == nil {
		t.Errorf("a line over %d bytes was accepted", maxLine)
	}
}

// unquoteStream runs the streaming unquoter over in, through reads of one
// byte from a reader that returns one byte at a time, and returns the
// token and what follows it.
func unquoteStream(in string, small bool) (tok, rest string, err error) {
	var r io.Reader = strings.NewReader(in)
	if small {
		r = iotest.OneByteReader(r)
	}
	br := bufio.NewReaderSize(r, 16)
	d := &dataReader{r: br}
	var b []byte
	if small {
		b, err = io.ReadAll(iotest.OneByteReader(d))
	} else {
		b, err = io.ReadAll(d)
	}
	tail, _ := io.ReadAll(br)
	return string(b), string(tail), err
}

func TestDataReader(t *testing.T) {
	tests := []struct{ in, tok, rest string }{
		{"Hello' from a real Prospero dirsrv.\n'\n", "Hello from a real Prospero dirsrv.\n", "\n"},
		{"''\n", "", "\n"},
		{"plain\n", "plain", "\n"},
		{"a''b' x''y '\n", "ab x'y ", "\n"},
		{"end", "end", ""},
		{"'" + strings.Repeat("q''", 40) + "'", strings.Repeat("q'", 40), ""},
	}
	for _, tt := range tests {
		for _, small := range []bool{false, true} {
			tok, rest, err := unquoteStream(tt.in, small)
			if err != nil || tok != tt.tok || rest != tt.rest {
				t.Errorf("dataReader(%q, small=%v) = %q, rest %q, %v; want %q, %q", tt.in, small, tok, rest, err, tt.tok, tt.rest)
			}
		}
	}
	if _, _, err := unquoteStream("abc' def\n", false); !errors.Is(err, errUnterminated) {
		t.Errorf("open quote: %v, want errUnterminated", err)
	}
}

// FuzzTokenize: quoting then tokenizing gives back the tokens; the
// streaming unquoter agrees with tokenize on a line's first token; neither
// panics on any input.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"LINK  L FILE README", "18' bytes'", "''", "a''b' c", "'open", "DATA Hello' x\n'\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		toks, err := tokenize(line)
		if err == nil {
			quoted := make([]string, len(toks))
			for i, tok := range toks {
				quoted[i] = quote(tok)
			}
			again, err := tokenize(strings.Join(quoted, " "))
			if err != nil || !slices.Equal(again, toks) {
				t.Fatalf("tokenize(quote(%q)) = %q, %v", toks, again, err)
			}
		}
		trimmed := strings.TrimLeft(line, " \t\r\n")
		if trimmed == "" {
			return
		}
		tok, _, serr := unquoteStream(trimmed, false)
		if err == nil && (serr != nil || tok != toks[0]) {
			t.Fatalf("stream unquote of %q = %q, %v; tokenize gave %q", trimmed, tok, serr, toks[0])
		}
	})
}

// FuzzReply: any reply text is parsed as attributes, as a listing and as
// a CONTENTS reply without a panic, and within the size bounds.
func FuzzReply(f *testing.F) {
	for _, name := range []string{"goi-all", "list", "contents-small", "vls"} {
		tr := loadTranscript(f, name)
		f.Add(tr.Exchanges[len(tr.Exchanges)-1].ResponseText)
	}
	f.Add("FORWARDED INTERNET-D H(1) ASCII /x 0\n")
	f.Fuzz(func(t *testing.T, reply string) {
		readInfo(strings.NewReader(reply), nil)
		b := &listBody{br: bufio.NewReader(strings.NewReader(reply)), dir: target{host: "127.0.0.1", port: 1525}}
		for b.next() == nil {
			if len(b.out) > maxLine+200 {
				t.Fatalf("listing line of %d bytes", len(b.out))
			}
		}
		br := bufio.NewReader(strings.NewReader(reply))
		if toks, err := headTokens(br, 6); err == nil && len(toks) == 6 {
			io.Copy(io.Discard, &dataReader{r: br})
		}
	})
}
