// Package examples holds runnable examples of the fetch library.
package examples

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// Parse a URL strictly and read its FTP view: one CWD per segment, and
// "%2F" inside a segment is data, not a separator (RFC 1738 §3.2.2).
func Example_parse() {
	u, err := url.Parse("ftp://myname@host.dom/%2Fetc/motd;type=a")
	if err != nil {
		fmt.Println(err)
		return
	}
	v := u.FTP()
	fmt.Printf("host %s port %d user %q\n", u.Host, u.EffectivePort(), u.User.Username)
	fmt.Printf("cwd %q name %q type %q\n", v.Cwd, v.Name, v.Typecode)
	// Output:
	// host host.dom port 21 user "myname"
	// cwd ["/etc"] name "motd" type "a"
}

// A malformed URL is an *url.Error with the offset where parsing stopped.
func Example_parseError() {
	_, err := url.Parse("http://example.com/a b")
	fmt.Println(err)
	// Output:
	// parse "http://example.com/a b": at offset 20: expected an encoded ' ' (unsafe or national characters must be %XX)
}

// Fetch a URL with every built-in scheme registered, streaming the body.
func Example_fetch() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "hello.txt")
	os.WriteFile(p, []byte("hello, RFC 1738\n"), 0o644)

	c := new(fetch.Client)
	schemes.Register(c)
	defer c.Close()

	res, err := c.Fetch(context.Background(), "file://"+p)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	fmt.Println(res.Kind, res.Size)
	io.Copy(os.Stdout, res.Body)
	// Output:
	// file 16
	// hello, RFC 1738
}

// Failures carry a Kind that errors.Is can test, and the URL without its
// password.
func Example_errors() {
	c := new(fetch.Client)
	schemes.Register(c)
	_, err := c.Fetch(context.Background(), "file:///no/such/file")
	fmt.Println(errors.Is(err, fetch.NotFound), fetch.KindOf(err))
	// Output:
	// true not found
}
