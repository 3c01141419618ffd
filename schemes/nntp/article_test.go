package nntp

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

func TestReadArticle(t *testing.T) {
	for _, tt := range []struct {
		name, in  string
		subject   string
		body      string
		wantError bool
	}{
		{"LF", "Subject: hi\nFrom: a@b\n\nbody\n", "hi", "body\n", false},
		{"CRLF", "Subject: hi\r\nFrom: a@b\r\n\r\nbody\r\n", "hi", "body\r\n", false},
		{"folded", "Subject: a long\n subject\n\nx\n", "a long subject", "x\n", false},
		{"no body", "Subject: hi\n", "hi", "", false},
		{"empty body", "Subject: hi\n\n", "hi", "", false},
		{"not a header", "this is not a header\n\nbody\n", "", "", true},
		{"huge header", "X: " + strings.Repeat("y", MaxHeaderBytes+10) + "\n\nb\n", "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ReadArticle(strings.NewReader(tt.in))
			if tt.wantError {
				if err == nil {
					t.Fatalf("ReadArticle: no error")
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadArticle: %v", err)
			}
			if got := a.Header.Get("Subject"); got != tt.subject {
				t.Errorf("Subject = %q, want %q", got, tt.subject)
			}
			b, _ := io.ReadAll(a.Body)
			if string(b) != tt.body {
				t.Errorf("Body = %q, want %q", b, tt.body)
			}
		})
	}
}

func TestArticleURLs(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"plain", "Subject: s\n\nSee http://example.org/a and\n<URL:ftp://ftp.example.org/pub/\n long/file.txt> or news:comp.lang.go.\n",
			[]string{"http://example.org/a", "ftp://ftp.example.org/pub/long/file.txt", "news:comp.lang.go"}},
		{"quoted-printable", "Content-Transfer-Encoding: quoted-printable\n\nGo to http://example.org/a-very-long-pa=\nth?x=3D1 now\n",
			[]string{"http://example.org/a-very-long-path?x=1"}},
		{"base64", "Content-Transfer-Encoding: base64\n\naHR0cDovL2V4YW1wbGUub3JnL2I=\n",
			[]string{"http://example.org/b"}},
		{"none", "Subject: s\n\nno links here\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ReadArticle(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			ms, err := a.URLs()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.URL)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("URLs() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestArticleURLsFromFetch reads an article's URLs straight from a fetch,
// as a crawler does, and sees a cut transfer as Incomplete.
func TestArticleURLsFromFetch(t *testing.T) {
	f := newServer(t)
	f.truncate["<two@example.org>"] = true
	h := newHandler(t, f.start(nil))
	res, err := h.Fetch(t.Context(), &fetch.Request{URL: parse(t, "news:one@example.org")})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a, err := ReadArticle(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if a.Header.Get("Message-Id") != "<one@example.org>" {
		t.Errorf("Message-Id = %q", a.Header.Get("Message-Id"))
	}
	ms, err := a.URLs()
	if err != nil || len(ms) != 2 || ms[0].URL != "http://example.org/page" || ms[1].URL != "ftp://ftp.example.org/pub/" {
		t.Errorf("URLs() = %+v, %v", ms, err)
	}

	res, err = h.Fetch(t.Context(), &fetch.Request{URL: parse(t, "news:two@example.org")})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a, err = ReadArticle(res.Body)
	if err == nil {
		_, err = a.URLs()
	}
	if !errors.Is(err, fetch.Incomplete) {
		t.Errorf("reading a cut article: %v, want Incomplete", err)
	}
}
