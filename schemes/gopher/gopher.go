// Package gopher implements the gopher scheme of RFC 1738 §3.4: the Gopher
// protocol of RFC 1436 and its Gopher+ extensions (selectors, searches,
// menus, attribute blocks, alternate views and +ASK forms), and gophers,
// the same protocol over TLS.
//
// A Handler fetches one item per connection: it sends the decoded selector,
// then TAB and the search string when the URL has one, then TAB and the
// Gopher+ string when the URL has one, then CRLF, and streams the reply.
// Text and menu items that the server ends RFC 1436's way (a lone "." line)
// are delivered without that line and with dot-stuffing undone; when the
// server simply closes instead, the bytes are delivered exactly as sent.
//
// An item read until the server closes, or to the size its Gopher+ header
// gave, and copied with io.Copy to an io.ReaderFrom such as an *os.File,
// goes from the socket to the file without passing through the process
// (splice(2) on Linux); text and menus are read as above.
//
// ParseItem and MenuReader turn a menu into items with their URLs, and
// WriteMenu renders one for reading on a terminal.
package gopher

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// Handler fetches gopher and gophers URLs. The zero Handler is ready to
// use; it is safe for concurrent use.
type Handler struct {
	// MaxLine bounds a menu line, a Gopher+ header line and a server's
	// error line, in bytes. Zero means 16 KiB.
	MaxLine int
	// MaxMenu bounds the body of a menu or search reply (types 1 and 7), in
	// bytes, and what of it is held back; a longer menu fails with Kind
	// Protocol. Zero means 64 MiB.
	MaxMenu int64
	// HoldMemory is how much of a text item is held in memory, while the
	// handler cannot yet tell whether the server dot-stuffs it, before the
	// rest is spilled to a temporary file. Zero means 1 MiB.
	HoldMemory int
	// MaxHold bounds the part of a text item held back (in memory and on
	// disk) until the server closes; past it the fetch fails with Kind
	// Protocol. Zero means 4 GiB.
	MaxHold int64
	// TempDir is where held-back text spills; "" means os.TempDir().
	TempDir string
	// Answers are the answers to a Gopher+ +ASK form, one per question, in
	// order. When there are fewer answers than questions the rest are asked
	// through Request.Prompt. Default: none.
	Answers []string

	// sessions lets a gophers connection resume the TLS session of an
	// earlier one to the same server.
	sessions wire.TLSSessions
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

func (h *Handler) maxLine() int {
	if h.MaxLine > 0 {
		return h.MaxLine
	}
	return 16 << 10
}

func (h *Handler) maxMenu() int64 {
	if h.MaxMenu > 0 {
		return h.MaxMenu
	}
	return 64 << 20
}

func (h *Handler) holdMemory() int {
	if h.HoldMemory > 0 {
		return h.HoldMemory
	}
	return 1 << 20
}

func (h *Handler) maxHold() int64 {
	if h.MaxHold > 0 {
		return h.MaxHold
	}
	return 4 << 30
}

// Plan returns the line or lines Fetch would send, TAB characters
// included, without connecting. A type-7 item without a search string
// shows "<search>" where the asked words would go; a +ASK form shows the
// attribute request, then the form with one "<answer N>" per answer given.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	g := req.URL.Gopher()
	if err := checkType(g.Type); err != nil {
		return nil, err
	}
	if err := checkView(g); err != nil {
		return nil, err
	}
	if isForm(g) {
		lines := []string{g.Selector + "\t!", g.Selector + "\t+\t1", "+-1"}
		for i := range h.Answers {
			lines = append(lines, "<answer "+strconv.Itoa(i+1)+">")
		}
		return append(lines, "."), nil
	}
	if g.Type == "7" && !g.HasSearch {
		return []string{g.Selector + "\t<search>"}, nil
	}
	return []string{requestLine(g.Selector, g.Search, g.HasSearch, g.Plus, g.HasPlus)}, nil
}

// Fetch connects to the URL's host, sends the selector line and returns
// the reply as a Resource whose Body streams it. Kind is fetch.ResourceMenu for
// menus and search replies (types 1 and 7). A reply that is a gopher error
// item (type 3) or a Gopher+ error is an error of Kind NotFound (or Other
// for "try again later") carrying the server's text. Types 8 and T
// (telnet sessions), i (information) and 3 are references, not data: they
// fail with Kind Unsupported.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	g := req.URL.Gopher()
	if err := checkType(g.Type); err != nil {
		if g.Type == "8" || g.Type == "T" {
			it := Item{Type: g.Type[0], Selector: g.Selector, Host: req.URL.Host, Port: req.URL.EffectivePort()}
			if u := it.URL(); u != "" {
				return nil, fetch.Errorf(fetch.Unsupported, "gopher type %s is a reference to a telnet session, not data: open %s instead", g.Type, u)
			}
		}
		return nil, err
	}
	if err := checkView(g); err != nil {
		return nil, err
	}
	if isForm(g) {
		return h.fetchForm(ctx, req, g)
	}
	search, hasSearch := g.Search, g.HasSearch
	if g.Type == "7" && !hasSearch {
		s, err := ask(req, "search words for "+displaySelector(g.Selector), false)
		if err != nil {
			return nil, err
		}
		search, hasSearch = s, true
	}
	line := requestLine(g.Selector, search, hasSearch, g.Plus, g.HasPlus)
	s, err := h.open(ctx, req, []string{line}, nil)
	if err != nil {
		return nil, err
	}
	var res *fetch.Resource
	if g.HasPlus && g.Plus != "" {
		res, err = h.plusReply(s, req, g)
	} else {
		res, err = h.plainReply(s, req, g)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	if g.HasPlus && strings.HasPrefix(g.Plus, "!") {
		// An item's attributes: also as the Resource's Header.
		if err := withAttributes(res); err != nil {
			res.Body.Close()
			return nil, err
		}
	}
	if req.Head {
		res.Body.Close()
		res.Body = fetch.NoBody
	}
	return res, nil
}

// checkType refuses the item types that name no data object.
func checkType(t string) error {
	switch t {
	case "8", "T":
		return fetch.Errorf(fetch.Unsupported, "gopher type %s is a reference to a telnet session, not data", t)
	case "i":
		return fetch.Errorf(fetch.Unsupported, "gopher type i is an information line, not data")
	case "3":
		return fetch.Errorf(fetch.Unsupported, "gopher type 3 is an error item, not data")
	case "2":
		return fetch.Errorf(fetch.Unsupported, "gopher type 2 is a CSO phone-book server, which speaks another protocol")
	}
	if len(t) != 1 {
		return fetch.Errorf(fetch.Malformed, "gopher type %q is not one character", t)
	}
	return nil
}

// checkView refuses what must not reach the request line (RFC 1738 §6):
// CR, LF and NUL anywhere, and a TAB other than the two separators.
func checkView(g url.Gopher) error {
	for _, s := range []string{g.Type, g.Selector, g.Search, g.Plus} {
		if strings.ContainsAny(s, "\r\n\x00\t") {
			return fetch.Errorf(fetch.Refused, "the gopher request would hold a decoded CR, LF, NUL or TAB (RFC 1738 §6)")
		}
	}
	return nil
}

// isForm reports whether the URL names a Gopher+ item with a +ASK form
// (§3.4.4: a Gopher+ string of "?").
func isForm(g url.Gopher) bool { return g.HasPlus && g.Plus == "?" }

// requestLine builds the line sent for an item, without CRLF.
func requestLine(sel, search string, hasSearch bool, plus string, hasPlus bool) string {
	var b strings.Builder
	b.Grow(len(sel) + len(search) + len(plus) + 2)
	b.WriteString(sel)
	if hasSearch || hasPlus {
		b.WriteByte('\t')
		b.WriteString(search)
	}
	if hasPlus {
		b.WriteByte('\t')
		b.WriteString(plus)
	}
	return b.String()
}

// ask asks the user through req.Prompt, refusing an answer that could not
// go on a protocol line.
func ask(req *fetch.Request, label string, secret bool) (string, error) {
	if req.Prompt == nil {
		return "", fetch.Errorf(fetch.Usage, "%s: give it in the URL or option, or run on a terminal to be asked", label)
	}
	s, err := req.Prompt(label, secret)
	if err != nil {
		return "", fetch.Wrap(fetch.Usage, err)
	}
	if strings.ContainsAny(s, "\r\n\x00\t") {
		return "", fetch.Errorf(fetch.Refused, "the answer holds a CR, LF, NUL or TAB (RFC 1738 §6)")
	}
	return s, nil
}

// session is one connection carrying one request: the buffered reader of
// the reply, and the means to end it.
type session struct {
	conn   net.Conn // the TLS conn for gophers, else the *wire.Conn
	br     *bufio.Reader
	clock  *lineClock // under br; nil until the request is sent
	idle   time.Duration
	stop   func() bool
	cancel context.CancelCauseFunc
	// ctx is the session's own context, under the request's: the line
	// clock ends it when a line is too slow in coming.
	ctx  context.Context
	once sync.Once
}

// Close stops watching the context and closes the connection; it is safe
// to call more than once.
func (s *session) Close() error {
	s.once.Do(func() {
		s.stop()
		if s.clock != nil {
			s.clock.stop()
		}
		s.cancel(nil)
		s.conn.Close()
	})
	return nil
}

// open dials the URL's host (with TLS for gophers), sends lines each ended
// by CRLF, and returns the session reading the reply. The trace shows
// shown (with secrets masked) in place of lines when it is not nil.
func (h *Handler) open(ctx context.Context, req *fetch.Request, lines, shown []string) (*session, error) {
	for _, l := range lines {
		if strings.ContainsAny(l, "\r\n\x00") {
			return nil, fetch.Errorf(fetch.Refused, "the gopher request would hold a decoded CR, LF or NUL (RFC 1738 §6)")
		}
	}
	u := req.URL
	fc, err := wire.Dial(ctx, req, "tcp", u.HostPort())
	if err != nil {
		return nil, err
	}
	// The session's own context: the line clock ends it when a line is
	// too slow in coming.
	sctx, cancel := context.WithCancelCause(ctx)
	s := &session{conn: fc, stop: fc.Watch(sctx), cancel: cancel, ctx: sctx}
	if u.Scheme == "gophers" {
		cfg := h.sessions.Config(req.TLS, u.Host)
		tc := tls.Client(fc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			s.Close()
			k := fetch.KindOf(err)
			if k != fetch.Timeout {
				k = fetch.Connect
			}
			return nil, fetch.Wrap(k, err)
		}
		req.Trace.Notef("TLS %s with %s", tls.VersionName(tc.ConnectionState().Version), cfg.ServerName)
		s.conn = tc
	}
	bw := bufio.NewWriter(s.conn)
	tw := textproto.NewWriter(bw)
	if shown == nil {
		shown = lines
	}
	for i, l := range lines {
		req.Trace.Send(sanitize(traceable(shown[i])))
		if err := tw.PrintfLine("%s", l); err != nil {
			s.Close()
			return nil, readErr(err)
		}
	}
	// The reply is awaited now: a server that writes it in pieces with
	// Nagle's algorithm on waits for the first to be acknowledged, and
	// after a TLS handshake the kernel delays acknowledgements.
	wire.QuickAck(s.conn)
	size := 64 << 10
	if m := h.maxLine() + 8; m > size {
		size = m
	}
	s.idle = req.EffectiveIdleTimeout()
	s.clock = newLineClock(s.conn, s.idle, cancel)
	s.br = bufio.NewReaderSize(s.clock, size)
	return s, nil
}

// traceable shows a protocol line with its TABs visible.
func traceable(l string) string { return strings.ReplaceAll(l, "\t", "<TAB>") }

// displaySelector names a selector in a prompt or message.
func displaySelector(sel string) string {
	if sel == "" {
		return "the top-level search"
	}
	return sanitize(sel)
}
