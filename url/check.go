package url

import (
	"strconv"
	"strings"
)

// checkScheme applies the scheme-specific rules of RFC 1738 §3 and §5 to a
// URL of a known scheme, whose path starts at offset off. A strict parser
// enforces each scheme's BNF; a lenient one only what a typed view needs to
// be meaningful. fam is the scheme's family (see Family).
func (p Parser) checkScheme(u *URL, fam string, off int) *Error {
	path := u.Path
	strict := !p.Lenient
	if !strict && (fam == "http" || fam == "gopher" || fam == "file") {
		return nil // a lenient parser checks nothing more for these
	}
	if strict && !u.Slash && (fam == "file" || fam == "wais" || fam == "prospero") {
		// fileurl, waisurl and prosperourl have a mandatory "/" (§5).
		return &Error{Offset: off, Expected: "'/' after the host"}
	}
	switch fam {
	case "ftp":
		return checkFTP(path, off, strict)
	case "file":
		if strict {
			return checkChars(path, off, "/?:@&=", "file path character")
		}
	case "http":
		if strict {
			return checkHTTP(path, off)
		}
	case "gopher":
		// gtype selector %09 search %09 gopher+: every xchar is allowed.
	case "mailto":
		if path == "" {
			return &Error{Offset: off, Expected: "an address after mailto:"}
		}
	case "news":
		return checkNewsPath(path, off, strict)
	case "nntp":
		return checkNNTP(path, off, strict)
	case "telnet":
		if path != "" {
			return &Error{Offset: off, Expected: "end of telnet URL (only an optional '/' may follow the login)"}
		}
	case "wais":
		return checkWAIS(path, off, strict)
	case "prospero":
		return checkProspero(path, off, strict)
	}
	return nil
}

// checkFTP applies §3.2: fpath = fsegment *[ "/" fsegment ] with an
// optional ";type=" typecode of a, i or d at its end.
func checkFTP(path string, off int, strict bool) *Error {
	if strings.IndexByte(path, ';') < 0 {
		if strict {
			return checkChars(path, off, "/?:@&=", "FTP path character")
		}
		return nil
	}
	body, code := splitTypecode(path)
	if code == "" {
		if i := strings.LastIndex(path, ";type="); i >= 0 && i+6 <= len(path) && strings.IndexByte(path[i+1:], '/') < 0 {
			return &Error{Offset: off + i + 6, Expected: "typecode a, i or d at the end of the path"}
		}
	}
	if strict {
		return checkChars(body, off, "/?:@&=", "FTP path character")
	}
	return nil
}

// checkHTTP applies §3.3: hpath [ "?" search ].
func checkHTTP(path string, off int) *Error {
	hpath, search, found := strings.Cut(path, "?")
	if err := checkChars(hpath, off, "/;:@&=", "HTTP path character"); err != nil {
		return err
	}
	if found {
		return checkChars(search, off+len(hpath)+1, ";:@&=", "HTTP search character")
	}
	return nil
}

// checkNewsPath applies §3.6: grouppart = "*" | group | article, and
// refuses a login in RFC 5538's news://server form.
func checkNewsPath(path string, off int, strict bool) *Error {
	if path == "" {
		return &Error{Offset: off, Expected: `newsgroup, "*" or message-id`}
	}
	if err := checkNewsServer(path, off); err != nil {
		return err
	}
	if strict {
		return checkNews(path, off)
	}
	return nil
}

// checkNNTP applies §3.7: group [ "/" digits ].
func checkNNTP(path string, off int, strict bool) *Error {
	group, num, found := strings.Cut(path, "/")
	if group == "" {
		return &Error{Offset: off, Expected: "newsgroup name"}
	}
	if strict {
		if err := checkGroup(group, off); err != nil {
			return err
		}
	}
	if !found || (num == "" && !strict) {
		return nil
	}
	noff := off + len(group) + 1
	for i := 0; i < len(num) || i == 0; i++ {
		if i >= len(num) || !isDigit(num[i]) {
			return &Error{Offset: noff + i, Expected: "article number digits"}
		}
	}
	if _, err := strconv.ParseInt(num, 10, 64); err != nil {
		return &Error{Offset: noff, Expected: "article number below 2^63"}
	}
	return nil
}

// checkWAIS applies §3.9: database, database "?" search, or
// database "/" wtype "/" wpath.
func checkWAIS(path string, off int, strict bool) *Error {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		if strict {
			if err := checkChars(path[:i], off, "", "WAIS database character"); err != nil {
				return err
			}
			return checkChars(path[i+1:], off+i+1, ";:@&=", "WAIS search character")
		}
		return nil
	}
	// A lenient parser lets a wpath hold unencoded '/' (real-world
	// document ids do); the WAIS view keeps them in WPath.
	if n := strings.Count(path, "/"); n != 0 && n != 2 && (strict || n < 2) {
		return &Error{Offset: off, Expected: "database, database?search or database/wtype/wpath"}
	}
	if strict {
		for o, rest := off, path; ; {
			s, after, more := strings.Cut(rest, "/")
			if err := checkChars(s, o, "", "WAIS character (uchar)"); err != nil {
				return err
			}
			if !more {
				break
			}
			o, rest = o+len(s)+1, after
		}
	}
	return nil
}

// checkProspero applies §3.11: hsoname *[ ";" fieldname "=" fieldvalue ].
func checkProspero(path string, off int, strict bool) *Error {
	hsoname, fields, more := strings.Cut(path, ";")
	if strict {
		if err := checkChars(hsoname, off, "/?:@&=", "Prospero path character"); err != nil {
			return err
		}
	}
	for o := off + len(hsoname) + 1; more; {
		var f string
		f, fields, more = strings.Cut(fields, ";")
		eq := strings.IndexByte(f, '=')
		if eq < 0 {
			return &Error{Offset: o + len(f), Expected: "'=' in a ;fieldname=value"}
		}
		if strict {
			if err := checkChars(f[:eq], o, "?:@&", "Prospero field name character"); err != nil {
				return err
			}
			if err := checkChars(f[eq+1:], o+eq+1, "?:@&", "Prospero field value character"); err != nil {
				return err
			}
		}
		o += len(f) + 1
	}
	return nil
}

// checkChars checks that every byte of s is unreserved, an escape, or one of
// extra; s has already passed checkXchars.
func checkChars(s string, off int, extra, what string) *Error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			i += 2
			continue
		}
		if !isUnreserved(c) && strings.IndexByte(extra, c) < 0 {
			return &Error{Offset: off + i, Expected: what + " (encode " + string(c) + " as %XX)"}
		}
	}
	return nil
}

// checkNews applies grouppart = "*" | group | article.
func checkNews(p string, off int) *Error {
	if p == "*" {
		return nil
	}
	at := strings.LastIndexByte(p, '@')
	if at < 0 {
		return checkGroup(p, off)
	}
	if at == 0 {
		return &Error{Offset: off, Expected: "message-id before '@'"}
	}
	if err := checkChars(p[:at], off, ";/?:&=", "message-id character"); err != nil {
		return err
	}
	if i, ok := (Parser{}).checkHost(p[at+1:]); !ok || at+1 == len(p) {
		return &Error{Offset: off + at + 1 + i, Expected: "host after '@' in the message-id"}
	}
	return nil
}

// checkGroup applies group = alpha *[ alpha | digit | "-" | "." | "+" | "_" ].
func checkGroup(g string, off int) *Error {
	if g == "" || !isAlpha(g[0]) {
		return &Error{Offset: off, Expected: "newsgroup name starting with a letter"}
	}
	for i := 1; i < len(g); i++ {
		c := g[i]
		if !isAlpha(c) && !isDigit(c) && c != '-' && c != '.' && c != '+' && c != '_' {
			return &Error{Offset: off + i, Expected: "newsgroup name character"}
		}
	}
	return nil
}

// checkNewsServer refuses a login in the server part of RFC 5538's
// "news://server/..." form, which RFC 1738 does not know (a strict parser
// refuses the form as a whole) and which names a server, never a user or a
// password: "news://u:pw@h/g" is malformed, so that the password is
// redacted from the error rather than carried as a message-id.
func checkNewsServer(path string, off int) *Error {
	if !strings.HasPrefix(path, "//") {
		return nil
	}
	server := path[2:]
	if i := strings.IndexByte(server, '/'); i >= 0 {
		server = server[:i]
	}
	if i := strings.IndexByte(server, '@'); i >= 0 {
		return &Error{Offset: off + 2, Expected: "news server host[:port] (a news URL has no user or password, RFC 5538)"}
	}
	return nil
}
