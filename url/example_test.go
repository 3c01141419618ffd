package url_test

import (
	"fmt"

	"github.com/rfc1738/fetch/url"
)

func ExampleParse() {
	u, err := url.Parse("ftp://myname@host.dom/%2Fetc/motd;type=a")
	if err != nil {
		panic(err)
	}
	v := u.FTP()
	fmt.Println(u.Host, u.EffectivePort(), u.User.Username)
	fmt.Printf("%q %q %q\n", v.Cwd, v.Name, v.Typecode)
	// Output:
	// host.dom 21 myname
	// ["/etc"] "motd" "a"
}

func ExampleParse_error() {
	_, err := url.Parse("ftp://joe:s3cret@h.org/a b")
	fmt.Println(err)
	// Output:
	// parse "ftp://joe:****@h.org/a b": at offset 24: expected an encoded ' ' (unsafe or national characters must be %XX)
}

// Normalize gives one spelling for the URLs that name one resource, for a
// crawler's set of URLs seen.
func ExampleURL_Normalize() {
	seen := map[string]bool{}
	for _, raw := range []string{
		"HTTP://Example.ORG:80",
		"http://example.org/",
		"http://example.org/#top",
		"gopher://gopher.example.org",
		"gopher://gopher.example.org/1",
		"ftp://ftp.example.org/%70ub/f;type=I",
		"ftp://ftp.example.org:21/pub/f;type=i",
	} {
		u, err := url.ParseLenient(raw)
		if err != nil {
			panic(err)
		}
		n := u.Normalize().String()
		if !seen[n] {
			seen[n] = true
			fmt.Println(n)
		}
	}
	// Output:
	// http://example.org/
	// gopher://gopher.example.org/1
	// ftp://ftp.example.org/pub/f;type=i
}

// ResolveReference turns the links of a page into absolute URLs.
func ExampleURL_ResolveReference() {
	base, err := url.Parse("http://a/b/c/d;p?q")
	if err != nil {
		panic(err)
	}
	for _, ref := range []string{"g", "../g", "./g/.", "?y", ";x", "//g/h", "#s", "ftp://f/x"} {
		u, err := base.ResolveReference(ref)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-9s %s\n", ref, u)
	}
	// Output:
	// g         http://a/b/c/g
	// ../g      http://a/b/g
	// ./g/.     http://a/b/c/g/
	// ?y        http://a/b/c/d;p?y
	// ;x        http://a/b/c/d;x
	// //g/h     http://g/h
	// #s        http://a/b/c/d;p?q#s
	// ftp://f/x ftp://f/x
}

// A gopher selector is opaque: only absolute paths resolve against it.
func ExampleParser_Resolve() {
	base, _ := url.Parse("gopher://gopher.example.org/1/pub/")
	p := url.Parser{}
	u, err := p.Resolve(base, "/0/pub/README")
	fmt.Println(u, err)
	_, err = p.Resolve(base, "README")
	fmt.Println(err)
	// Output:
	// gopher://gopher.example.org/0/pub/README <nil>
	// parse "README": at offset 0: expected an absolute URL, a //host or a /path reference (a gopher selector is opaque, RFC 1436)
}
