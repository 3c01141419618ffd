// Package nntp implements the news and nntp schemes of RFC 1738 §3.6 and
// §3.7, and their secure variants snews and nntps (RFC 5538), over NNTP
// (RFC 3977, with AUTHINFO USER/PASS of RFC 4643).
//
// What a URL delivers:
//
//	nntp://host/group/N    the article: headers, blank line, body
//	nntp://host/group      the group's overview, one line per article
//	nntp://host/           the server's group list
//	news:unique@host       the article <unique@host> from the configured server
//	news:group             the group's overview
//	news:*                 the group list (news:comp.* the matching groups)
//
// Every multi-line reply is streamed dot-unstuffed with lines ending "\n";
// one that ends before its final "." line is an incomplete transfer. The
// news and snews schemes name no host: they use Handler.Server, else the
// NNTPSERVER environment variable, as news readers do.
package nntp

import (
	"context"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// Handler fetches news articles, overviews and group lists for the nntp,
// nntps, news and snews schemes. It keeps idle connections for reuse, one
// pool per server and credentials; Close closes them. The zero Handler is
// ready to use.
type Handler struct {
	// Server is the news server for news: and snews: URLs, "HOST" or
	// "HOST:PORT". Empty means the NNTPSERVER environment variable; when
	// that is empty too, such URLs fail with Kind Usage. The default port
	// is 119 for news and 563 (TLS) for snews.
	Server string
	// Descriptions makes group lists use LIST NEWSGROUPS, "group TAB
	// description" lines, instead of LIST ACTIVE's "group high low status"
	// lines. Default: false.
	Descriptions bool
	// MaxIdle is how many idle connections are kept per server. Zero means
	// 2; a negative value keeps none.
	MaxIdle int
	// IdleTime is how long an idle connection is kept. Zero means 30
	// seconds.
	IdleTime time.Duration

	poolOnce sync.Once
	idle     *wire.Pool[poolKey, *session] // see pool.go
	// sessions lets a TLS connection resume the session of an earlier
	// one to the same server.
	sessions wire.TLSSessions
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// Plan returns the NNTP commands the request means, in order, without
// connecting. Session commands sent only when the server asks (MODE
// READER, AUTHINFO) are not listed; an overview's range, known only from
// the GROUP reply, appears as "OVER low-high".
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	t, err := h.resolve(req.URL, false)
	if err != nil {
		return nil, err
	}
	return t.commands(req.Head), nil
}

// ServerHost returns the name of the host a fetch of u connects to: the
// URL's host for nntp and nntps (and RFC 5538's news://host/...), the
// configured server's (Server, else NNTPSERVER) for news and snews, and ""
// when there is none. A command
// line uses it to look credentials up in ~/.netrc for news URLs, which
// carry no host.
func (h *Handler) ServerHost(u *url.URL) string {
	t, err := h.resolve(u, true)
	if err != nil {
		if u.Scheme == "nntp" || u.Scheme == "nntps" {
			return u.Host
		}
		return ""
	}
	return t.host
}

// Fetch connects (or reuses an idle connection), asks for what the URL
// names and returns it. The caller closes the Body, which returns the
// connection to the pool once the reply's final "." has been read.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	t, err := h.resolve(req.URL, true)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fetch.Classify(context.Cause(ctx))
	}
	for attempt := 0; ; attempt++ {
		s, reused, err := h.checkout(ctx, req, t)
		if err != nil {
			return nil, err
		}
		res, err := h.do(s, req, t)
		if err == nil {
			return res, nil
		}
		// A pooled connection the server has meanwhile closed fails
		// before its first reply: try once more on a new one. After a
		// refusal (no such article, say) the connection stays usable.
		stale := reused && s.broken && s.replies == 0 && ctx.Err() == nil && attempt == 0
		h.release(s, !stale)
		if !stale {
			return nil, err
		}
		req.Trace.Notef("the idle connection had gone stale; connecting again")
	}
}

// do sends the commands for t on s and returns the resource. On success
// the session belongs to the resource (released by its Body's Close or
// here for a body-less resource); on failure the caller releases it.
func (h *Handler) do(s *session, req *fetch.Request, t *target) (*fetch.Resource, error) {
	res := &fetch.Resource{URL: req.URL, Size: -1, Extra: map[string]string{}}
	switch t.what {
	case articleByNumber, articleByID:
		return h.article(s, req, t, res)
	case overview:
		return h.overview(s, req, t, res)
	case groupList:
		return h.groupList(s, req, t, res)
	}
	return nil, fetch.Errorf(fetch.Unsupported, "nothing to fetch")
}

// article asks for an article (ARTICLE, or HEAD for req.Head), by number
// in its group or by message-id.
func (h *Handler) article(s *session, req *fetch.Request, t *target, res *fetch.Resource) (*fetch.Resource, error) {
	res.Kind, res.MediaType = fetch.ResourceArticle, "message/rfc822"
	verb, code := "ARTICLE", 220
	if req.Head {
		verb, code = "HEAD", 221
	}
	arg := "<" + t.id + ">"
	if t.what == articleByNumber {
		if _, _, _, err := s.selectGroup(t.group, false); err != nil {
			return nil, err
		}
		arg = strconv.FormatInt(t.number, 10)
		res.Extra[ExtraGroup] = t.group
	}
	r, err := s.cmd(verb + " " + arg)
	if err != nil {
		return nil, err
	}
	if r.Code != code {
		if r.Code == 412 {
			s.group = ""
		}
		return nil, replyError(verb+" "+arg, r)
	}
	if f := strings.Fields(r.Text); len(f) >= 2 {
		res.Extra[ExtraArticle] = f[0]
		res.Extra[ExtraMessageID] = clip(f[1])
	}
	if req.Head {
		hdr, err := s.readShortBlock(maxHeadBytes)
		if err != nil {
			return nil, err
		}
		headMeta(res, hdr)
		res.Body = fetch.NoBody
		h.release(s, true)
		return res, nil
	}
	res.Body = newDotBody(h, s, "article")
	return res, nil
}

// overview selects the group and asks for the overview of its articles
// (OVER, or RFC 2980's XOVER where OVER is unknown).
func (h *Handler) overview(s *session, req *fetch.Request, t *target, res *fetch.Resource) (*fetch.Resource, error) {
	res.Kind, res.MediaType = fetch.ResourceList, "text/plain"
	count, low, high, err := s.selectGroup(t.group, true)
	if err != nil {
		return nil, err
	}
	res.Extra[ExtraGroup] = t.group
	res.Extra[ExtraList] = "overview"
	res.Extra[ExtraCount] = strconv.FormatInt(count, 10)
	res.Extra[ExtraLow] = strconv.FormatInt(low, 10)
	res.Extra[ExtraHigh] = strconv.FormatInt(high, 10)
	if req.Head || count == 0 || high < low {
		res.Body = fetch.NoBody
		if !req.Head {
			res.Size = 0
		}
		h.release(s, true)
		return res, nil
	}
	rng := strconv.FormatInt(low, 10) + "-" + strconv.FormatInt(high, 10)
	var r reply
	for _, verb := range []string{"OVER", "XOVER"} {
		if verb == "OVER" && s.noOver {
			continue
		}
		r, err = s.cmd(verb + " " + rng)
		if err != nil {
			return nil, err
		}
		if r.Code != 500 || verb == "XOVER" {
			break
		}
		s.noOver = true // RFC 2980's XOVER, then
	}
	switch r.Code {
	case 224:
		res.Body = newDotBody(h, s, "overview")
		return res, nil
	case 420, 423:
		// No articles in the range after all (expired meanwhile).
		res.Body, res.Size = fetch.NoBody, 0
		h.release(s, true)
		return res, nil
	}
	return nil, replyError("OVER "+rng, r)
}

// groupList asks for the list of groups (LIST ACTIVE, or the bare LIST of
// RFC 977 servers) or of their descriptions (LIST NEWSGROUPS).
func (h *Handler) groupList(s *session, req *fetch.Request, t *target, res *fetch.Resource) (*fetch.Resource, error) {
	res.Kind, res.MediaType = fetch.ResourceList, "text/plain"
	res.Extra[ExtraList] = "active"
	if t.descr {
		res.Extra[ExtraList] = "newsgroups"
	}
	if req.Head {
		res.Body = fetch.NoBody
		h.release(s, true)
		return res, nil
	}
	line := t.listCommand()
	r, err := s.cmd(line)
	if err != nil {
		return nil, err
	}
	if (r.Code == 500 || r.Code == 501) && line == "LIST ACTIVE" {
		// An RFC 977 server knows only the bare LIST.
		line = "LIST"
		if r, err = s.cmd(line); err != nil {
			return nil, err
		}
	}
	if r.Code != 215 {
		return nil, replyError(line, r)
	}
	res.Body = newDotBody(h, s, "group list")
	return res, nil
}

// maxHeadBytes bounds the header block a HEAD command may return.
const maxHeadBytes = 256 << 10

// headMeta fills a resource's metadata from an article's header block:
// the Date as ModTime, and a few headers as Extra.
func headMeta(res *fetch.Resource, hdr []byte) {
	h, err := parseHeader(hdr)
	if err != nil {
		return
	}
	if d, err := mail.ParseDate(h.Get("Date")); err == nil {
		res.ModTime = d
	}
	for _, k := range []string{"Message-Id", "Subject", "From", "Newsgroups"} {
		if v := h.Get(k); v != "" {
			res.Extra[ExtraHeaderPrefix+strings.ToLower(k)] = clip(v)
		}
	}
}
