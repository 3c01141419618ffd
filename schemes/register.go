// Package schemes wires every built-in scheme handler into a fetch.Client,
// explicitly: no init functions, no blank imports.
package schemes

import (
	"io"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/file"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/schemes/gopher"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/schemes/mailto"
	"github.com/rfc1738/fetch/schemes/nntp"
	"github.com/rfc1738/fetch/schemes/prospero"
	"github.com/rfc1738/fetch/schemes/telnet"
	"github.com/rfc1738/fetch/schemes/wais"
)

// Config holds the scheme-specific settings of the built-in handlers. The
// zero value is the default for every field; a handler whose setting is
// empty reads the conventional environment variable where one exists.
type Config struct {
	// HTTP and HTTPS.
	HTTPRaw       bool   // --raw: deliver bodies still content-encoded (default: gzip decoded)
	HTTPUserAgent string // --user-agent; "" means "fetch/<version>"
	HTTPPipeline  int    // --pipeline: requests one connection carries at once (HTTP/1.1 pipelining); 0 or 1 means none
	HTTP2         bool   // --http2: offer HTTP/2 to https servers (default: HTTP/1.1)
	HTTPDigest    bool   // --digest: credentials by Digest (RFC 7616) instead of Basic
	HTTPBearer    string // --oauth2-bearer: a token sent as "Authorization: Bearer" (RFC 6750) to requests that are not hops

	// Gopher and gophers.
	GopherAnswers []string // --gopher-answer, repeated: answers to a Gopher+ +ASK form, in order (default: asked on the terminal)

	// Telnet.
	TelnetLogin          bool      // --telnet-login: type the URL's user and password at the server's prompts (default: advisory only, never typed)
	TelnetLoginPrompt    string    // --telnet-login-prompt: regexp of the login prompt; "" means telnet.DefaultLoginPrompt
	TelnetPasswordPrompt string    // --telnet-password-prompt: regexp of the password prompt; "" means telnet.DefaultPasswordPrompt
	TelnetAdvise         io.Writer // where the URL's advisory login is shown (RFC 1738 §3.8); nil shows nothing (the CLI sets stderr)
	TelnetWidth          int       // the window size told a server that asks (NAWS); 0 means telnet.DefaultWidth (the CLI sets its terminal's)
	TelnetHeight         int       // likewise, the height

	// FTP and FTPS.
	FTPPassword    string // --ftp-password: the anonymous password (an e-mail address); "" means $FETCH_FTP_PASSWORD, else a placeholder
	FTPActive      bool   // --ftp-active: the server connects for data (EPRT/PORT); default passive (EPSV, then PASV)
	FTPExplicitTLS bool   // --ftp-ssl: AUTH TLS on ftp:// URLs (ftps:// is always implicit TLS)
	FTPRaw         bool   // --raw: deliver TYPE A transfers with the wire's CR LF (default: LF)

	// News and NNTP (news, snews, nntp, nntps).
	NNTPServer       string // --nntp-server HOST[:PORT] for news: and snews: URLs; "" means $NNTPSERVER
	NNTPDescriptions bool   // --nntp-descriptions: news:* lists groups with descriptions (LIST NEWSGROUPS); default LIST ACTIVE

	// WAIS.
	WAISChunkSize int  // --wais-chunk-size: bytes per retrieval range; 0 means as many as the init's agreed message size allows, or 10000 when the init is skipped or agrees none (wais.Handler.ChunkSize)
	WAISMaxHits   int  // --wais-max-hits: MaxDocumentsRetrieved of a search; 0 means 40
	WAISNoInit    bool // --wais-no-init: skip the optional init exchange (default: sent)

	// Mailto.
	MailtoRelay string // --smtp-relay: host[:port] or smtp[s]://[user[:pass]@]host[:port]; "" means $FETCH_SMTP
	MailtoFrom  string // --mail-from: the envelope sender; "" means the message's From, else $USER@host

	// Settings are added here, one group per scheme, as schemes arrive.
}

// Register registers every built-in handler in c, configured by cfg.
func Register(c *fetch.Client, cfg Config) {
	web := &httpscheme.Handler{
		Raw: cfg.HTTPRaw, UserAgent: cfg.HTTPUserAgent,
		Pipeline: cfg.HTTPPipeline,
		HTTP2:    cfg.HTTP2,
		Digest:   cfg.HTTPDigest, BearerToken: cfg.HTTPBearer,
	}
	c.Register("http", web)
	c.Register("https", web)
	// One line per scheme: c.Register("name", handler).
	news := &nntp.Handler{Server: cfg.NNTPServer, Descriptions: cfg.NNTPDescriptions}
	for _, s := range []string{"news", "snews", "nntp", "nntps"} {
		c.Register(s, news)
	}
	ftpH := &ftp.Handler{AnonymousPassword: cfg.FTPPassword, Active: cfg.FTPActive, ExplicitTLS: cfg.FTPExplicitTLS, Raw: cfg.FTPRaw}
	c.Register("ftp", ftpH)
	c.Register("ftps", ftpH)
	c.Register("mailto", &mailto.Handler{Relay: cfg.MailtoRelay, From: cfg.MailtoFrom})
	c.Register("telnet", &telnet.Handler{Login: cfg.TelnetLogin, LoginPrompt: cfg.TelnetLoginPrompt, PasswordPrompt: cfg.TelnetPasswordPrompt, Advise: cfg.TelnetAdvise, Width: cfg.TelnetWidth, Height: cfg.TelnetHeight})
	c.Register("prospero", &prospero.Handler{})
	c.Register("file", &file.Handler{})
	c.Register("wais", &wais.Handler{ChunkSize: cfg.WAISChunkSize, MaxHits: cfg.WAISMaxHits, NoInit: cfg.WAISNoInit})
	g := &gopher.Handler{Answers: cfg.GopherAnswers}
	c.Register("gopher", g)
	c.Register("gophers", g)
}
