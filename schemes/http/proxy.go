package http

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	neturl "net/url"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// route is how one hop goes. own reports that the h1 transport may take
// it (see Handler.once): an http or https URL whose connections go direct
// or through a tunnel (an HTTP CONNECT or a SOCKS5 tunnel) that ownDial's
// DialContext makes, through the proxy via (nil: direct). Otherwise it
// goes over net/http's transport, speaking to the HTTP proxy proxy (nil
// for none; a proxy net/http tunnels through when it carries the hop, as
// it does with Handler.HTTP2 and NetHTTP), its connections made by dial's
// DialContext.
type route struct {
	own     bool
	ownDial *fetch.Request
	via     *neturl.URL
	proxy   *neturl.URL
	chosen  bool // the Client chose the proxy (fetch.Client.Proxy)
	dial    *fetch.Request
}

// route decides how the hop to u (req's URL) goes. When the Client
// chooses proxies, its choice is the only one: an http URL goes to an
// HTTP proxy as an absolute-form request, which net/http writes, the
// proxy dialed directly; any other pair (a SOCKS proxy, an https URL) is
// tunnelled by req.DialContext itself, under either transport. Otherwise
// the Handler's Proxy (by default the environment) chooses, as net/http
// does: an http URL to an HTTP proxy goes over net/http, and the other
// pairs, which the h1 transport carries, through the tunnel that
// req.Through(proxy) dials (net/http makes its own, when it carries them).
func (h *Handler) route(req *fetch.Request, u *url.URL) (route, error) {
	p, chosen, err := req.Proxy()
	if err != nil {
		return route{}, err
	}
	web := u.Scheme == "http" || u.Scheme == "https"
	if chosen {
		if p != nil && isHTTPProxy(p) && u.Scheme == "http" {
			return route{proxy: p, chosen: true, dial: req.Direct()}, nil
		}
		return route{own: web && plainHost(u.Host), ownDial: req, via: p, chosen: true, dial: req}, nil
	}
	if u.Scheme == "http" && h.Proxy == nil && plainHost(u.Host) && !envHTTPProxy() {
		return route{own: true, ownDial: req, dial: req}, nil
	}
	p, perr := h.proxyFunc()(&http.Request{URL: netURL(u), Header: http.Header{}})
	if perr != nil {
		// net/http's transport asks again and reports it.
		return route{dial: req}, nil
	}
	switch {
	case p == nil:
		return route{own: web && plainHost(u.Host), ownDial: req, dial: req}, nil
	case isHTTPProxy(p) && u.Scheme == "http", !tunnels(p):
		return route{proxy: p, dial: req}, nil
	}
	return route{own: web && plainHost(u.Host), ownDial: req.Through(p), via: p, proxy: p, dial: req}, nil
}

// isHTTPProxy reports whether p is an HTTP proxy, which takes an http
// URL's request in absolute form.
func isHTTPProxy(p *neturl.URL) bool { return p.Scheme == "http" || p.Scheme == "https" }

// tunnels reports whether fetch.Request.DialContext can tunnel through p:
// an http, https, socks5 or socks5h proxy.
func tunnels(p *neturl.URL) bool {
	switch p.Scheme {
	case "http", "https", "socks5", "socks5h":
		return true
	}
	return false
}

// proxyKey is the context key of a hop's proxy when the Client chose it.
type proxyKey struct{}

// withRoute returns ctx carrying the request that dials the hop's
// connections and, when the Client chose it, the hop's proxy for the
// transport's Proxy function.
func withRoute(ctx context.Context, rt route) context.Context {
	ctx = withRequest(ctx, rt.dial)
	if rt.chosen {
		ctx = context.WithValue(ctx, proxyKey{}, rt.proxy)
	}
	return ctx
}

// transportProxy is the transport's Proxy function: the Client's choice
// for the request when it made one, else the Handler's.
func (h *Handler) transportProxy(hr *http.Request) (*neturl.URL, error) {
	if p, ok := hr.Context().Value(proxyKey{}).(*neturl.URL); ok {
		return p, nil
	}
	return h.proxyFunc()(hr)
}

// planProxy returns the HTTP proxy a plan shows lines for: the Client's
// choice when it makes one, else the Handler's.
func (h *Handler) planProxy(req *fetch.Request) (*neturl.URL, error) {
	p, chosen, err := req.Proxy()
	if err != nil {
		return nil, err
	}
	if !chosen {
		p, err = h.proxyFunc()(&http.Request{URL: netURL(req.URL), Header: http.Header{}})
		if err != nil {
			return nil, fetch.Errorf(fetch.Usage, "proxy setting: %v", err)
		}
	}
	if p != nil && !isHTTPProxy(p) {
		return nil, nil // SOCKS: the lines are those sent through the tunnel
	}
	return p, nil
}

// viaTag returns the suffix of the h1 pool's keys for connections
// tunnelled through p: "" for none (direct), else the proxy as the trace
// may show it, with a digest of its credentials, so that a tunnel made
// with one user's is never lent to another's.
func viaTag(p *neturl.URL) string {
	if p == nil {
		return ""
	}
	tag := " through " + p.Redacted()
	if p.User != nil {
		sum := sha256.Sum256([]byte(p.User.String()))
		tag += " (credentials " + hex.EncodeToString(sum[:4]) + ")"
	}
	return tag
}
