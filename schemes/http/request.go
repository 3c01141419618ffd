package http

import (
	"encoding/base64"
	"net/http"
	neturl "net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// checkLine refuses, at the point where a request line or header is
// written, any byte that could end or split it: a raw control character
// or space in the request-target, and a decoded CR, LF, NUL or TAB in the
// path and search (RFC 1738 §6; the Client's Policy checks the same before
// dialing, but a Handler may be used without a Client).
func checkLine(u *url.URL) error {
	// The request-target is "/" and the path (see requestURI).
	for i := 0; i < len(u.Path); i++ {
		if c := u.Path[i]; c <= ' ' || c == 0x7f {
			return fetch.Errorf(fetch.Refused, "the request-target holds the byte %#02x (RFC 1738 §6)", c)
		}
	}
	if err := (fetch.Policy{AllowPortOverride: true}).Check(u); err != nil {
		return err
	}
	if strings.ContainsAny(u.Host, "\r\n\x00\t /?#@") {
		return fetch.Errorf(fetch.Refused, "the host holds a byte that would split the request (RFC 1738 §6)")
	}
	return nil
}

// requestURI returns the origin-form request-target of u: the encoded path
// and search exactly as the URL holds them (RFC 1738 §3.3), which is "/"
// and u.Path.
func requestURI(u *url.URL) string { return u.HTTP().RequestURI() }

// hostHeader returns the Host header for u: the host, bracketed when an
// IPv6 address, with the port when the URL gives one.
func hostHeader(u *url.URL) string {
	h := u.Host
	v6 := strings.IndexByte(h, ':') >= 0
	if !v6 && u.Port == 0 {
		return h
	}
	// Formatted in place, one allocation for the whole.
	var buf [64]byte
	b := buf[:0]
	if len(h)+8 > len(buf) {
		b = make([]byte, 0, len(h)+8)
	}
	if v6 {
		b = append(append(append(b, '['), h...), ']')
	} else {
		b = append(b, h...)
	}
	if u.Port != 0 {
		b = strconv.AppendInt(append(b, ':'), int64(u.Port), 10)
	}
	return string(b)
}

// netURL converts u to the net/url form net/http wants, keeping the
// request-target byte for byte.
func netURL(u *url.URL) *neturl.URL {
	v := u.HTTP()
	nu := &neturl.URL{Scheme: u.Scheme, Host: hostHeader(u)}
	p, err := url.Unescape(v.Path)
	if err == nil {
		nu.Path, nu.RawPath = p, v.Path
	}
	nu.RawQuery, nu.ForceQuery = v.Search, v.HasSearch && v.Search == ""
	if err != nil || nu.RequestURI() != v.RequestURI() {
		// net/url would write the path differently: send it verbatim.
		nu.Path, nu.RawPath, nu.RawQuery, nu.ForceQuery = "", "", "", false
		nu.Opaque = v.RequestURI()
	}
	return nu
}

// basicAuth returns the Authorization header value for ui.
func basicAuth(ui *url.Userinfo) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(ui.Username+":"+ui.Password))
}

// header is one request header in the order it is planned and traced.
type header struct{ name, value string }

// headers returns the headers sent for a hop, in order: the handler's own,
// then the request's Header fields (which replace the handler's User-Agent
// and Accept-Encoding when they name them), sorted by name. A Header field
// whose values are all empty removes the handler's field of that name and
// is not sent (curl's -H "Name:"); an empty User-Agent is kept in the
// list, so that neither transport adds one of its own, and never sent. The
// Authorization value is real; callers mask it for display. A Header field
// that could end or split the request is refused (RFC 9110 §5).
func (h *Handler) headers(req *fetch.Request, u *url.URL, creds *url.Userinfo, offset int64, head bool) ([]header, error) {
	hs := make([]header, 1, 6+len(req.Header))
	hs[0] = header{"Host", hostHeader(u)}
	if removed(req.Header, "User-Agent") {
		hs = append(hs, header{"User-Agent", ""})
	} else if req.Header.Get("User-Agent") == "" {
		hs = append(hs, header{"User-Agent", h.userAgent()})
	}
	method := http.MethodGet
	if head {
		method = http.MethodHead
	}
	auth := h.authorization(req, u, creds, method)
	if auth != "" {
		hs = append(hs, header{"Authorization", auth})
	}
	if offset > 0 {
		hs = append(hs, header{"Range", "bytes=" + strconv.FormatInt(offset, 10) + "-"})
	}
	if (h.Raw || (offset == 0 && !head)) && req.Header.Get("Accept-Encoding") == "" && !removed(req.Header, "Accept-Encoding") {
		// The codings decodeBody undoes, for both transports; not on a
		// Range or HEAD request (a range of encoded bytes is no use),
		// unless with Raw the wire bytes are wanted anyway.
		hs = append(hs, header{"Accept-Encoding", acceptEncoding})
	}
	jarCookies := cookieHeader(req, u)
	if jarCookies != "" && req.Header.Get("Cookie") == "" {
		hs = append(hs, header{"Cookie", jarCookies})
	}
	if t := req.IfModifiedSince; !t.IsZero() && req.Header.Get("If-Modified-Since") == "" {
		hs = append(hs, header{"If-Modified-Since", t.UTC().Format(http.TimeFormat)})
	}
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ck := http.CanonicalHeaderKey(k)
		if removed(req.Header, k) {
			continue // a removal: sent as nothing
		}
		switch ck {
		case "Host", "Range", "Content-Length", "Transfer-Encoding", "Connection":
			continue // the handler's to set
		case "Authorization":
			if creds != nil || auth != "" {
				continue // the URL's or the request's credentials (or the token) win
			}
		case "Cookie":
			if jarCookies != "" {
				// One Cookie field (RFC 6265 §5.4): the request's, then the jar's.
				vs := append(slices.Clone(req.Header[k]), jarCookies)
				if err := checkValue(ck, vs...); err != nil {
					return nil, err
				}
				hs = append(hs, header{ck, strings.Join(vs, "; ")})
				continue
			}
		}
		if !validName(k) {
			return nil, fetch.Errorf(fetch.Refused, "the header name %q is not a token", fetch.Sanitize(k))
		}
		if err := checkValue(ck, req.Header[k]...); err != nil {
			return nil, err
		}
		for _, v := range req.Header[k] {
			hs = append(hs, header{ck, v})
		}
	}
	return hs, nil
}

// removed reports whether h names the field k with no value but empty
// ones: a request to send no such field, not even the handler's own.
// Names are matched without regard to case.
func removed(h http.Header, k string) bool {
	found := false
	for name, vs := range h {
		if !strings.EqualFold(name, k) {
			continue
		}
		for _, v := range vs {
			if v != "" {
				return false
			}
		}
		found = true
	}
	return found
}

// checkValue refuses header values that hold a CR, LF or NUL.
func checkValue(name string, vs ...string) error {
	for _, v := range vs {
		if strings.ContainsAny(v, "\r\n\x00") {
			return fetch.Errorf(fetch.Refused, "the %s header holds a CR, LF or NUL, which would split the request", name)
		}
	}
	return nil
}

// validName reports whether s is a header field name: a token of RFC 9110
// §5.6.2.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isToken(s[i]) {
			return false
		}
	}
	return true
}

// isToken reports whether c may appear in a token.
func isToken(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) < 0
}

// mask returns a header value as it may be shown: credentials as ****.
func mask(name, value string) string {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " ****"
		}
		return "****"
	}
	return value
}

// Plan returns the request line and headers Fetch would send for the
// request's URL, without connecting: "GET /path HTTP/1.1", then one
// "Name: value" line per header, credentials shown as "****". When the
// Client (or, when it chooses none, the environment) names an HTTP proxy
// for the URL, the lines are those sent to the proxy (an absolute
// request-target for http, a CONNECT first for https); a SOCKS proxy's
// handshake is not shown.
// Redirects cannot be planned: only the first hop is shown.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	u := req.URL
	if err := checkLine(u); err != nil {
		return nil, err
	}
	uri := requestURI(u)
	method := "GET"
	if req.Head {
		method = "HEAD"
	}
	offset := req.Offset
	if req.Head {
		offset = 0
	}
	var lines []string
	proxy, err := h.planProxy(req)
	if err != nil {
		return nil, err
	}
	if proxy != nil {
		if u.Scheme == "https" {
			hp := u.HostPort()
			lines = append(lines, "CONNECT "+hp+" HTTP/1.1", "Host: "+hp)
			if proxy.User != nil {
				lines = append(lines, "Proxy-Authorization: Basic ****")
			}
		} else {
			uri = u.Scheme + "://" + hostHeader(u) + uri
		}
	}
	lines = append(lines, method+" "+uri+" HTTP/1.1")
	hs, err := h.headers(req, u, req.Credentials(), offset, req.Head)
	if err != nil {
		return nil, err
	}
	for _, hd := range hs {
		if hd.value == "" && hd.name == "User-Agent" {
			continue // removed: never sent
		}
		lines = append(lines, hd.name+": "+mask(hd.name, hd.value))
	}
	if proxy != nil && u.Scheme == "http" && proxy.User != nil {
		lines = append(lines, "Proxy-Authorization: Basic ****")
	}
	return lines, nil
}
