package wais

import (
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// target is what a wais URL asks for (RFC 1738 §3.9): a database to
// describe, a search in it, or a document of it.
type target struct {
	Database  string
	Search    string // the seed words, '+' already turned into spaces
	HasSearch bool
	WType     string
	DocID     string // opaque bytes, sent back exactly
	Length    int64  // the libwww length segment, or -1
	HasDoc    bool
}

// parseTarget decodes the URL's raw path. It works on the raw path rather
// than u.WAIS() because a search's '+' means a space only where it is not
// encoded, and a libwww-form wpath holds unescaped '/' and is decoded
// element by element. A wpath that does not decode is Kind Malformed.
func parseTarget(u *url.URL) (target, error) {
	t := target{Length: -1}
	p := u.Path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		db, err := unescape(p[:i], "database")
		if err != nil {
			return t, err
		}
		s, err := unescape(strings.ReplaceAll(p[i+1:], "+", " "), "search")
		if err != nil {
			return t, err
		}
		t.Database, t.Search, t.HasSearch = db, s, true
		return t, nil
	}
	db, rest, found := strings.Cut(p, "/")
	var err error
	if t.Database, err = unescape(db, "database"); err != nil || !found {
		return t, err
	}
	wt, wp, found := strings.Cut(rest, "/")
	if !found {
		return t, fetch.Errorf(fetch.Malformed, "a WAIS document URL needs database/wtype/wpath")
	}
	if t.WType, err = unescape(wt, "wtype"); err != nil {
		return t, err
	}
	// libwww's four-segment layout: database/wtype/length/wpath.
	if n := leadingDigits(wp); n > 0 && n < len(wp) && wp[n] == '/' {
		t.Length, err = strconv.ParseInt(wp[:n], 10, 64)
		if err != nil {
			return t, fetch.Errorf(fetch.Malformed, "WAIS document length %q: %v", wp[:n], err)
		}
		wp = wp[n+1:]
	}
	if n := leadingDigits(wp); n > 0 && n < len(wp) && wp[n] == '=' {
		t.DocID, err = decodeLibwww(wp)
	} else {
		t.DocID, err = unescape(wp, "wpath")
	}
	if err != nil {
		return t, err
	}
	if t.DocID == "" {
		return t, fetch.Errorf(fetch.Malformed, "empty WAIS document id")
	}
	t.HasDoc = true
	return t, nil
}

func leadingDigits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func unescape(s, what string) (string, error) {
	d, err := url.Unescape(s)
	if err != nil {
		return "", fetch.Errorf(fetch.Malformed, "WAIS %s: %v", what, err)
	}
	return d, nil
}

// decodeLibwww decodes the CERN libwww / Lynx form of a DocumentID,
// "tag=value;tag=value;...", with %XX escapes in the values, into the
// DocumentID bytes: each part becomes an element (compressed tag,
// compressed length, value).
func decodeLibwww(s string) (string, error) {
	var b []byte
	for _, part := range strings.Split(s, ";") {
		if part == "" {
			continue
		}
		tag, val, found := strings.Cut(part, "=")
		n, err := strconv.ParseUint(tag, 10, 16)
		if !found || err != nil {
			return "", fetch.Errorf(fetch.Malformed, "WAIS document id part %q is not tag=value", part)
		}
		v, err := unescape(val, "document id value")
		if err != nil {
			return "", err
		}
		b = appendStr(b, int(n), v)
	}
	return string(b), nil
}

// encodeLibwww writes a DocumentID in the libwww "tag=value;" form when it
// is a list of elements, escaping bytes outside A-Z a-z 0-9 . / - _ $; it
// reports false when the id is not such a list.
func encodeLibwww(id string) (string, bool) {
	es, err := elements([]byte(id))
	if err != nil || len(es) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, e := range es {
		if e.Diag != nil {
			return "", false
		}
		b.WriteString(strconv.Itoa(e.Tag))
		b.WriteByte('=')
		for _, c := range e.Val {
			switch {
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
				c == '.', c == '/', c == '-', c == '_', c == '$':
				b.WriteByte(c)
			default:
				b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			}
		}
		b.WriteByte(';')
	}
	return b.String(), true
}

// docURL returns the RFC 1738 wais URL of a document: base's host and
// explicit port, then database/wtype/wpath with every byte of the
// DocumentID that is not unreserved %-encoded. It is the form the strict
// parser accepts and parseTarget decodes back to the same bytes.
func docURL(base *url.URL, database, wtype, docID string) string {
	return lengthURL(base, database, wtype, docID, -1)
}

// lengthURL is docURL with the document's length, when it is not -1, as
// a segment before the wpath: libwww's database/wtype/length/wpath, which
// parseTarget reads back, so that the URL of a search hit carries the
// length the search gave (-I reports it, and the retrieval stops there).
// Only the lenient parser takes that form: RFC 1738's wpath is one
// segment.
func lengthURL(base *url.URL, database, wtype, docID string, length int64) string {
	var b strings.Builder
	b.WriteString("wais://")
	if strings.IndexByte(base.Host, ':') >= 0 {
		b.WriteString("[" + base.Host + "]")
	} else {
		b.WriteString(base.Host)
	}
	if base.Port != 0 {
		b.WriteString(":" + strconv.Itoa(base.Port))
	}
	b.WriteByte('/')
	b.WriteString(url.Escape(database, url.KeepNone))
	b.WriteByte('/')
	b.WriteString(url.Escape(wtype, url.KeepNone))
	b.WriteByte('/')
	if length >= 0 {
		b.WriteString(strconv.FormatInt(length, 10))
		b.WriteByte('/')
	}
	b.WriteString(url.Escape(docID, url.KeepNone))
	return b.String()
}

// escapeAll %-encodes every byte of s that is not unreserved.
func escapeAll(s string) string { return url.Escape(s, url.KeepNone) }
