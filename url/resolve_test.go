package url

import "testing"

// TestResolveRFC1808 resolves every example of RFC 1808 §5.1 (normal) and
// §5.2 (abnormal) against its base <URL:http://a/b/c/d;p?q#f>.
func TestResolveRFC1808(t *testing.T) {
	base, err := ParseLenient("http://a/b/c/d;p?q#f")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ sect, ref, want string }{
		{"§5.1", "g", "http://a/b/c/g"},
		{"§5.1", "./g", "http://a/b/c/g"},
		{"§5.1", "g/", "http://a/b/c/g/"},
		{"§5.1", "/g", "http://a/g"},
		{"§5.1", "//g", "http://g"},
		{"§5.1", "?y", "http://a/b/c/d;p?y"},
		{"§5.1", "g?y", "http://a/b/c/g?y"},
		{"§5.1", "g?y/./x", "http://a/b/c/g?y/./x"},
		{"§5.1", "#s", "http://a/b/c/d;p?q#s"},
		{"§5.1", "g#s", "http://a/b/c/g#s"},
		{"§5.1", "g#s/./x", "http://a/b/c/g#s/./x"},
		{"§5.1", "g?y#s", "http://a/b/c/g?y#s"},
		{"§5.1", ";x", "http://a/b/c/d;x"},
		{"§5.1", "g;x", "http://a/b/c/g;x"},
		{"§5.1", "g;x?y#s", "http://a/b/c/g;x?y#s"},
		{"§5.1", ".", "http://a/b/c/"},
		{"§5.1", "./", "http://a/b/c/"},
		{"§5.1", "..", "http://a/b/"},
		{"§5.1", "../", "http://a/b/"},
		{"§5.1", "../g", "http://a/b/g"},
		{"§5.1", "../..", "http://a/"},
		{"§5.1", "../../", "http://a/"},
		{"§5.1", "../../g", "http://a/g"},
		{"§5.2", "", "http://a/b/c/d;p?q#f"},
		{"§5.2", "../../../g", "http://a/../g"},
		{"§5.2", "../../../../g", "http://a/../../g"},
		{"§5.2", "/./g", "http://a/./g"},
		{"§5.2", "/../g", "http://a/../g"},
		{"§5.2", "g.", "http://a/b/c/g."},
		{"§5.2", ".g", "http://a/b/c/.g"},
		{"§5.2", "g..", "http://a/b/c/g.."},
		{"§5.2", "..g", "http://a/b/c/..g"},
		{"§5.2", "./../g", "http://a/b/g"},
		{"§5.2", "./g/.", "http://a/b/c/g/"},
		{"§5.2", "g/./h", "http://a/b/c/g/h"},
		{"§5.2", "g/../h", "http://a/b/c/h"},
		{"§5.1", "g:h", "g:h"},
	}
	for _, tt := range tests {
		u, err := base.ResolveReference(tt.ref)
		if err != nil {
			t.Errorf("RFC 1808 %s: resolve %q: %v", tt.sect, tt.ref, err)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("RFC 1808 %s: resolve %q = %q, want %q", tt.sect, tt.ref, got, tt.want)
		}
	}
	// §5.2: "http:g" is an absolute URL here (the strict reading), and
	// http needs "//".
	if u, err := base.ResolveReference("http:g"); err == nil {
		t.Errorf(`resolve "http:g" = %q, want an error`, u)
	}
}

// TestResolveSchemes covers what each scheme does with a relative path.
func TestResolveSchemes(t *testing.T) {
	tests := []struct{ base, ref, want string }{
		// RFC 1738 §3.2.2: '?' is a path character in ftp; ";type=" is
		// the params of RFC 1808 §2.4.4.
		{"ftp://u@h/pub/a?b/c.txt;type=a", "d.txt", "ftp://u@h/pub/a?b/d.txt"},
		{"ftp://h/pub/dir/x", "../y;type=i", "ftp://h/pub/y;type=i"},
		{"ftp://h/pub/x;type=i", ";type=a", "ftp://h/pub/x;type=a"},
		{"ftp://h:2121/a/b", "/c", "ftp://h:2121/c"},
		{"ftp://h", "pub/x", "ftp://h/pub/x"},
		// RFC 1738 §3.10.
		{"file:///etc/motd", "passwd", "file:///etc/passwd"},
		{"file://localhost/a/b/c", "../../x", "file://localhost/x"},
		{"file:///a/b?c/d", "e", "file:///a/b?c/e"},
		// http: a base without a path resolves as "/".
		{"http://h", "g", "http://h/g"},
		{"http://h?q", "g", "http://h/g"},
		{"https://h/a/", "b%20c", "https://h/a/b%20c"},
		{"http://h/a/", "b c", "http://h/a/b%20c"},
		// gopher: opaque selectors; absolute paths verbatim.
		{"gopher://h/1/dir/", "/0/dir/../x", "gopher://h/0/dir/../x"},
		{"gopher://h:7070/1/", "//g/1", "gopher://g/1"},
		{"gopher://h/1/", "#top", "gopher://h/1/#top"},
		{"gopher://h/1/", "", "gopher://h/1/"},
		// Absolute references of any scheme.
		{"gopher://h/1/", "ftp://f/x", "ftp://f/x"},
		{"news:comp.lang.go", "news:comp.lang.c", "news:comp.lang.c"},
		{"nntp://h/g/1", "//n/g", "nntp://n/g"},
	}
	for _, tt := range tests {
		b, err := ParseLenient(tt.base)
		if err != nil {
			t.Fatalf("ParseLenient(%q): %v", tt.base, err)
		}
		u, err := b.ResolveReference(tt.ref)
		if err != nil {
			t.Errorf("resolve %q against %q: %v", tt.ref, tt.base, err)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("resolve %q against %q = %q, want %q", tt.ref, tt.base, got, tt.want)
		}
	}
	for _, tt := range []struct{ base, ref string }{
		{"gopher://h/1/dir/", "x"},    // an opaque selector
		{"gopher://h/1/dir/", "?q"},   // no query either
		{"news:comp.lang.go", "x"},    // no path
		{"mailto:a@h.org", "b@h.org"}, // an address is no path
		{"nntp://h/g/1", "2"},         // RFC 1738 §3.7 has no hierarchy
		{"http://h/", "http:g"},       // absolute, and malformed
	} {
		b, err := ParseLenient(tt.base)
		if err != nil {
			t.Fatal(err)
		}
		if u, err := b.ResolveReference(tt.ref); err == nil {
			t.Errorf("resolve %q against %q = %q, want an error", tt.ref, tt.base, u)
		} else if _, ok := err.(*Error); !ok {
			t.Errorf("resolve %q against %q: error %T, want *Error", tt.ref, tt.base, err)
		}
	}
}

// TestResolveStrict checks that a strict Parser refuses a result that is
// not RFC 1738 (a fragment, an unencoded space) and keeps the base intact.
func TestResolveStrict(t *testing.T) {
	base, _ := Parse("http://a/b/c")
	for _, ref := range []string{"g#s", "a b"} {
		if u, err := (Parser{}).Resolve(base, ref); err == nil {
			t.Errorf("strict Resolve(%q) = %q, want an error", ref, u)
		}
	}
	u, err := Parser{}.Resolve(base, "../d/./e")
	if err != nil || u.String() != "http://a/d/e" {
		t.Errorf("strict Resolve = %v, %v", u, err)
	}
	if base.String() != "http://a/b/c" {
		t.Errorf("the base changed: %q", base)
	}
}
