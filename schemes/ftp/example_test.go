package ftp_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/url"
)

// The commands RFC 1738 §3.2.2's own examples mean, without connecting.
func ExampleHandler_Plan() {
	h := &ftp.Handler{}
	for _, s := range []string{
		"ftp://myname:secret@host.dom/%2Fetc/motd",
		"ftp://myname:secret@host.dom//etc/motd",
		"ftp://host.dom/pub/;type=d",
	} {
		u, _ := url.Parse(s)
		lines, _ := h.Plan(&fetch.Request{URL: u})
		fmt.Println(u.Redacted())
		for _, l := range lines {
			fmt.Printf("  %q\n", l)
		}
	}
	// Output:
	// ftp://myname:****@host.dom/%2Fetc/motd
	//   "USER myname"
	//   "PASS ****"
	//   "PWD"
	//   "CWD /etc"
	//   "TYPE A"
	//   "EPSV"
	//   "RETR motd"
	// ftp://myname:****@host.dom//etc/motd
	//   "USER myname"
	//   "PASS ****"
	//   "PWD"
	//   "CWD "
	//   "CWD etc"
	//   "TYPE A"
	//   "EPSV"
	//   "RETR motd"
	// ftp://host.dom/pub/;type=d
	//   "USER anonymous"
	//   "PASS ****"
	//   "PWD"
	//   "CWD pub"
	//   "TYPE A"
	//   "EPSV"
	//   "NLST"
}

// Listing a directory as entries, through a Client (which applies its
// policy and per-host slots): MLSD where the server offers it, else LIST
// parsed. A directory's URL ends in "/".
func ExampleHandler_List() {
	c := &fetch.Client{}
	h := &ftp.Handler{}
	defer h.Close()
	c.Register("ftp", h)
	u, _ := url.Parse("ftp://ftp.example.org/pub/")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := c.List(ctx, &fetch.Request{URL: u})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	for {
		e, err := l.Next()
		if err != nil {
			break // io.EOF after the last entry
		}
		fmt.Println(e.Kind, e.Size, e.URL)
	}
	if n := l.Skipped(); n > 0 {
		fmt.Println(n, "lines could not be parsed")
	}
}
