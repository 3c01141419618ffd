// Package ftp implements the ftp and ftps schemes of RFC 1738 §3.2 on a small
// FTP client (RFC 959, with RFC 2428's EPSV and EPRT, RFC 3659's SIZE, MDTM
// and REST, and RFC 4217's AUTH TLS), written on net/textproto.
//
// A URL is carried out exactly as §3.2.2 says: one CWD per <cwd> segment,
// decoded, in order (an empty segment is a CWD with an empty argument), then
// NLST for ";type=d" or an empty name, else TYPE and RETR. Control
// connections are pooled per server and user, and a reused one first
// returns to its login directory, as §3.2.5 allows only when that can be
// done reliably.
//
// The client is our own rather than github.com/jlaffaye/ftp because that
// library stands in the way of exact access: its Login sends the password
// before the server asks for one (so there is no prompting on 331), it adds
// FEAT, OPTS UTF8 and TYPE I of its own to the command sequence, it reads a
// whole NLST into memory, its debug output shows the password, it has no
// active mode, and its data connections take no context.
package ftp

import (
	"context"
	"errors"
	"mime"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// Handler fetches ftp and ftps URLs. The zero Handler is ready to use:
// anonymous logins give FETCH_FTP_PASSWORD (or a placeholder address) as
// password, data connections are passive, and control connections are
// pooled. Call Close to end the pooled connections. A Handler is safe for
// concurrent use; each transfer in progress has a control connection of
// its own.
type Handler struct {
	// AnonymousPassword is the password of anonymous logins: by RFC 1738
	// §3.2.1 the user's e-mail address. Empty means the environment's
	// FETCH_FTP_PASSWORD, else "fetch@example.com".
	AnonymousPassword string
	// Active makes the server connect to the client for data (EPRT, then
	// PORT). The default, false, is passive mode: EPSV, then PASV.
	Active bool
	// ExplicitTLS secures ftp URLs with AUTH TLS (RFC 4217) and fails when
	// the server offers no TLS. The default, false, speaks plain FTP to ftp
	// URLs; ftps URLs always use implicit TLS (port 990).
	ExplicitTLS bool
	// NoReuse closes each control connection after its transfer. The
	// default, false, pools them.
	NoReuse bool
	// MaxIdle caps the idle control connections kept per server and user.
	// Zero means 8.
	MaxIdle int
	// IdleTime is how long an idle control connection is kept. Zero means
	// 30 seconds.
	IdleTime time.Duration
	// Raw delivers TYPE A transfers as the wire has them, NVT-ASCII with
	// CR LF line ends. The default, false, converts CR LF to LF.
	Raw bool

	poolOnce sync.Once
	idle     *wire.Pool[string, *ctrl] // see pool.go
	unpiped  sync.Map                  // pool keys of servers that lost a pipelined command (pipeline.go)
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// job is what a URL asks for, decided before any connection.
type job struct {
	cwds  []string
	name  string
	list  bool   // NLST
	typ   string // "A" or "I" for a file
	why   string // how typ was chosen, when guessed
	guess bool
}

func newJob(req *fetch.Request) (job, error) {
	u := req.URL
	if u.Scheme != "ftp" && u.Scheme != "ftps" {
		return job{}, fetch.Errorf(fetch.Unsupported, "the ftp handler does not speak %s", u.Scheme)
	}
	if u.Host == "" {
		return job{}, fetch.Errorf(fetch.Malformed, "an ftp URL needs a host")
	}
	v := u.FTP()
	j := job{cwds: v.Cwd, name: v.Name}
	for _, s := range append(append([]string(nil), v.Cwd...), v.Name) {
		if strings.ContainsAny(s, "\r\n\x00") {
			return job{}, fetch.Errorf(fetch.Refused, "the URL path holds a decoded CR, LF or NUL (RFC 1738 §6)")
		}
	}
	switch {
	case v.Typecode == "d" || v.Name == "":
		j.list = true
	case v.Typecode == "a" || v.Typecode == "i":
		j.typ = strings.ToUpper(v.Typecode)
	default:
		j.typ, j.why = guessType(v.Name)
		j.guess = true
	}
	if req.Offset > 0 && !req.Head && j.typ == "A" {
		return job{}, fetch.Errorf(fetch.Unsupported, "cannot resume a TYPE A (text) transfer at byte %d: its line ends are converted, so its offsets are not the file's; resume with ;type=i in the URL", req.Offset)
	}
	return j, nil
}

// Fetch logs in (or reuses a pooled connection), sends one CWD per <cwd>
// segment, and returns the file (TYPE, SIZE, RETR) or the name list
// (NLST). The Body is complete only when the server's final 226 or 250
// arrived after the data and, in TYPE I, SIZE's count of bytes did too.
// A file's SIZE and EPSV go out together, in one write; a server that
// loses the second is sent one command at a time from then on.
//
// In TYPE A the server sends text as NVT-ASCII, lines ended by CR LF
// (RFC 959 §3.1.1.1); the Body has local line ends, CR LF turned into LF
// (a lone CR stays), unless Raw is set. SIZE is not asked then: servers
// refuse it in ASCII mode or count other bytes than they send, so the
// Size is -1.
//
// With req.Head, SIZE (in TYPE I, the file's size on the server) and MDTM
// are asked. With req.IfModifiedSince, MDTM is asked before RETR, and a
// file not modified since then fails with Kind NotModified; with
// req.WantModTime, MDTM is asked too, for Resource.ModTime. With req.Offset, REST asks the server to resume there;
// Resource.Offset says whether it did. Resuming a TYPE A transfer is
// refused (Kind Unsupported): its offsets count converted bytes, not the
// file's; fetch such a file with ";type=i" to resume it.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	j, err := newJob(req)
	if err != nil {
		return nil, err
	}
	mimeWarm.Do(func() { go mime.TypeByExtension(".txt") })
	var res *fetch.Resource
	err = h.session(ctx, req, j.cwds, func(c *ctrl, key string) (bool, error) {
		var err error
		res, err = h.run(ctx, c, req, j, key)
		// A Resource with a Body holds c until the Body is closed.
		return err == nil && res.Body != fetch.NoBody, err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// mimeWarm starts, once, the loading of the system's MIME tables (some
// milliseconds of reading files, which the first mime.TypeByExtension
// does and every other waits for) in the background, so that it overlaps
// the first login instead of delaying the first file.
var mimeWarm sync.Once

// isReply reports whether err is a reply of the server (the control
// connection is then still in step).
func isReply(err error) bool {
	var re *fetch.ReplyError
	return errors.As(err, &re)
}

// run carries out the job on a logged-in connection: the directory, then
// the name list, the metadata or the file.
func (h *Handler) run(ctx context.Context, c *ctrl, req *fetch.Request, j job, key string) (*fetch.Resource, error) {
	if err := c.enter(j.cwds); err != nil {
		return nil, err
	}
	switch {
	case j.list:
		return h.list(ctx, c, req, j, key)
	case req.Head:
		return h.head(c, req, j)
	}
	return h.retrieve(ctx, c, req, j, key)
}

// enter sends one CWD per <cwd> segment, unless c is in that directory
// already.
func (c *ctrl) enter(cwds []string) error {
	if len(c.cwds) > 0 {
		c.trace.Notef("already in the directory of this URL")
		return nil
	}
	for _, d := range cwds {
		line := "CWD " + d
		c.cwds = append(c.cwds, d)
		code, msg, err := c.cmd(line)
		if err != nil {
			return err
		}
		if code/100 != 2 {
			// Where a failed CWD leaves us is unknown: mark the path
			// so that it never equals a URL's (a NUL cannot be in one).
			c.cwds = append(c.cwds, "\x00")
			if d == "" {
				return emptyCWDRefused(code, msg)
			}
			return c.unexpected(line, code, msg)
		}
	}
	return nil
}

// emptyCWDRefused is the error of a server that refuses the empty CWD an
// empty <cwd> segment stands for ("ftp://h//etc/motd", RFC 1738 §3.2.2):
// a URL whose author most likely meant an absolute path, which is written
// "%2F". The Kind is NotFound for any permanent refusal (vsftpd says 550,
// proftpd 501): the directory the URL names cannot be entered.
func emptyCWDRefused(code int, msg string) error {
	k := replyKind(code)
	if code/100 == 5 {
		k = fetch.NotFound
	}
	return replyErr(k, "CWD ", code, msg, "the URL's empty path segment asks for a CWD with an empty argument, RFC 1738 §3.2.2, and this server refuses it; for an absolute path write its first / as %2F: ftp://host/%2Fdir/file")
}

// list sends NLST (for ";type=d", with the name) and returns the names.
func (h *Handler) list(ctx context.Context, c *ctrl, req *fetch.Request, j job, key string) (*fetch.Resource, error) {
	res := &fetch.Resource{URL: req.URL, Kind: fetch.ResourceDirectory, Size: -1, Body: fetch.NoBody}
	if req.Head {
		return res, nil
	}
	if err := c.setType("A"); err != nil {
		return nil, err
	}
	line := "NLST"
	if j.name != "" {
		line += " " + j.name
	}
	t, err := h.transfer(ctx, c, req, key, line, 0, nil)
	if err != nil {
		return nil, err
	}
	res.Body = newListing(t)
	return res, nil
}

// fileResource is the Resource of the job's file, before any transfer.
func fileResource(req *fetch.Request, j job) *fetch.Resource {
	return &fetch.Resource{
		URL: req.URL, Kind: fetch.ResourceFile, Size: -1, Body: fetch.NoBody,
		MediaType: mime.TypeByExtension(path.Ext(j.name)),
		Extra:     map[string]string{ExtraType: j.typ},
	}
}

// head asks the file's size (SIZE, in TYPE I: the size of the file as the
// server stores it, which servers refuse or miscount in TYPE A) and its
// modification time (MDTM).
func (h *Handler) head(c *ctrl, req *fetch.Request, j job) (*fetch.Resource, error) {
	res := fileResource(req, j)
	if err := c.setType("I"); err != nil {
		return nil, err
	}
	size, sizeCode, sizeMsg, err := c.size(j.name)
	if err != nil {
		return nil, err
	}
	res.Size = size
	mt, mdtmCode, mdtmMsg, err := c.mdtm(j.name)
	if err != nil {
		return nil, err
	}
	res.ModTime = mt
	absent := func(code int) bool { return code == 450 || code == 550 || code == 551 }
	if size < 0 && mt.IsZero() && (sizeCode == 550 || mdtmCode == 550 || absent(sizeCode) && absent(mdtmCode)) {
		// Neither SIZE nor MDTM knows the name: one said 550, or
		// both said it is unavailable (goftp.io/server says 450).
		if sizeCode == 550 {
			return nil, replyErr(fetch.NotFound, "SIZE "+j.name, sizeCode, sizeMsg, "")
		}
		return nil, replyErr(fetch.NotFound, "MDTM "+j.name, mdtmCode, mdtmMsg, "")
	}
	return res, nil
}

// retrieve sends TYPE, SIZE in TYPE I, REST for an offset, and RETR, and
// returns the file.
func (h *Handler) retrieve(ctx context.Context, c *ctrl, req *fetch.Request, j job, key string) (*fetch.Resource, error) {
	res := fileResource(req, j)
	if j.guess {
		c.trace.Notef("no typecode: TYPE %s, for %s (RFC 1738 §3.2.3)", j.typ, j.why)
	}
	if err := c.setType(j.typ); err != nil {
		return nil, err
	}
	size := int64(-1)
	var ds *dataSetup // the data connection, when asked for already
	switch {
	case j.typ == "I" && h.pipelines(c, req, key):
		var err error
		if size, ds, err = c.sizeAndPassive(j.name); err != nil {
			if errors.Is(err, errPipeLost) {
				h.unpiped.Store(key, true)
			}
			return nil, err
		}
	case j.typ == "I":
		var err error
		if size, _, _, err = c.size(j.name); err != nil {
			return nil, err
		}
	}
	mt, err := c.unchanged(req, j.name)
	if err != nil {
		return nil, err
	}
	res.ModTime = mt
	offset := req.Offset
	if offset > 0 && size >= 0 && offset > size {
		return nil, fetch.Errorf(fetch.Other, "cannot resume at byte %d: the file has only %d (SIZE)", offset, size)
	}
	if offset > 0 && offset == size {
		// Nothing is left to fetch.
		res.Offset, res.Size = size, 0
		return res, nil
	}
	t, err := h.transfer(ctx, c, req, key, "RETR "+j.name, offset, ds)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		t.want = size - t.offset
		res.Size = t.want
	}
	res.Offset = t.offset
	res.Body = t
	if j.typ == "A" && !h.Raw {
		res.Body = newASCII(t)
	}
	return res, nil
}

// transfer opens the data connection (unless ds is one asked for
// already), sends REST when rest > 0 (right before the transfer command,
// as RFC 959 §4.1.3 requires), sends the transfer command and returns the
// body once the server said 125 or 150. A passive data connection is
// dialed once the transfer command is written, and the command's reply
// read once it is made. The body's offset is rest when the server
// accepted it, else 0.
func (h *Handler) transfer(ctx context.Context, c *ctrl, req *fetch.Request, key, line string, rest int64, ds *dataSetup) (*transfer, error) {
	if ds == nil {
		var err error
		if ds, err = c.openData(req, h.Active); err != nil {
			return nil, err
		}
	}
	if rest > 0 {
		code, _, err := c.cmd("REST " + strconv.FormatInt(rest, 10))
		if err != nil {
			ds.abort()
			return nil, err
		}
		if code != 350 {
			c.trace.Notef("the server cannot resume: fetching from the start")
			rest = 0
		}
	}
	if err := c.send(line, line); err != nil {
		ds.abort()
		return nil, err
	}
	// The server's reply to the transfer command may wait for the data
	// connection, so the dial comes first. When it fails, the server has
	// refused the transfer (and closed its port), or waits for a
	// connection that will not come: dataFailed tells which.
	if err := ds.dial(ctx, req); err != nil {
		return nil, c.dataFailed(line, err)
	}
	code, msg, err := c.read(line)
	if err != nil {
		ds.abort()
		return nil, err
	}
	if code != 125 && code != 150 {
		ds.abort()
		return nil, c.unexpected(line, code, msg)
	}
	dc, err := ds.finish(ctx, req, c)
	if err != nil {
		// The server waits to send: this connection is out of step, and
		// the caller closes it (the error is not a reply).
		return nil, err
	}
	return &transfer{ctx: ctx, h: h, c: c, key: key, cmd: fetch.Sanitize(line), data: dc, want: -1, offset: rest}, nil
}

// unchanged asks MDTM when req is conditional (IfModifiedSince) or wants
// the time (WantModTime), returns the time (zero when the server cannot
// tell), and fails with Kind NotModified when the file is not newer than
// asked. A server that cannot tell gets the file.
func (c *ctrl) unchanged(req *fetch.Request, name string) (time.Time, error) {
	if req.IfModifiedSince.IsZero() && !req.WantModTime {
		return time.Time{}, nil
	}
	mt, code, msg, err := c.mdtm(name)
	if err != nil || req.IfModifiedSince.IsZero() || mt.IsZero() || mt.After(req.IfModifiedSince) {
		return mt, err
	}
	return mt, replyErr(fetch.NotModified, "MDTM "+name, code, msg, "not modified since "+req.IfModifiedSince.UTC().Format(time.RFC3339))
}

// dataGrace is how long the control connection's reply is awaited after
// the data connection failed: a server that refuses the transfer (550 for
// a missing file) closes its passive port and says why at once.
const dataGrace = 2 * time.Second

// dataFailed decides what a failed data connection means, from the
// control connection's reply to the transfer command: a refusal (4xx,
// 5xx) is the failure, and leaves the connection in step; otherwise (the
// server waits for the connection, or says nothing in time) the dial's
// failure is, and the connection is out of step.
func (c *ctrl) dataFailed(line string, dialErr error) error {
	code, msg, err := c.readWithin(line, min(dataGrace, c.idle))
	if err != nil || code/100 != 4 && code/100 != 5 {
		return dialErr
	}
	c.trace.Notef("the data connection failed (%v): the server's reply decides", dialErr)
	return c.unexpected(line, code, msg)
}

// setType sends TYPE unless the connection is in that type already.
func (c *ctrl) setType(t string) error {
	if c.typ == t {
		return nil
	}
	if _, _, err := c.expect("TYPE "+t, "2"); err != nil {
		return err
	}
	c.typ = t
	return nil
}

// size asks SIZE; it returns -1 when the server cannot tell, and the
// reply.
func (c *ctrl) size(name string) (int64, int, string, error) {
	if c.noSize {
		return -1, 0, "", nil
	}
	code, msg, err := c.cmd("SIZE " + name)
	if err != nil {
		return -1, 0, "", err
	}
	return c.sizeReply(code, msg), code, msg, nil
}

// sizeReply reads SIZE's reply: the size, or -1 when the server cannot
// tell. A server without SIZE is not asked again.
func (c *ctrl) sizeReply(code int, msg string) int64 {
	if code == 213 {
		if n, err := strconv.ParseInt(strings.TrimSpace(msg), 10, 64); err == nil && n >= 0 {
			return n
		}
		return -1
	}
	if code == 500 || code == 502 {
		c.noSize = true
	}
	return -1
}

// mdtm asks MDTM (RFC 3659 §3); the zero Time when the server cannot tell.
func (c *ctrl) mdtm(name string) (time.Time, int, string, error) {
	code, msg, err := c.cmd("MDTM " + name)
	if err != nil || code != 213 {
		return time.Time{}, code, msg, err
	}
	return parseMDTM(msg), code, msg, nil
}
