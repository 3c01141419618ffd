package url

import (
	"reflect"
	"testing"
)

// TestNormalize checks each rule of Normalize against the RFC 1738 section
// that grounds it: the URLs of each row name one resource and normalize to
// the same string.
func TestNormalize(t *testing.T) {
	tests := []struct {
		sect string
		in   []string
		want string
	}{
		{"§2.1 scheme case, §3.1 host case", []string{"HTTP://WWW.Example.COM/a", "http://www.example.com/a"}, "http://www.example.com/a"},
		{"§3.1 default port", []string{"http://h:80/", "http://h/", "HTTP://H:80"}, "http://h/"},
		{"§3.1 default port of https", []string{"https://h:443/x", "https://h/x"}, "https://h/x"},
		{"§3.1 other ports stay", []string{"http://h:8080/"}, "http://h:8080/"},
		{"§3.1 ftp default port", []string{"ftp://u@h:21/f", "ftp://u@h/f"}, "ftp://u@h/f"},
		{"§2.2 unreserved escapes decoded", []string{"ftp://h/%41b%2ec%24", "ftp://h/Ab.c$"}, "ftp://h/Ab.c$"},
		{"§2.2 hex digits upper case", []string{"ftp://h/a%2fb%3b", "ftp://h/a%2Fb%3B"}, "ftp://h/a%2Fb%3B"},
		{"§2.2 http decodes only letters, digits, -._", []string{"http://h/%7e%41%2b%2D?q=%2b"}, "http://h/%7EA%2B-?q=%2B"},
		{"§2.2 lenient encoding meets strict", []string{"http://h/a b", "http://h/a%20b"}, "http://h/a%20b"},
		{"§3.3 http empty path is /", []string{"http://h", "http://h/"}, "http://h/"},
		{"§3.3 http search without path", []string{"http://h?q", "http://h/?q"}, "http://h/?q"},
		{"§3.4 gopher default type 1", []string{"gopher://h", "gopher://h/", "gopher://h/1", "GOPHER://H:70/"}, "gopher://h/1"},
		{"§3.4 gopher selector decoded whole", []string{"gopher://h/0%2Fdir%2Ff", "gopher://h/0/dir/f", "gopher://h/%30/dir/f"}, "gopher://h/0/dir/f"},
		{"§3.4 gopher TAB stays encoded", []string{"gopher://h/7s%09q", "gopher://h/7s%09q#x"}, "gopher://h/7s%09q"},
		{"§3.2.2 typecode kept, lower case", []string{"ftp://h/f;type=A", "ftp://h/f;type=a"}, "ftp://h/f;type=a"},
		{"§3.2.2 typecode differs", []string{"ftp://h/f;type=i"}, "ftp://h/f;type=i"},
		{"§3.2.2 no typecode", []string{"ftp://h/f"}, "ftp://h/f"},
		{"§3.10 localhost is the empty host", []string{"file://localhost/etc/motd", "file:///etc/motd", "FILE://LocalHost/etc/motd"}, "file:///etc/motd"},
		{"appendix: the fragment is not part of the URL", []string{"http://h/p#frag", "http://h/p#", "http://h/p"}, "http://h/p"},
		{"§3.8 telnet trailing /", []string{"telnet://h", "telnet://h:23/"}, "telnet://h/"},
		{"§3.1 users and passwords stay", []string{"ftp://Joe:Pw@H/"}, "ftp://Joe:Pw@h/"},
		{"§3.1 path case stays", []string{"http://h/A/B"}, "http://h/A/B"},
		{"§3.6 news", []string{"news:comp.lang.go", "news:comp%2elang%2Ego"}, "news:comp.lang.go"},
		{"§2.1 unknown schemes: case and escapes", []string{"X-Foo://H:99/%61", "x-foo://h:99/a"}, "x-foo://h:99/a"},
		{"RFC 3986 §5.2.4 dot segments removed", []string{"http://h/a/../b", "http://h/./b", "http://h/b", "http://h/x/%2E%2E/b"}, "http://h/b"},
		{"RFC 3986 §5.2.4 .. above the root dropped", []string{"http://h/a/b/../../orphan/1.html", "http://h/../orphan/1.html", "http://h/orphan/1.html"}, "http://h/orphan/1.html"},
		{"RFC 3986 §5.2.4 a last dot segment leaves a /", []string{"http://h/a/b/..", "http://h/a/.", "http://h/a/"}, "http://h/a/"},
		{"RFC 3986 §5.2.4 the query keeps its dots", []string{"http://h/a/./b?x=../y"}, "http://h/a/b?x=../y"},
		{"RFC 1808 §2.4.3 a parameter is part of its segment", []string{"http://h/site/a;/../../X", "http://h/X"}, "http://h/X"},
		{"RFC 3986 §5.2.4 ftp", []string{"ftp://h/pub/../etc/./f;type=I", "ftp://h/etc/f;type=i"}, "ftp://h/etc/f;type=i"},
		{"RFC 3986 §5.2.4 file", []string{"file:///tmp/../etc/passwd", "file:///etc/passwd"}, "file:///etc/passwd"},
		{"§3.4 gopher selectors keep their dots", []string{"gopher://h/1/a/../b"}, "gopher://h/1/a/../b"},
		{"§3.1 dots inside a segment stay", []string{"http://h/a..b/.c/d."}, "http://h/a..b/.c/d."},
	}
	for _, tt := range tests {
		for _, in := range tt.in {
			u, err := ParseLenient(in)
			if err != nil {
				t.Fatalf("%s: ParseLenient(%q): %v", tt.sect, in, err)
			}
			before := u.String()
			n := u.Normalize()
			if got := n.String(); got != tt.want {
				t.Errorf("%s: Normalize(%q) = %q, want %q", tt.sect, in, got, tt.want)
			}
			if u.String() != before {
				t.Errorf("%s: Normalize changed its receiver %q to %q", tt.sect, before, u.String())
			}
			checkNormalized(t, in, n)
		}
	}
	// Different resources stay apart.
	for _, pair := range [][2]string{
		{"http://h/a%2Bb", "http://h/a+b"},
		{"https://h/", "http://h/"},
		{"ftp://h/f;type=a", "ftp://h/f"},
		{"ftp://h/a%2Fb", "ftp://h/a/b"},
		{"gopher://h/1", "gopher://h/0"},
		{"ftp://u@h/", "ftp://h/"},
	} {
		a, _ := ParseLenient(pair[0])
		b, _ := ParseLenient(pair[1])
		if a.Normalize().String() == b.Normalize().String() {
			t.Errorf("%q and %q normalize alike, to %q", pair[0], pair[1], a.Normalize())
		}
	}
}

// checkNormalized checks that n, the normalized form of in, is a fixed
// point of Normalize and parses back from its String to an equal URL.
func checkNormalized(t *testing.T, in string, n *URL) {
	t.Helper()
	if n2 := n.Normalize(); !reflect.DeepEqual(n, n2) {
		t.Fatalf("Normalize is not idempotent for %q: %s, then %s", in, dump(n), dump(n2))
	}
	p, err := ParseLenient(n.String())
	if err != nil {
		t.Fatalf("Normalize(%q) = %q, which does not parse: %v", in, n, err)
	}
	if !reflect.DeepEqual(p, n) {
		t.Fatalf("Normalize(%q) = %s, but its String %q parses to %s", in, dump(n), n, dump(p))
	}
}
