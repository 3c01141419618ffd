package http

import (
	"net/http"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// cookieHeader returns the Cookie field the request's jar holds for u, ""
// when it has none or there is no jar. A request whose own Header has a
// Cookie field sends that one as well.
func cookieHeader(req *fetch.Request, u *url.URL) string {
	if req.Jar == nil {
		return ""
	}
	cs := req.Jar.Cookies(netURL(u))
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("; ")
		}
		// Name and value as the jar keeps them; a value with a CR, LF or
		// NUL cannot be in a jar (net/http drops such cookies), but the
		// header check in headers judges it again.
		b.WriteString(c.Name)
		b.WriteByte('=')
		b.WriteString(c.Value)
	}
	return b.String()
}

// storeCookies gives the request's jar the cookies the reply sets, on
// every reply, a redirect's included: a cookie set on the way is sent on
// the next hop.
func storeCookies(req *fetch.Request, u *url.URL, resp *http.Response) {
	if req.Jar == nil || len(resp.Header["Set-Cookie"]) == 0 {
		return
	}
	if cs := resp.Cookies(); len(cs) > 0 {
		req.Jar.SetCookies(netURL(u), cs)
	}
}
