package nntp

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// what says which resource a URL names.
type what int

const (
	articleByNumber what = iota // nntp://host/group/N
	articleByID                 // news:unique@host
	overview                    // nntp://host/group, news:group
	groupList                   // news:*, news:comp.*, nntp://host/
)

// target is what a URL means: where to connect and what to ask.
type target struct {
	host    string // the server's name or address, also for TLS verification
	port    int
	tls     bool
	what    what
	group   string // articleByNumber, overview
	number  int64  // articleByNumber
	id      string // articleByID, without angle brackets
	wildmat string // groupList: "" for all groups
	descr   bool   // groupList: LIST NEWSGROUPS (descriptions)
}

// server is the URL of the target's server, with its port and no path:
// "nntp://host:port" (nntps for TLS).
func (t *target) server() *url.URL {
	scheme := "nntp"
	if t.tls {
		scheme = "nntps"
	}
	return &url.URL{Scheme: scheme, Hier: true, Host: t.host, Port: t.port}
}

// addr is the server's "host:port", to dial.
func (t *target) addr() string { return t.server().HostPort() }

// maxArg bounds a group name or message-id (RFC 3977 §3.6 caps message-ids
// at 250 octets; group names are shorter in practice).
const maxArg = 497

// resolve works out the target of a URL. The configured server of news
// and snews URLs is looked up (and its absence is an error) only when
// needServer.
func (h *Handler) resolve(u *url.URL, needServer bool) (*target, error) {
	t := &target{descr: h.Descriptions}
	switch u.Scheme {
	case "nntp", "nntps":
		t.tls = u.Scheme == "nntps"
		t.host, t.port = u.Host, u.EffectivePort()
		if u.Host == "" {
			return nil, fetch.Errorf(fetch.Malformed, "%s URL without a host", u.Scheme)
		}
		group, num, hasNum := strings.Cut(u.Path, "/")
		v := u.NNTP()
		switch {
		case group == "":
			t.what = groupList
		case hasNum && num != "":
			if !v.HasArticle || v.Article < 0 || !digits(num) {
				return nil, fetch.Errorf(fetch.Malformed, "article number %q is not a number (RFC 1738 §3.7)", num)
			}
			t.what, t.group, t.number = articleByNumber, v.Group, v.Article
		default:
			t.what, t.group = overview, v.Group
		}
	case "news", "snews":
		t.tls = u.Scheme == "snews"
		v := u.News()
		named := false // the URL names its server (RFC 5538's news://host/...)
		if strings.HasPrefix(u.Path, "//") {
			var err error
			if v, named, err = h.newsHost(t, u, v); err != nil {
				return nil, err
			}
		}
		switch {
		case v.Article != "":
			t.what, t.id = articleByID, v.Article
		case v.Group == "*":
			t.what = groupList
		case strings.ContainsAny(v.Group, "*?[") || v.Group == "":
			// RFC 1738 names only "*"; a wildmat such as comp.* lists
			// the matching groups, as RFC 5538 §2.2 allows.
			if v.Group == "" {
				return nil, fetch.Errorf(fetch.Malformed, "news URL names neither a group nor an article")
			}
			t.what, t.wildmat = groupList, v.Group
		default:
			t.what, t.group = overview, v.Group
		}
		if needServer && !named {
			if err := h.server(t); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fetch.Errorf(fetch.Unsupported, "scheme %q is not handled by the nntp handler", u.Scheme)
	}
	if err := checkArgs(t); err != nil {
		return nil, err
	}
	return t, nil
}

// newsHost handles RFC 5538's form news://host[:port]/group-or-id (and
// snews://...), which RFC 1738 does not define and the url package parses
// as an opaque path: it takes the server from the URL, applying the port
// policy the Client could not (a port below 1024 that belongs to another
// protocol is refused), and returns the view of what follows. An empty
// host ("news:///group") means the configured server; an empty rest means
// the group list.
func (h *Handler) newsHost(t *target, u *url.URL, v url.News) (url.News, bool, error) {
	s := v.Group
	if s == "" {
		s = v.Article
	}
	hostport, rest, _ := strings.Cut(strings.TrimPrefix(s, "//"), "/")
	var nv url.News
	switch {
	case strings.IndexByte(rest, '@') >= 0:
		nv.Article = strings.TrimSuffix(strings.TrimPrefix(rest, "<"), ">")
	case rest == "":
		nv.Group = "*"
	default:
		nv.Group = rest
	}
	if hostport == "" {
		return nv, false, nil
	}
	host, n, ok := t.splitServer(hostport)
	if !ok || strings.ContainsAny(host, "@/ \t\r\n\x00") {
		return nv, false, fetch.Errorf(fetch.Malformed, "%s URL names the server %q, which is not HOST or HOST:PORT (RFC 5538)", u.Scheme, hostport)
	}
	if err := (fetch.Policy{}).Check(&url.URL{Scheme: u.Scheme, Host: host, Port: n}); err != nil {
		return nv, false, err
	}
	t.host, t.port = host, n
	return nv, true, nil
}

// ErrNoServer is the cause of the failure of a news URL (which names no
// host) when no news server is configured: neither Handler.Server nor the
// NNTPSERVER environment variable.
var ErrNoServer = errors.New("news URLs name no server, and none is configured (Handler.Server or the NNTPSERVER environment variable)")

// server fills in the configured news server: Handler.Server, else
// $NNTPSERVER, with port 119 (563 for snews) unless one is given.
func (h *Handler) server(t *target) error {
	s := strings.TrimSpace(h.Server)
	src := "the news server"
	if s == "" {
		s = strings.TrimSpace(os.Getenv("NNTPSERVER"))
		src = "NNTPSERVER"
	}
	if s == "" {
		return &fetch.Error{Kind: fetch.Usage, Err: ErrNoServer}
	}
	host, n, ok := t.splitServer(s)
	if !ok {
		return fetch.Errorf(fetch.Usage, "%s %q is not HOST or HOST:PORT", src, s)
	}
	t.host, t.port = host, n
	return nil
}

// splitServer reads a server as "host", "host:port" or "[v6]:port"; the
// port is 119 (563 for TLS) unless given. ok is false when there is no
// host or the port is not one.
func (t *target) splitServer(s string) (host string, port int, ok bool) {
	p := "119"
	if t.tls {
		p = "563"
	}
	host, pp, err := net.SplitHostPort(s)
	if err == nil {
		p = pp
	} else {
		// No port: a name, an address, or a bracketed IPv6 literal.
		host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	}
	port, err = strconv.Atoi(p)
	return host, port, err == nil && port >= 1 && port <= 65535 && host != ""
}

// checkArgs refuses a group name or message-id that would not survive as
// one argument of one protocol line: CR, LF, NUL and TAB are refused as
// RFC 1738 §6 asks (they would smuggle a command); other white space or
// control characters, and an over-long argument, make the URL malformed.
func checkArgs(t *target) error {
	for _, a := range []struct{ name, v string }{{"group", t.group}, {"message-id", t.id}, {"group pattern", t.wildmat}} {
		if a.v == "" {
			continue
		}
		if err := checkLine(a.v); err != nil {
			return err
		}
		if len(a.v) > maxArg {
			return fetch.Errorf(fetch.Malformed, "the %s is %d bytes long, more than an NNTP line can carry", a.name, len(a.v))
		}
		for i := 0; i < len(a.v); i++ {
			if c := a.v[i]; c <= ' ' || c == 0x7f {
				return fetch.Errorf(fetch.Malformed, "the %s %q holds a space or control character", a.name, a.v)
			}
		}
		if a.name == "message-id" && strings.ContainsAny(a.v, "<>") {
			return fetch.Errorf(fetch.Malformed, "the message-id %q holds '<' or '>' (RFC 1738 §3.6 gives it without them)", a.v)
		}
	}
	return nil
}

// checkLine refuses a protocol line holding a CR, LF, NUL or TAB (RFC 1738
// §6, CONTRACT §4): checked again at the point each line is written.
func checkLine(s string) error {
	if i := strings.IndexAny(s, "\r\n\x00\t"); i >= 0 {
		name := map[byte]string{'\r': "CR", '\n': "LF", 0: "NUL", '\t': "TAB"}[s[i]]
		return fetch.Errorf(fetch.Refused, "an NNTP command would hold a decoded %s (RFC 1738 §6)", name)
	}
	return nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// commands returns the lines that ask for the target, in order, as Fetch
// sends them once the session is ready (the GROUP line is skipped when the
// connection already has the group selected). For an overview the range
// comes from the GROUP reply, so it is shown as "OVER low-high".
func (t *target) commands(head bool) []string {
	switch t.what {
	case articleByNumber:
		verb := "ARTICLE"
		if head {
			verb = "HEAD"
		}
		return []string{"GROUP " + t.group, verb + " " + strconv.FormatInt(t.number, 10)}
	case articleByID:
		verb := "ARTICLE"
		if head {
			verb = "HEAD"
		}
		return []string{verb + " <" + t.id + ">"}
	case overview:
		if head {
			return []string{"GROUP " + t.group}
		}
		return []string{"GROUP " + t.group, "OVER low-high"}
	case groupList:
		if head {
			return nil
		}
		return []string{t.listCommand()}
	}
	return nil
}

// listCommand is the LIST line for a group list.
func (t *target) listCommand() string {
	cmd := "LIST ACTIVE"
	if t.descr {
		cmd = "LIST NEWSGROUPS"
	}
	if t.wildmat != "" {
		cmd += " " + t.wildmat
	}
	return cmd
}
