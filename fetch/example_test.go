package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// A Handler serves one scheme; the Client applies the policy, fills the
// request's defaults and names the URL in errors.
func ExampleClient_Do() {
	c := new(fetch.Client)
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if req.URL.Gopher().Selector != "hello" {
			return nil, fetch.Reply(fetch.NotFound, 0, "no such item")
		}
		return &fetch.Resource{Size: 5, Body: io.NopCloser(strings.NewReader("hello"))}, nil
	}))
	u, _ := url.Parse("gopher://example.org/0hello")
	res, err := c.Do(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	fmt.Printf("%s (%d bytes)\n", b, res.Size)

	_, err = c.Fetch(context.Background(), "gopher://example.org/0nothing")
	fmt.Println(err)
	// Output:
	// hello (5 bytes)
	// gopher://example.org/0nothing: not found: no such item
}

// Every failure a server's reply caused holds a *ReplyError.
func ExampleReplyError() {
	err := fmt.Errorf("retrieving: %w", fetch.Reply(fetch.NotFound, 550, "No such file or directory"))
	var re *fetch.ReplyError
	if errors.As(err, &re) {
		fmt.Println(re.Code, re.Text)
	}
	fmt.Println(errors.Is(err, fetch.NotFound))
	// Output:
	// 550 No such file or directory
	// true
}

// Server text may hold terminal escapes; Sanitize makes it safe to print.
func ExampleSanitize() {
	fmt.Println(fetch.Sanitize("530 \x1b]0;owned\x07Login incorrect"))
	// Output:
	// 530 \x1b]0;owned\x07Login incorrect
}

// A crawler retries transient failures with a RetryPolicy, honouring the
// server's Retry-After.
func ExampleRetryPolicy() {
	p := fetch.RetryPolicy{Attempts: 3}
	busy := &fetch.Error{Kind: fetch.Unavailable, Err: &fetch.ReplyError{Code: 503, Text: "busy", RetryAfter: 2 * time.Second}}
	for _, err := range []error{busy, fetch.Errorf(fetch.Timeout, "no reply"), fetch.Reply(fetch.NotFound, 404, "Not Found")} {
		wait, again := p.Wait(nil, 1, err)
		fmt.Printf("%v: retry %v", fetch.KindOf(err), again)
		if again {
			fmt.Printf(" within %v", wait.Round(time.Second))
		}
		fmt.Println()
	}
	// Output:
	// service unavailable: retry true within 2s
	// timeout: retry true within 1s
	// not found: retry false
}

// testNet is a network of the example's own: names resolve to TEST-NET
// addresses, and the dial hook routes those to a server on 127.0.0.1.
type testNet map[string]string // "ip:port" → real address

func (testNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	switch host {
	case "www.example.test":
		return []netip.Addr{netip.MustParseAddr("192.0.2.10")}, nil
	case "intranet.example.test":
		return []netip.Addr{netip.MustParseAddr("10.0.0.8")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n testNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	fmt.Println("dialing", addr)
	var d net.Dialer
	return d.DialContext(ctx, network, n[addr])
}

// Client.DialContext makes every connection of every scheme, and
// Client.Resolver resolves every name: here, a test network. The policy
// judges each resolved address before the hook is called.
func ExampleClient_DialContext() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "hello from the test network\n")
			c.Close()
		}
	}()
	n := testNet{"192.0.2.10:70": ln.Addr().String(), "10.0.0.8:70": ln.Addr().String()}
	c := &fetch.Client{DialContext: n.DialContext, Resolver: n, Policy: fetch.Policy{DenyPrivate: true}}
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		conn, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
		if err != nil {
			return nil, err
		}
		return &fetch.Resource{Size: -1, Body: conn}, nil
	}))
	for _, u := range []string{"gopher://www.example.test/", "gopher://intranet.example.test/"} {
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Print(string(b))
	}
	// Output:
	// dialing 192.0.2.10:70
	// hello from the test network
	// gopher://intranet.example.test/: refused by safety policy: intranet.example.test (10.0.0.8) is a private, loopback, link-local or multicast address
}

// A Listing streams parsed entries; items the producer cannot parse are
// skipped and counted.
func ExampleNewListing() {
	lines := []string{"README 1024", "a line no one can parse", "pub -1"}
	next := func() (fetch.Entry, error) {
		if len(lines) == 0 {
			return fetch.Entry{}, io.EOF
		}
		line := lines[0]
		lines = lines[1:]
		var e fetch.Entry
		if _, err := fmt.Sscanf(line, "%s %d", &e.Name, &e.Size); err != nil {
			return fetch.Entry{}, fmt.Errorf("%q: %w", line, fetch.ErrUnparsed)
		}
		return e, nil
	}
	l := fetch.NewListing(next, nil)
	defer l.Close()
	for {
		e, err := l.Next()
		if err != nil {
			break
		}
		fmt.Println(e.Name, e.Size)
	}
	fmt.Println("skipped:", l.Skipped())
	// Output:
	// README 1024
	// pub -1
	// skipped: 1
}

// A handler reports a redirect and the Client follows it: each hop is
// shown to CheckRedirect, and the final Resource lists the hops in Via.
func ExampleClient_CheckRedirect() {
	c := &fetch.Client{MaxRedirects: 5}
	c.Register("ftp", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if req.URL.Path == "old" {
			moved, _ := url.Parse("ftp://mirror.example/new")
			return &fetch.Resource{Redirect: moved, Body: fetch.NoBody}, nil
		}
		return &fetch.Resource{Body: io.NopCloser(strings.NewReader("the file\n"))}, nil
	}))
	c.CheckRedirect = func(next *fetch.Request, via []*fetch.Resource) error {
		fmt.Println("hop", len(via), "to", next.URL, "credentials:", next.User)
		return nil
	}
	res, err := c.Fetch(context.Background(), "ftp://joe:secret@ftp.example/old")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
	fmt.Println(res.URL, "via", res.Via[0].URL.Redacted())
	// Output:
	// hop 1 to ftp://mirror.example/new credentials: <nil>
	// the file
	// ftp://mirror.example/new via ftp://joe:****@ftp.example/old
}

// Policy.Schemes limits a Client to some schemes; a redirect or referral
// to any other is refused too.
func ExamplePolicy() {
	c := &fetch.Client{Policy: fetch.Policy{Schemes: []string{"http", "https"}, DenyPrivate: true}}
	c.Register("ftp", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Body: fetch.NoBody}, nil
	}))
	_, err := c.Fetch(context.Background(), "ftp://ftp.example.org/pub/")
	fmt.Println(errors.Is(err, fetch.Refused), err)
	// Output:
	// true ftp://ftp.example.org/pub/: refused by safety policy: scheme "ftp" is not among the allowed schemes
}

type dirHandler struct{ fetch.HandlerFunc }

func (dirHandler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	names := []string{"README", "pub/"}
	return fetch.NewListing(func() (fetch.Entry, error) {
		if len(names) == 0 {
			return fetch.Entry{}, io.EOF
		}
		n := names[0]
		names = names[1:]
		kind := fetch.ResourceFile
		if strings.HasSuffix(n, "/") {
			kind = fetch.ResourceDirectory
		}
		return fetch.Entry{Name: n, Kind: kind, Size: -1}, nil
	}, nil), nil
}

// Client.List returns a directory's entries from a handler that is a
// Lister.
func ExampleClient_List() {
	c := new(fetch.Client)
	c.Register("ftp", dirHandler{})
	u, _ := url.Parse("ftp://ftp.example.org/")
	l, err := c.List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	for {
		e, err := l.Next()
		if err != nil {
			break
		}
		fmt.Println(e.Kind, e.Name)
	}
	// Output:
	// file README
	// directory pub/
}

// A program keeps every built-in handler but one, which it configures its
// own way: here a gopher handler that answers everything itself.
func ExampleClient_Replace() {
	c := new(fetch.Client)
	c.Register("gopher", fetch.HandlerFunc(func(context.Context, *fetch.Request) (*fetch.Resource, error) {
		return nil, fetch.Errorf(fetch.Unsupported, "the built-in handler")
	}))
	c.Replace("gopher", fetch.HandlerFunc(func(_ context.Context, req *fetch.Request) (*fetch.Resource, error) {
		body := "hello from " + req.URL.String() + "\n"
		return &fetch.Resource{Size: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}, nil
	}))
	res, err := c.Fetch(context.Background(), "gopher://gopher.example/0/hello")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
	// Output: hello from gopher://gopher.example/0/hello
}
