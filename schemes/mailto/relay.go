package mailto

import (
	"net"
	neturl "net/url"
	"os"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// relay is a parsed SMTP relay setting.
type relay struct {
	host     string
	port     int
	implicit bool          // smtps: TLS from the first byte
	user     *url.Userinfo // credentials for AUTH, from the setting
}

func (r relay) addr() string { return net.JoinHostPort(r.host, strconv.Itoa(r.port)) }

// parseRelay reads a relay setting: "host", "host:port",
// "smtp://[user[:password]@]host[:port]" or "smtps://..." (implicit TLS).
// The default port is 25, or 465 for smtps.
func parseRelay(s string) (relay, error) {
	var r relay
	r.port = 25
	hostport := s
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := neturl.Parse(s)
		if err != nil {
			return r, fetch.Errorf(fetch.Usage, "SMTP relay %q: not a host, host:port or smtp:// URL", redactRelay(s))
		}
		switch strings.ToLower(u.Scheme) {
		case "smtp":
		case "smtps":
			r.implicit, r.port = true, 465
		default:
			return r, fetch.Errorf(fetch.Usage, "SMTP relay: scheme %q is neither smtp nor smtps", u.Scheme)
		}
		if u.User != nil {
			pw, has := u.User.Password()
			r.user = &url.Userinfo{Username: u.User.Username(), Password: pw, HasPassword: has}
		}
		hostport = u.Host
	}
	host, port := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	}
	if host == "" || strings.ContainsAny(host, "/@ ") {
		return r, fetch.Errorf(fetch.Usage, "SMTP relay %q: no host", redactRelay(s))
	}
	r.host = host
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return r, fetch.Errorf(fetch.Usage, "SMTP relay %q: bad port %q", redactRelay(s), port)
		}
		r.port = n
	}
	return r, nil
}

// redactRelay hides the password of a relay URL.
func redactRelay(s string) string {
	if u, err := neturl.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = neturl.UserPassword(u.User.Username(), "****")
			return strings.Replace(u.String(), "%2A%2A%2A%2A", "****", 1)
		}
	}
	return s
}

// relaySetting returns the configured relay, else $FETCH_SMTP.
func (h *Handler) relaySetting() string {
	if h.Relay != "" {
		return h.Relay
	}
	return os.Getenv("FETCH_SMTP")
}
