package ftp_test

import (
	"fmt"

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
