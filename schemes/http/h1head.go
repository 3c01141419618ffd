package http

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"os"
	"strconv"
	"strings"
)

// readResponse reads a reply's head from br and frames its body, as
// net/http's ReadResponse does for a request of the method, with the same
// results and errors: the status line and header fields parsed as
// net/textproto parses them (obs-fold joined with a space, duplicate
// fields kept in order, names canonical), then the framing of RFC 9112
// §6 as net/http decides it (Transfer-Encoding, duplicate Content-Length,
// Connection: close, HTTP/1.0). It reads the whole head into memory first
// and makes one string of it, of which the status and the field values
// are parts: a few allocations per reply instead of one per line and
// value. The caller bounds the head by the reader beneath br. A body
// framed by Content-Length is read through lb, when it is not nil: the
// caller makes it with what holds the body. When keep is not nil, the
// head's bytes, as read, are copied into it.
func readResponse(br *bufio.Reader, method string, lb *lengthBody, keep *[]byte) (*http.Response, error) {
	head, n, rerr := peekHead(br)
	if keep != nil && rerr == nil {
		*keep = append((*keep)[:0], head...)
	}
	resp, err := parseHead(head, rerr != nil)
	if rerr != nil {
		// A line the head has so far that net/http would refuse is
		// reported before the read's error, as net/http reads and
		// parses line by line; but not before a deadline, which cut
		// the last line short.
		if err != nil && err != errHeadCut && !errors.Is(rerr, os.ErrDeadlineExceeded) {
			return nil, err
		}
		if rerr == io.EOF {
			rerr = io.ErrUnexpectedEOF
		}
		return nil, rerr
	}
	br.Discard(n)
	if err != nil {
		return nil, err
	}
	if err := frame(resp, br, method, lb); err != nil {
		return nil, err
	}
	return resp, nil
}

// errHeadCut is parseHead's answer for a head without its blank line.
var errHeadCut = errors.New("the head is cut short")

// peekHead returns the head that starts br's input, up to and including
// the blank line that ends it, and the number of bytes it spans in br
// (to Discard once it is parsed). The head usually comes whole in the
// buffer and is returned from it, a view valid until the next read of br.
// A head longer than the buffer is read line by line into memory, each
// line kept with a CRLF ending. On a read error the head so far is
// returned with it, and nothing is to be discarded.
func peekHead(br *bufio.Reader) (head []byte, n int, err error) {
	scanned := 0 // the bytes of whole lines already looked at
	for {
		buf, _ := br.Peek(br.Buffered())
		for {
			i := bytes.IndexByte(buf[scanned:], '\n')
			if i < 0 {
				break
			}
			line := buf[scanned : scanned+i]
			scanned += i + 1
			if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
				return buf[:scanned], scanned, nil
			}
		}
		if len(buf) >= br.Size() {
			return readHeadLines(br)
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			buf, _ = br.Peek(br.Buffered())
			return buf, 0, err
		}
	}
}

// readHeadLines reads a head longer than br's buffer, line by line as
// bufio's ReadLine splits them.
func readHeadLines(br *bufio.Reader) (head []byte, n int, err error) {
	var line []byte
	for {
		l, more, err := br.ReadLine()
		if err != nil {
			if len(line) > 0 {
				head = append(head, line...)
			}
			return head, 0, err
		}
		line = append(line, l...)
		if more {
			continue
		}
		head = append(head, line...)
		head = append(head, "\r\n"...)
		if len(line) == 0 {
			return head, 0, nil
		}
		line = line[:0]
	}
}

// parseHead parses a head (the status line, the header fields, the blank
// line) into a Response whose body is still to be framed. cut says the
// head was read to an error before its end: its last line may lack its
// ending, and when every line parses the result is errHeadCut.
func parseHead(head []byte, cut bool) (*http.Response, error) {
	if len(head) == 0 {
		return nil, errHeadCut
	}
	s := string(head)
	line, rest, ok := nextLine(s, cut)
	if !ok {
		return nil, errHeadCut
	}
	var resp http.Response // made on the heap with its values, below
	proto, status, ok := strings.Cut(line, " ")
	if !ok {
		return nil, badString("malformed HTTP response", line)
	}
	resp.Proto = proto
	resp.Status = strings.TrimLeft(status, " ")
	code, _, _ := strings.Cut(resp.Status, " ")
	if len(code) != 3 {
		return nil, badString("malformed HTTP status code", code)
	}
	var err error
	resp.StatusCode, err = strconv.Atoi(code)
	if err != nil || resp.StatusCode < 0 {
		return nil, badString("malformed HTTP status code", code)
	}
	if resp.ProtoMajor, resp.ProtoMinor, ok = http.ParseHTTPVersion(resp.Proto); !ok {
		return nil, badString("malformed HTTP version", resp.Proto)
	}

	// The first field may not start with a space: there is nothing
	// before it to continue.
	if rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		line, _, ok := nextLine(rest, true)
		if ok && len(line) > 80 {
			return nil, errMessageTooLarge
		}
		return nil, textproto.ProtocolError(fmt.Sprintf("malformed MIME header initial line: %q", line))
	}
	// The fields are gathered first, and put in the map once their
	// number is known: a head of a few fields, as most are, finds its
	// repeated names by comparing them, not by a lookup of each name.
	var stack [16]header
	fields := stack[:0]
	if lines := strings.Count(rest, "\n") - 1; lines > len(stack) {
		fields = make([]header, 0, lines) // the lines left, less the blank one
	}
	for {
		line, rest, ok = nextLine(rest, cut)
		if !ok {
			return nil, errHeadCut
		}
		if line == "" {
			break
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 {
			return nil, textproto.ProtocolError(fmt.Sprintf("malformed MIME header: missing colon: %q", line))
		}
		kv := trimLeft(line)
		colon -= len(line) - len(kv) // the colon stays, after the space trimmed
		kv = trimRight(kv)
		// obs-fold: the lines that start with a space or tab continue
		// this field, each joined with one space, trimmed.
		if rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			var b strings.Builder
			b.WriteString(kv)
			for rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
				var more string
				more, rest, ok = nextLine(rest, cut)
				b.WriteByte(' ')
				b.WriteString(trim(more))
				if !ok {
					break
				}
			}
			kv = b.String()
		}
		k, v := kv[:colon], kv[colon+1:]
		key, ok := canonicalKey(k)
		if !ok {
			return nil, textproto.ProtocolError(fmt.Sprintf("malformed MIME header line: %q", kv))
		}
		for i := 0; i < len(v); i++ {
			if !valueBytes[v[i]] {
				// textproto quotes the line with its name made
				// canonical, in place.
				return nil, textproto.ProtocolError(fmt.Sprintf("malformed MIME header line: %q", key+kv[len(k):]))
			}
		}
		fields = append(fields, header{key, trimLeft(v)})
	}
	h := make(http.Header, len(fields))
	// One backing array, a value for each name; for a head of a few
	// fields, in the Response's allocation.
	var (
		r    *http.Response
		vals []string
	)
	if len(fields) <= 10 {
		rv := new(struct {
			resp http.Response
			vals [10]string
		})
		r, vals = &rv.resp, rv.vals[:len(fields)]
	} else {
		r, vals = new(http.Response), make([]string, len(fields))
	}
	few := len(fields) <= len(stack)
	pragma := false
	for i, f := range fields {
		pragma = pragma || f.name == "Pragma"
		seen := false
		if few {
			for _, g := range fields[:i] {
				if g.name == f.name {
					seen = true
					break
				}
			}
		} else {
			_, seen = h[f.name]
		}
		if seen {
			h[f.name] = append(h[f.name], f.value)
		} else {
			vals[i] = f.value
			h[f.name] = vals[i : i+1 : i+1]
		}
	}
	resp.Header = h
	*r = resp
	if pragma && h["Pragma"][0] == "no-cache" {
		if _, ok := h["Cache-Control"]; !ok {
			h["Cache-Control"] = []string{"no-cache"}
		}
	}
	return r, nil
}

// nextLine splits off the first line of s, without its LF or CRLF, as
// bufio's ReadLine gives it. Without a line ending, the line is whole
// only when the head was cut (ok is false otherwise).
func nextLine(s string, cut bool) (line, rest string, ok bool) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, "", cut && s != ""
	}
	line, rest = s[:i], s[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest, true
}

// trim trims leading and trailing spaces and tabs, as textproto does each
// line of a field.
func trim(s string) string { return trimRight(trimLeft(s)) }

// trimLeft trims leading spaces and tabs.
func trimLeft(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// trimRight trims trailing spaces and tabs.
func trimRight(s string) string {
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// errMessageTooLarge is net/textproto's error for a malformed first
// field line too long to quote.
var errMessageTooLarge = errors.New("message too large")

// badString is net/http's error for a malformed status line.
func badString(what, val string) error { return fmt.Errorf("%s %q", what, val) }

// canonicalKey returns a field name in canonical form (Content-Length),
// as textproto does: a name with a space in it is taken as it is, one
// with a byte that is neither a token's nor a space is refused. A name
// already canonical, or a common one, costs no allocation.
func canonicalKey(k string) (string, bool) {
	switch k {
	case "Accept-Ranges", "Age", "Cache-Control", "Connection", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Content-Length", "Content-Location",
		"Content-Range", "Content-Type", "Date", "Etag", "Expires", "Keep-Alive",
		"Last-Modified", "Location", "Server", "Set-Cookie", "Transfer-Encoding", "Vary":
		return k, true // canonical, and common: the scan would find it so
	case "ETag":
		return "Etag", true
	case "":
		return "", false
	}
	upper, canon, space := true, true, false
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == ' ':
			space = true
		case !tokenBytes[c]:
			return k, false
		case upper && 'a' <= c && c <= 'z', !upper && 'A' <= c && c <= 'Z':
			canon = false
		}
		upper = c == '-'
	}
	if canon || space {
		return k, true
	}
	var buf [64]byte
	if len(k) > len(buf) {
		return textproto.CanonicalMIMEHeaderKey(k), true
	}
	b := buf[:len(k)]
	upper = true
	for i := 0; i < len(k); i++ {
		c := k[i]
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
		upper = c == '-'
	}
	if v, ok := commonKeys[string(b)]; ok {
		return v, true
	}
	return string(b), true
}

// commonKeys are field names servers send, some not in canonical form
// (ETag, WWW-Authenticate), by their canonical form.
var commonKeys = func() map[string]string {
	m := make(map[string]string)
	for _, k := range []string{
		"Accept-Ranges", "Age", "Cache-Control", "Connection", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Content-Length", "Content-Location",
		"Content-Range", "Content-Security-Policy", "Content-Type", "Date", "Etag",
		"Expires", "Keep-Alive", "Last-Modified", "Link", "Location", "Pragma",
		"Retry-After", "Server", "Set-Cookie", "Strict-Transport-Security", "Trailer",
		"Transfer-Encoding", "Vary", "Via", "Www-Authenticate", "X-Content-Type-Options",
		"X-Frame-Options", "X-Powered-By",
	} {
		m[k] = k
	}
	return m
}()

// tokenBytes are the bytes of a token (RFC 9110 §5.6.2).
var tokenBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = isToken(byte(c))
	}
	return t
}()

// valueBytes are the bytes that may appear in a field value: a visible
// character, a space or tab, or obs-text.
var valueBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != 0x7f || c == '\t'
	}
	return t
}()

// frame decides the body's framing and length as net/http's transfer
// reader does for a reply to method, and sets Body, ContentLength,
// TransferEncoding and Close. It removes the header fields net/http
// removes: Transfer-Encoding, Content-Length beside chunked (or its
// duplicates), Connection: close on HTTP/1.1, and Trailer beside chunked.
// A body framed by Content-Length is lb when it is not nil.
func frame(resp *http.Response, br *bufio.Reader, method string, lb *lengthBody) error {
	h := resp.Header
	major, minor := resp.ProtoMajor, resp.ProtoMinor
	closing := shouldClose(major, minor, h)
	if major == 0 && minor == 0 {
		major, minor = 1, 1
	}
	chunked := false
	if te, ok := h["Transfer-Encoding"]; ok {
		delete(h, "Transfer-Encoding")
		if major > 1 || major == 1 && minor >= 1 {
			if len(te) != 1 {
				return fmt.Errorf("too many transfer encodings: %q", te)
			}
			if !strings.EqualFold(te[0], "chunked") {
				return fmt.Errorf("unsupported transfer encoding: %q", te[0])
			}
			chunked = true
		}
	}

	code := resp.StatusCode
	length, err := fixLength(code, method, h, chunked)
	if err != nil {
		return err
	}
	resp.ContentLength = length
	if method == http.MethodHead {
		if resp.ContentLength, err = parseContentLength(h["Content-Length"]); err != nil {
			return err
		}
	}
	var trailer []string // looked up only beside chunked
	if chunked {
		trailer = h["Trailer"]
		delete(h, "Trailer")
	}
	for _, v := range trailer {
		for f := range strings.SplitSeq(v, ",") {
			switch k := http.CanonicalHeaderKey(textproto.TrimString(f)); k {
			case "Transfer-Encoding", "Trailer", "Content-Length":
				return badString("bad trailer key", k)
			}
		}
	}
	allowed := bodyAllowed(code)
	if length == -1 && !chunked && allowed {
		closing = true // the body runs to the end of the connection
	}
	resp.Close = closing
	switch {
	case chunked:
		resp.TransferEncoding = []string{"chunked"}
		if method == http.MethodHead || !allowed {
			resp.Body = http.NoBody
		} else {
			resp.Body = &chunkedBody{r: httputil.NewChunkedReader(br), br: br}
		}
	case length == 0:
		resp.Body = http.NoBody
	case length > 0:
		if lb == nil {
			lb = new(lengthBody)
		}
		*lb = lengthBody{br: br, left: length}
		resp.Body = lb
	case closing:
		resp.Body = &untilCloseBody{br: br}
	default:
		resp.Body = http.NoBody
	}
	return nil
}

// bodyAllowed reports whether a reply of the status may have a body.
func bodyAllowed(code int) bool {
	return !(code >= 100 && code <= 199 || code == 204 || code == 304)
}

// shouldClose reports whether the connection closes after the reply, and
// removes a Connection: close from HTTP/1.1's header, as net/http does.
func shouldClose(major, minor int, h http.Header) bool {
	if major < 1 {
		return true
	}
	conn := h["Connection"]
	hasClose := hasToken(conn, "close")
	if major == 1 && minor == 0 {
		return hasClose || !hasToken(conn, "keep-alive")
	}
	if hasClose {
		delete(h, "Connection")
	}
	return hasClose
}

// hasToken reports whether a comma-separated list in the values holds
// token, in any case.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(trim(f), token) {
				return true
			}
		}
	}
	return false
}

// fixLength returns the body's length by the framing: -1 when it is
// chunked or runs to the connection's end. It refuses differing
// Content-Length fields and folds equal ones into one.
func fixLength(code int, method string, h http.Header, chunked bool) (int64, error) {
	cl := h["Content-Length"]
	if len(cl) > 1 {
		first := textproto.TrimString(cl[0])
		for _, v := range cl[1:] {
			if textproto.TrimString(v) != first {
				return 0, fmt.Errorf("http: message cannot contain multiple Content-Length headers; got %q", cl)
			}
		}
		cl = []string{first}
		h["Content-Length"] = cl
	}
	var n int64
	if len(cl) > 0 {
		var err error
		if n, err = parseContentLength(cl); err != nil {
			return -1, err
		}
	}
	switch {
	case method == http.MethodHead, code/100 == 1, code == 204, code == 304:
		return 0, nil
	case chunked:
		delete(h, "Content-Length")
		return -1, nil
	case len(cl) > 0:
		return n, nil
	}
	return -1, nil
}

// parseContentLength parses the first Content-Length value; -1 when
// there is none.
func parseContentLength(cl []string) (int64, error) {
	if len(cl) == 0 {
		return -1, nil
	}
	v := textproto.TrimString(cl[0])
	if v == "" {
		return 0, badString("invalid empty Content-Length", v)
	}
	n, err := strconv.ParseUint(v, 10, 63)
	if err != nil {
		return 0, badString("bad Content-Length", v)
	}
	return int64(n), nil
}

// lengthBody is a body framed by Content-Length: it ends with io.EOF
// with its last bytes, and with io.ErrUnexpectedEOF when the connection
// ends first. Its errors are sticky.
type lengthBody struct {
	br   *bufio.Reader
	left int64
	err  error
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.br.Read(p)
	b.left -= int64(n)
	switch {
	case b.left == 0:
		err = io.EOF
	case err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	b.err = err
	return n, err
}

func (b *lengthBody) Close() error { return nil }

// untilCloseBody is a body that runs to the end of the connection.
type untilCloseBody struct{ br *bufio.Reader }

func (b *untilCloseBody) Read(p []byte) (int, error) { return b.br.Read(p) }
func (b *untilCloseBody) Close() error               { return nil }

// chunkedBody is a chunked body; after the last chunk it reads the
// trailer, which it discards.
type chunkedBody struct {
	r   io.Reader // the chunked reader over br
	br  *bufio.Reader
	err error // sticky: io.EOF or the trailer's error
}

func (b *chunkedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		if terr := readTrailer(b.br); terr != nil {
			err = terr
		}
		b.err = err
	}
	return n, err
}

func (b *chunkedBody) Close() error { return nil }

// errTrailerEOF is net/http's error for a trailer cut short.
var errTrailerEOF = errors.New("http: unexpected EOF reading trailer")

// readTrailer reads the trailer after a chunked body, as net/http does:
// at most what br's buffer holds.
func readTrailer(br *bufio.Reader) error {
	buf, err := br.Peek(2)
	if len(buf) == 2 && buf[0] == '\r' && buf[1] == '\n' {
		br.Discard(2)
		return nil
	}
	if len(buf) < 2 {
		return errTrailerEOF
	}
	if err != nil {
		return err
	}
	if !seeDoubleCRLF(br) {
		return errors.New("http: suspiciously long trailer after chunked body")
	}
	if _, err := textproto.NewReader(br).ReadMIMEHeader(); err != nil {
		if err == io.EOF {
			return errTrailerEOF
		}
		return err
	}
	return nil
}

// seeDoubleCRLF reports whether br's buffer holds the CRLF CRLF that ends
// a trailer, reading more as long as the buffer has room.
func seeDoubleCRLF(br *bufio.Reader) bool {
	for n := 4; ; n++ {
		buf, err := br.Peek(n)
		if bytes.HasSuffix(buf, []byte("\r\n\r\n")) {
			return true
		}
		if err != nil {
			return false
		}
	}
}
