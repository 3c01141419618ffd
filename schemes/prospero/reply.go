package prospero

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// maxInfo bounds a GET-OBJECT-INFO #ALL reply: 1 MiB of attributes.
const maxInfo = 1 << 20

// info is what GET-OBJECT-INFO #ALL tells of an object.
type info struct {
	size    int64 // -1 when not told
	modTime time.Time
	modes   string     // UNIX-MODES, such as "-rw-r--r--"
	methods [][]string // ACCESS-METHOD values, in the server's order
	fwd     *forward   // set when the reply is FORWARDED
}

// forward is where a FORWARDED reply sends the client.
type forward struct {
	hostType, host, hsonameType, hsoname, version string
}

// replyError returns the error a non-data reply line stands for, or nil
// when the line is not one. what names the request, for the message.
func replyError(toks []string, what string) error {
	if len(toks) == 0 {
		return nil
	}
	rest := fetch.Sanitize(strings.Join(toks[1:], " "))
	switch toks[0] {
	case "FAILURE":
		reason := ""
		if len(toks) > 1 {
			reason = toks[1]
		}
		switch reason {
		case "NOT-FOUND":
			return fetch.Errorf(fetch.NotFound, "%s: the server answers FAILURE %s", what, rest)
		case "NOT-AUTHORIZED":
			// No credentials were sent (Prospero's identity is
			// unauthenticated): the server refuses access, no login failed.
			return fetch.Errorf(fetch.Other, "%s: the server refused access (FAILURE %s)", what, rest)
		case "NOT-A-DIRECTORY":
			return fetch.Errorf(fetch.NotFound, "%s: the server answers FAILURE %s", what, rest)
		}
		return fetch.Errorf(fetch.Other, "%s: the server answers FAILURE %s", what, rest)
	case "NONE-FOUND":
		return fetch.Errorf(fetch.NotFound, "%s: the server answers NONE-FOUND", what)
	case "ERROR":
		return fetch.Errorf(fetch.Protocol, "%s: the server answers ERROR %s", what, rest)
	}
	return nil
}

// readInfo reads a GET-OBJECT-INFO #ALL reply.
func readInfo(r io.Reader, trace *fetch.Trace) (*info, error) {
	br := bufio.NewReader(&limitReader{r: r, n: maxInfo, what: "attribute reply"})
	inf := &info{size: -1}
	for {
		line, err := readLine(br)
		if err == io.EOF {
			return inf, nil
		}
		if err != nil {
			return nil, wrapReply(err)
		}
		trace.Recv(line)
		toks, err := tokenize(line)
		if err != nil {
			return nil, wrapReply(err)
		}
		if len(toks) == 0 {
			continue
		}
		if err := replyError(toks, "GET-OBJECT-INFO"); err != nil {
			return nil, err
		}
		switch toks[0] {
		case "VERSION", "WARNING", "UNRESOLVED":
			// the server's version (after a bare VERSION), or advisory
		case "FORWARDED":
			if len(toks) < 5 {
				return nil, fetch.Errorf(fetch.Protocol, "malformed FORWARDED line %q", line)
			}
			f := &forward{hostType: toks[1], host: toks[2], hsonameType: toks[3], hsoname: toks[4], version: "0"}
			if len(toks) > 5 {
				f.version = toks[5]
			}
			inf.fwd = f
		case "ATTRIBUTE":
			if len(toks) < 5 {
				return nil, fetch.Errorf(fetch.Protocol, "malformed ATTRIBUTE line %q", line)
			}
			inf.attribute(toks[3], toks[5:])
		default:
			return nil, fetch.Errorf(fetch.Protocol, "unexpected reply line %q", truncate(line))
		}
	}
}

// attribute records one ATTRIBUTE's values.
func (inf *info) attribute(name string, vals []string) {
	if len(vals) == 0 {
		return
	}
	switch name {
	case "SIZE":
		// "35 bytes"
		n, unit, _ := strings.Cut(vals[0], " ")
		if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 && (unit == "" || unit == "bytes") {
			inf.size = v
		}
	case "LAST-MODIFIED":
		if t, err := time.Parse("20060102150405Z", vals[0]); err == nil {
			inf.modTime = t
		}
	case "UNIX-MODES":
		inf.modes = vals[0]
	case "ACCESS-METHOD":
		inf.methods = append(inf.methods, vals)
	}
}

// method returns the first access method named name, or nil.
func (inf *info) method(name string) []string {
	for _, m := range inf.methods {
		if strings.EqualFold(m[0], name) {
			return m
		}
	}
	return nil
}

// methodNames lists the access methods offered, for messages.
func (inf *info) methodNames() string {
	var names []string
	for _, m := range inf.methods {
		names = append(names, m[0])
	}
	return strings.Join(names, ", ")
}

// wrapReply classifies an error met while parsing a reply: a malformed
// reply is a protocol error; transport errors keep their kind.
func wrapReply(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return fetch.Errorf(fetch.Protocol, "malformed reply: %w", err)
}

// truncate shortens a line for an error message.
func truncate(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// limitReader fails, rather than ending quietly, when more than n bytes
// are read: a reply that long is a protocol error.
type limitReader struct {
	r    io.Reader
	n    int64
	what string
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fetch.Errorf(fetch.Protocol, "%s longer than its limit", l.what)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
