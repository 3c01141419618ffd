package http

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// authorization returns the Authorization value a request for u sends:
// with credentials, Basic, or in Digest mode the answer to the server's
// last challenge (none before the first); without them, the bearer token
// on requests that are not hops; else "".
func (h *Handler) authorization(req *fetch.Request, u *url.URL, creds *url.Userinfo, method string) string {
	switch {
	case creds != nil && h.Digest:
		return h.digests.answer(u, creds, method, requestURI(u))
	case creds != nil:
		return basicAuth(creds)
	case h.BearerToken != "" && !req.Hop:
		return "Bearer " + h.BearerToken
	}
	return ""
}

// maxChallenges bounds the Digest challenges a Handler remembers.
const maxChallenges = 64

// digestCache holds the Digest challenge each protection space (scheme,
// host and port) sent last, and the nonce count used with it, so that a
// later request answers it at once.
type digestCache struct {
	mu sync.Mutex
	m  map[string]*digestChallenge
}

// spaceKey is the protection space of u: its scheme, host and port.
func spaceKey(u *url.URL) string { return u.Scheme + "://" + u.HostPort() }

// challenged remembers the best Digest challenge of a 401 reply err holds,
// and reports whether there was one to answer.
func (c *digestCache) challenged(u *url.URL, err error) bool {
	var se *statusErr
	if !errors.As(err, &se) || se.re.Code != http.StatusUnauthorized {
		return false
	}
	ch := bestDigest(se.challenges)
	if ch == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxChallenges {
		c.m = make(map[string]*digestChallenge)
	}
	c.m[spaceKey(u)] = ch
	return true
}

// answer returns the Authorization value answering the challenge
// remembered for u's protection space, or "" when there is none.
func (c *digestCache) answer(u *url.URL, creds *url.Userinfo, method, uri string) string {
	c.mu.Lock()
	ch := c.m[spaceKey(u)]
	if ch == nil {
		c.mu.Unlock()
		return ""
	}
	ch.nc++
	nc := ch.nc
	c.mu.Unlock()
	return ch.answer(creds.Username, creds.Password, method, uri, nc, cnonce())
}

// cnonce returns a fresh client nonce.
func cnonce() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// digestChallenge is a Digest challenge (RFC 7616 §3.3).
type digestChallenge struct {
	realm, nonce, opaque string
	algorithm            string // as the server named it, upper case: MD5, SHA-256, SHA-512-256, each maybe -SESS
	qop                  string // "auth", "auth-int", or "" (RFC 2069)
	userhash             bool
	nc                   int // the nonce count used so far
}

// newHash returns the hash of the challenge's algorithm.
func (ch *digestChallenge) newHash() func() hash.Hash {
	switch strings.TrimSuffix(ch.algorithm, "-SESS") {
	case "SHA-256":
		return sha256.New
	case "SHA-512-256":
		return sha512.New512_256
	case "MD5", "":
		return md5.New
	}
	return nil
}

// answer computes the Authorization value for the credentials (RFC 7616
// §3.4).
func (ch *digestChallenge) answer(user, pass, method, uri string, nc int, cnonce string) string {
	newHash := ch.newHash()
	H := func(s string) string {
		h := newHash()
		h.Write([]byte(s))
		return hex.EncodeToString(h.Sum(nil))
	}
	ha1 := H(user + ":" + ch.realm + ":" + pass)
	if strings.HasSuffix(ch.algorithm, "-SESS") {
		ha1 = H(ha1 + ":" + ch.nonce + ":" + cnonce)
	}
	ha2 := H(method + ":" + uri)
	if ch.qop == "auth-int" {
		ha2 = H(method + ":" + uri + ":" + H("")) // GET and HEAD send no body
	}
	ncText := fmt.Sprintf("%08x", nc)
	var response string
	if ch.qop == "" {
		response = H(ha1 + ":" + ch.nonce + ":" + ha2)
	} else {
		response = H(ha1 + ":" + ch.nonce + ":" + ncText + ":" + cnonce + ":" + ch.qop + ":" + ha2)
	}
	name := user
	if ch.userhash {
		name = H(user + ":" + ch.realm)
	}
	var b strings.Builder
	b.WriteString("Digest username=" + quote(name) + ", realm=" + quote(ch.realm) + ", nonce=" + quote(ch.nonce) + ", uri=" + quote(uri))
	if ch.algorithm != "" {
		b.WriteString(", algorithm=" + ch.algorithm)
	}
	b.WriteString(", response=" + quote(response))
	if ch.opaque != "" {
		b.WriteString(", opaque=" + quote(ch.opaque))
	}
	if ch.qop != "" {
		b.WriteString(", qop=" + ch.qop + ", nc=" + ncText + ", cnonce=" + quote(cnonce))
	}
	if ch.userhash {
		b.WriteString(", userhash=true")
	}
	return b.String()
}

// quote returns s as an HTTP quoted-string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// bestDigest returns the strongest Digest challenge among the
// WWW-Authenticate values whose algorithm fetch knows: SHA-512-256, then
// SHA-256, then MD5 (RFC 7616 §3.7: the client uses the first it
// supports of those the server lists by preference; the strongest is
// as good a choice).
func bestDigest(values []string) *digestChallenge {
	var best *digestChallenge
	rank := func(ch *digestChallenge) int {
		switch strings.TrimSuffix(ch.algorithm, "-SESS") {
		case "SHA-512-256":
			return 3
		case "SHA-256":
			return 2
		}
		return 1
	}
	for _, v := range values {
		for _, c := range parseChallenges(v) {
			if !strings.EqualFold(c.scheme, "Digest") {
				continue
			}
			ch := &digestChallenge{
				realm: c.params["realm"], nonce: c.params["nonce"], opaque: c.params["opaque"],
				algorithm: strings.ToUpper(c.params["algorithm"]),
				userhash:  strings.EqualFold(c.params["userhash"], "true"),
			}
			if ch.nonce == "" || ch.newHash() == nil {
				continue
			}
			if q, ok := c.params["qop"]; ok {
				for _, o := range strings.Split(q, ",") {
					o = strings.ToLower(strings.TrimSpace(o))
					if o == "auth" || (o == "auth-int" && ch.qop == "") {
						ch.qop = o
					}
				}
				if ch.qop == "" {
					continue // only qops fetch does not know
				}
			}
			if best == nil || rank(ch) > rank(best) {
				best = ch
			}
		}
	}
	return best
}

// challenge is one auth-scheme with its parameters (RFC 9110 §11.2).
type challenge struct {
	scheme string
	params map[string]string // names in lower case
}

// parseChallenges splits a WWW-Authenticate value into its challenges:
// `Digest realm="a", nonce="b", Basic realm="c"`. A token68 is kept
// under the name "".
func parseChallenges(v string) []challenge {
	var out []challenge
	p := authLexer{s: v}
	for {
		p.skip(" \t,")
		if p.done() {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			return out // malformed: stop
		}
		c := challenge{scheme: scheme, params: map[string]string{}}
		p.skip(" \t")
		if t := p.token68(); t != "" {
			c.params[""] = t
			out = append(out, c)
			continue
		}
		for {
			p.skip(" \t")
			save := p.i
			name := p.token()
			p.skip(" \t")
			if name == "" || !p.eat('=') {
				p.i = save
				break
			}
			p.skip(" \t")
			var val string
			if p.peek() == '"' {
				val = p.quoted()
			} else {
				val = p.token()
			}
			c.params[strings.ToLower(name)] = val
			p.skip(" \t")
			if !p.eat(',') {
				break
			}
			// After a comma: another parameter, or the next challenge
			// (a token followed by a space and no '=').
			p.skip(" \t,")
			save = p.i
			t := p.token()
			p.skip(" \t")
			next := !p.done() && p.peek() != '='
			p.i = save
			if t == "" || next {
				break
			}
		}
		out = append(out, c)
	}
}

// authLexer reads the tokens of an authentication header.
type authLexer struct {
	s string
	i int
}

func (p *authLexer) done() bool { return p.i >= len(p.s) }

func (p *authLexer) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *authLexer) eat(c byte) bool {
	if p.peek() == c && !p.done() {
		p.i++
		return true
	}
	return false
}

func (p *authLexer) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// token reads a token (or a token68, which may hold '/', '+' and a
// trailing '=', but never as the next byte after a token's end here).
func (p *authLexer) token() string {
	start := p.i
	for !p.done() {
		c := p.s[p.i]
		if c <= ' ' || c == ',' || c == '=' || c == '"' || c >= 0x7f {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

// token68 reads a token68 (RFC 9110 §11.2) when one stands here, ended
// by the value's end or a comma; otherwise it reads nothing.
func (p *authLexer) token68() string {
	j := p.i
	for j < len(p.s) && (isAlnum(p.s[j]) || strings.IndexByte("-._~+/", p.s[j]) >= 0) {
		j++
	}
	if j == p.i {
		return ""
	}
	k := j
	for k < len(p.s) && p.s[k] == '=' {
		k++
	}
	e := k
	for e < len(p.s) && (p.s[e] == ' ' || p.s[e] == '\t') {
		e++
	}
	if e < len(p.s) && p.s[e] != ',' {
		return "" // an auth-param (name=value) or another challenge
	}
	if k == j && e < len(p.s) {
		return "" // "Bearer, Digest ...": a scheme with no parameters
	}
	t := p.s[p.i:k]
	p.i = k
	return t
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// quoted reads a quoted-string, unescaping it.
func (p *authLexer) quoted() string {
	p.i++ // the opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
