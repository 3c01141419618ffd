package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Quoted netrc tokens hold spaces and escapes, as curl reads them.
func TestNetrcQuoted(t *testing.T) {
	const rc = `machine a.example login "alice smith" password "pa ss\"word\\x"
machine b.example login bob password "macdef"
machine c.example login carol password "open`
	for _, tt := range []struct{ host, user, pass string }{
		{"a.example", "alice smith", `pa ss"word\x`},
		{"b.example", "bob", "macdef"}, // quoted: a password, not a macro
	} {
		u, err := parseNetrc(strings.NewReader(strings.SplitAfterN(rc, "\n", 3)[0]+strings.SplitAfterN(rc, "\n", 3)[1]), tt.host)
		if err != nil || u == nil || u.Username != tt.user || u.Password != tt.pass {
			t.Errorf("netrc for %s = %+v, %v; want %q/%q", tt.host, u, err, tt.user, tt.pass)
		}
	}
	if _, err := parseNetrc(strings.NewReader(rc), "c.example"); err == nil {
		t.Error("an unclosed quote was accepted")
	}
}

// --netrc-file reads the file named (which must exist); --oauth2-bearer
// sends the token; --digest answers a Digest challenge.
func TestAuthOptions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		if r.URL.Path == "/digest" && !strings.HasPrefix(a, "Digest ") {
			w.Header().Set("WWW-Authenticate", `Digest realm="r", nonce="n", qop="auth", algorithm=MD5`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/digest" {
			a = a[:len(`Digest username="bob"`)]
		}
		io.WriteString(w, a)
	}))
	defer srv.Close()
	rc := filepath.Join(t.TempDir(), "rc")
	if err := os.WriteFile(rc, []byte(`machine 127.0.0.1 login bob password "s 3"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--netrc-file", rc, srv.URL + "/"}, "Basic Ym9iOnMgMw==", 0},
		{[]string{"--netrc-file", rc + ".missing", srv.URL + "/"}, "", 2},
		{[]string{"--oauth2-bearer", "tok", srv.URL + "/"}, "Bearer tok", 0},
		{[]string{"--netrc-file", rc, "--digest", srv.URL + "/digest"}, `Digest username="bob"`, 0},
		{[]string{"--netrc-file", rc, srv.URL + "/digest"}, "", 6},
	} {
		out, errs, code := fetchCmd(t, "", append([]string{"-sS"}, tt.args...)...)
		if code != tt.code || out != tt.want {
			t.Errorf("fetch %q: exit %d, out %q, err %q; want exit %d, %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}
