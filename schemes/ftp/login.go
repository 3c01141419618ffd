package ftp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// defaultAnonPassword is the anonymous password when neither the Handler
// nor FETCH_FTP_PASSWORD gives one: an e-mail address, as RFC 1738 §3.2.1
// asks, that names no one.
const defaultAnonPassword = "fetch@example.com"

// ErrNeedPassword is the cause of the Kind Auth error Fetch returns when
// the URL names a user without a password, the server asks for one, and
// the request has no Prompt to ask the user: a caller can test for it with
// errors.Is, get a password, and fetch again with Request.User set.
var ErrNeedPassword = errors.New("the server asks for a password")

// login is who logs in, and with what (RFC 1738 §3.2.1).
type login struct {
	user    string
	pass    string
	hasPass bool
	anon    bool // no user was given: "anonymous" with an e-mail address
}

// key names the pool a connection logged in this way belongs to.
func (l login) key(scheme, hostport string) string {
	// The password is part of the key so that a connection is never
	// handed to a request that could not have logged in itself.
	return scheme + "\x00" + hostport + "\x00" + l.user + "\x00" + strconv.FormatBool(l.hasPass) + "\x00" + l.pass
}

// credentials decides the login for req: the URL's user and password; else
// the request's (Request.User); else anonymous. A URL user without a
// password takes the request's password when the request names the same
// user.
func (h *Handler) credentials(req *fetch.Request) login {
	u := req.Credentials()
	if u == nil {
		return login{user: "anonymous", pass: h.anonPassword(), hasPass: true, anon: true}
	}
	l := login{user: u.Username, pass: u.Password, hasPass: u.HasPassword}
	if !l.hasPass && req.User != nil && req.User != u && req.User.Username == u.Username && req.User.HasPassword {
		l.pass, l.hasPass = req.User.Password, true
	}
	return l
}

// anonPassword returns the configured anonymous password.
func (h *Handler) anonPassword() string {
	if h.AnonymousPassword != "" {
		return h.AnonymousPassword
	}
	if p := os.Getenv("FETCH_FTP_PASSWORD"); p != "" {
		return p
	}
	return defaultAnonPassword
}

// tlsConfig returns the TLS settings for req's host.
func (h *Handler) tlsConfig(req *fetch.Request) *tls.Config {
	conf := &tls.Config{}
	if req.TLS != nil {
		conf = req.TLS.Clone()
	}
	if conf.ServerName == "" {
		conf.ServerName = req.URL.Host
	}
	if conf.ClientSessionCache == nil {
		// One cache per control connection: its data connections resume
		// its TLS session, as servers such as vsftpd require
		// (require_ssl_reuse), and never a session of another server on
		// the same host.
		conf.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	}
	return conf
}

// dial opens a control connection to req's server and logs in: greeting,
// TLS (implicit for ftps, AUTH TLS when asked), USER, PASS, PBSZ and PROT
// under TLS, and PWD to record the login directory for reuse. The
// connection is watched by ctx when dial returns.
func (h *Handler) dial(ctx context.Context, req *fetch.Request, lg login) (*ctrl, error) {
	raw, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
	if err != nil {
		return nil, err
	}
	c := newCtrl(raw, req.Trace)
	c.setIdle(req)
	c.watch(ctx, req.Trace)
	if err := h.logIn(ctx, c, req, lg); err != nil {
		c.unwatch()
		c.close(false)
		return nil, err
	}
	return c, nil
}

func (h *Handler) logIn(ctx context.Context, c *ctrl, req *fetch.Request, lg login) error {
	if req.URL.Scheme == "ftps" {
		if err := c.startTLS(ctx, h.tlsConfig(req)); err != nil {
			return err
		}
	}
	code, msg, err := c.read("greeting")
	if err == nil && code == 120 { // "ready in a few minutes": wait once
		code, msg, err = c.read("greeting")
	}
	if err != nil {
		return err
	}
	if code != 220 {
		if code/100 == 4 {
			return replyErr(fetch.Unavailable, "greeting", code, msg, "the server is not available")
		}
		return replyErr(fetch.Protocol, "greeting", code, msg, "")
	}
	if req.URL.Scheme == "ftp" && h.ExplicitTLS {
		code, msg, err := c.cmd("AUTH TLS")
		if err != nil {
			return err
		}
		if code != 234 {
			return replyErr(fetch.Unsupported, "AUTH TLS", code, msg, "the server offers no TLS")
		}
		if err := c.startTLS(ctx, h.tlsConfig(req)); err != nil {
			return err
		}
	}
	if err := c.authenticate(req, lg); err != nil {
		return err
	}
	if c.tls {
		if _, _, err := c.expect("PBSZ 0", "2"); err != nil {
			return err
		}
		if _, _, err := c.expect("PROT P", "2"); err != nil {
			return err
		}
		c.protP = true
	}
	code, msg, err = c.cmd("PWD")
	if err != nil {
		return err
	}
	c.loginDir = ""
	if code == 257 {
		if dir, ok := parsePWD(msg); ok && strings.HasPrefix(dir, "/") {
			c.loginDir = dir
		}
	}
	if c.loginDir == "" {
		c.trace.Notef("the login directory is not an absolute path: this connection will not be reused (RFC 1738 §3.2.5)")
	}
	return nil
}

// startTLS makes the control connection a TLS client.
func (c *ctrl) startTLS(ctx context.Context, conf *tls.Config) error {
	tc := tls.Client(c.raw, conf)
	if err := tc.HandshakeContext(ctx); err != nil {
		return &fetch.Error{Kind: fetch.Connect, Err: fmt.Errorf("TLS handshake: %w", err)}
	}
	c.trace.Notef("%s with %s", tls.VersionName(tc.ConnectionState().Version), conf.ServerName)
	c.setConn(tc)
	c.tls, c.tlsConf = true, conf
	return nil
}

// authenticate sends USER, and PASS when the server asks for it. A user
// without a password is asked for one through req.Prompt, or refused with
// an error of Kind Auth when no one can answer.
func (c *ctrl) authenticate(req *fetch.Request, lg login) error {
	line := "USER " + lg.user
	code, msg, err := c.cmd(line)
	if err != nil {
		return err
	}
	switch code {
	case 230, 202:
		return nil
	case 331:
	case 332:
		return replyErr(fetch.Auth, line, code, msg, "the server asks for an account (ACCT), which a URL cannot give")
	default:
		return c.unexpected(line, code, msg)
	}
	pass := lg.pass
	if !lg.hasPass {
		if req.Prompt == nil {
			return fetch.Errorf(fetch.Auth, "%w for user %q and none was given: %s: server replied %w", ErrNeedPassword, lg.user, line, &fetch.ReplyError{Code: code, Text: msg})
		}
		p, err := req.Prompt(fmt.Sprintf("Password for %s@%s", lg.user, req.URL.Host), true)
		if err != nil {
			return fetch.Wrap(fetch.Auth, fmt.Errorf("asking for the password of %q: %w", lg.user, err))
		}
		pass = p
	}
	c.secret = pass
	code, msg, err = c.cmdShown("PASS "+pass, "PASS ****")
	if err != nil {
		return err
	}
	switch code {
	case 230, 202:
		return nil
	case 332:
		return replyErr(fetch.Auth, "PASS ****", code, msg, "the server asks for an account (ACCT), which a URL cannot give")
	}
	switch {
	case code == 421:
		return replyErr(fetch.Unavailable, "PASS ****", code, msg, fmt.Sprintf("login as %q: the server is not available", lg.user))
	case code/100 == 5 || code/100 == 4:
		return replyErr(fetch.Auth, "PASS ****", code, msg, fmt.Sprintf("login as %q refused", lg.user))
	}
	return c.unexpected("PASS ****", code, msg)
}

// parsePWD extracts the directory from a 257 reply's text: the quoted
// name, with "" standing for one quote (RFC 959 Appendix II).
func parsePWD(msg string) (string, bool) {
	msg = strings.SplitN(msg, "\n", 2)[0]
	i := strings.IndexByte(msg, '"')
	if i < 0 {
		return "", false
	}
	var b strings.Builder
	for j := i + 1; j < len(msg); j++ {
		if msg[j] != '"' {
			b.WriteByte(msg[j])
			continue
		}
		if j+1 < len(msg) && msg[j+1] == '"' {
			b.WriteByte('"')
			j++
			continue
		}
		return b.String(), true
	}
	return "", false
}
