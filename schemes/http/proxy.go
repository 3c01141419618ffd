package http

import (
	"context"
	"net/http"
	neturl "net/url"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// route is how one hop goes: direct (an http URL, or an https URL to no
// proxy of any kind), which the h1 transport may take (see Handler.once),
// or over net/http's, speaking to the HTTP proxy proxy (nil for none);
// dial is the request whose DialContext makes the hop's connections.
type route struct {
	direct bool
	proxy  *neturl.URL
	chosen bool // the Client chose the proxy (fetch.Client.Proxy)
	dial   *fetch.Request
}

// route decides how the hop to u (req's URL) goes. When the Client
// chooses proxies, its choice is the only one: an http URL goes to an
// HTTP proxy as an absolute-form request, which net/http writes, the
// proxy dialed directly; any other pair (a SOCKS proxy, an https URL) is
// tunnelled by req.DialContext itself, under either transport. Otherwise
// the Handler's Proxy (by default the environment) chooses, as net/http
// does.
func (h *Handler) route(req *fetch.Request, u *url.URL) (route, error) {
	p, chosen, err := req.Proxy()
	if err != nil {
		return route{}, err
	}
	if chosen {
		if p != nil && (p.Scheme == "http" || p.Scheme == "https") && u.Scheme == "http" {
			return route{proxy: p, chosen: true, dial: req.Direct()}, nil
		}
		return route{direct: (u.Scheme == "http" || u.Scheme == "https" && p == nil) && plainHost(u.Host), chosen: true, dial: req}, nil
	}
	if u.Scheme == "http" && h.Proxy == nil && plainHost(u.Host) && !envHTTPProxy() {
		return route{direct: true, dial: req}, nil
	}
	p, perr := h.proxyFunc()(&http.Request{URL: netURL(u), Header: http.Header{}})
	if perr != nil {
		// net/http's transport asks again and reports it.
		return route{dial: req}, nil
	}
	return route{direct: (u.Scheme == "http" || u.Scheme == "https") && p == nil && plainHost(u.Host), proxy: p, dial: req}, nil
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
	if p != nil && p.Scheme != "http" && p.Scheme != "https" {
		return nil, nil // SOCKS: the lines are those sent through the tunnel
	}
	return p, nil
}
