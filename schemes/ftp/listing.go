package ftp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// maxEntry bounds one name of a listing read by WriteListing.
const maxEntry = 64 << 10

// EntryURL returns the URL of one name of the NLST listing that dir (an ftp
// or ftps URL naming a directory) produced. NLST names are relative to the
// directory the URL's <cwd> segments lead to: for "ftp://h/pub/" the name
// "a.txt" is "ftp://h/pub/a.txt"; for "ftp://h/pub;type=d" servers answer
// "pub/a.txt" (vsftpd) or "a.txt" (others), both "ftp://h/pub/a.txt". An
// absolute name ("/x/y") becomes "%2Fx/y". The URL keeps the user but never
// the password. Whether the name is a file or a directory a name list does
// not say: the URL names it as a file (Handler.List's entries know, and
// name directories with a final "/").
func EntryURL(dir *url.URL, name string) string {
	v := dir.FTP()
	var segs []string
	switch {
	case strings.HasPrefix(name, "/"):
		rest := strings.Split(name[1:], "/")
		rest[0] = "/" + rest[0]
		segs = rest
	default:
		segs = append(segs, v.Cwd...)
		if v.Name != "" && name != v.Name && !strings.HasPrefix(name, v.Name+"/") {
			segs = append(segs, v.Name)
		}
		segs = append(segs, strings.Split(name, "/")...)
	}
	return segmentsURL(dir, segs)
}

// segmentsURL returns the URL of dir's server (scheme, user without the
// password, host, port) with the path of segs, each escaped.
func segmentsURL(dir *url.URL, segs []string) string {
	server := url.URL{Scheme: dir.Scheme, Hier: true, Host: dir.Host, Port: dir.Port}
	if dir.User != nil {
		server.User = url.User(dir.User.Username)
	}
	var b strings.Builder
	b.WriteString(server.String())
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(url.EscapeSegment(s))
	}
	return b.String()
}

// WriteListing renders an NLST listing read from r (a Body of Kind
// directory from dir) for a person to read: one line per
// name, "name <url>", with control characters in names shown as '?'. Names
// longer than 64 KiB are cut. It returns the first error reading r or
// writing w; the caller closes r.
func WriteListing(w io.Writer, r io.Reader, dir *url.URL) error {
	br := bufio.NewReaderSize(r, 4096)
	bw := bufio.NewWriter(w)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxEntry {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if name := strings.TrimRight(string(line), "\r\n"); name != "" {
			fmt.Fprintf(bw, "%s <%s>\n", sanitize(name), EntryURL(dir, name))
		}
		line = line[:0]
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return err
		}
	}
	return bw.Flush()
}

// sanitize shows control characters as '?'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// listing turns an NLST stream into names one a line, each ending in '\n':
// CR LF becomes LF, and a last line without an end gets one.
type listing struct {
	src  io.ReadCloser
	buf  []byte
	cr   bool // a CR was held back at the end of the last chunk
	last byte
	eof  error
	tail []byte
}

func newListing(src io.ReadCloser) *listing {
	return &listing{src: src, buf: make([]byte, 32<<10), last: '\n'}
}

func (l *listing) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if len(l.tail) > 0 {
			n := copy(p, l.tail)
			l.tail = l.tail[n:]
			return n, nil
		}
		if l.eof != nil {
			return 0, l.eof
		}
		m := min(len(p), len(l.buf))
		n, err := l.src.Read(l.buf[:m])
		out := l.convert(l.buf[:n])
		if err != nil {
			l.eof = err
			if errors.Is(err, io.EOF) {
				if l.cr {
					out = append(out, '\r')
					l.cr, l.last = false, '\r'
				}
				if l.last != '\n' {
					out = append(out, '\n')
				}
			}
		}
		l.tail = out
		if len(out) == 0 && err == nil {
			continue
		}
	}
}

// convert rewrites b in place, dropping each CR that precedes an LF.
func (l *listing) convert(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	out := b[:0]
	var lead []byte
	if l.cr {
		l.cr = false
		if len(b) == 0 || b[0] != '\n' {
			lead = []byte{'\r'}
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			if i+1 == len(b) {
				l.cr = true
				continue
			}
			if b[i+1] == '\n' {
				continue
			}
		}
		out = append(out, c)
	}
	if lead != nil {
		out = append(lead, out...)
	}
	if len(out) > 0 {
		l.last = out[len(out)-1]
	}
	return out
}

func (l *listing) Close() error { return l.src.Close() }

// WriteEntries renders a listing from Handler.List for a person to read:
// one line per entry, "name <url>", the name's control
// characters escaped, a directory's URL ending in "/" (so that following
// it lists it). When lines of the server's listing could not be parsed,
// a last line says how many. It returns the first error of the listing or
// of w; the caller closes l.
func WriteEntries(w io.Writer, l *fetch.Listing) error {
	bw := bufio.NewWriter(w)
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return err
		}
		fmt.Fprintf(bw, "%s <%s>\n", fetch.Sanitize(e.Name), e.URL)
	}
	if n := l.Skipped(); n > 0 {
		fmt.Fprintf(bw, "(%d lines of the listing could not be parsed)\n", n)
	}
	return bw.Flush()
}
