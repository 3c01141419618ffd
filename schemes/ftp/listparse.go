package ftp

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// item is one line of a directory listing, parsed: what a fetch.Entry
// holds but its URL.
type item struct {
	name  string
	dir   bool
	link  bool  // a symbolic link, to a directory or a file: see resolveLinks
	size  int64 // -1 when unknown
	mtime time.Time
	media string
}

// errSkip marks a listing line that names no entry of the directory: a
// "total" line, ".", "..", MLSD's cdir and pdir.
var errSkip = errors.New("not an entry")

// unparsed is the error of a line a parser cannot read.
func unparsed(format, line string) error {
	return fetch.Wrap(fetch.Protocol, &unparsedError{format: format, line: line})
}

type unparsedError struct{ format, line string }

func (e *unparsedError) Error() string {
	return "cannot parse " + e.format + " line " + strconv.Quote(fetch.Sanitize(e.line))
}

func (e *unparsedError) Unwrap() error { return fetch.ErrUnparsed }

// parseMLSD reads one line of MLSD (RFC 3659 §7): facts, each "name=value;",
// a space, and the name. The facts read are type, size, modify and
// media-type.
func parseMLSD(line string) (item, error) {
	facts, name, ok := strings.Cut(line, " ")
	if !ok || name == "" {
		return item{}, unparsed("MLSD", line)
	}
	it := item{name: name, size: -1}
	typ := ""
	for _, f := range strings.Split(facts, ";") {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "type":
			typ = strings.ToLower(v)
		case "size":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				it.size = n
			}
		case "modify":
			it.mtime = parseMDTM(v)
		case "media-type":
			it.media = v
		}
	}
	switch {
	case typ == "cdir" || typ == "pdir" || name == "." || name == "..":
		return item{}, errSkip
	case typ == "dir":
		it.dir, it.size = true, -1
	case strings.HasPrefix(typ, "os.unix=slink") || strings.HasPrefix(typ, "os.unix=symlink"):
		// RFC 3659 §7.5.1's OS-specific type: pure-ftpd's slink,
		// proftpd's symlink, either perhaps with ":target".
		it.link, it.size = true, -1
	case typ == "":
		return item{}, unparsed("MLSD", line)
	}
	return it, nil
}

// parseMDTM reads RFC 3659's time-val, YYYYMMDDHHMMSS[.sss], in UTC; the
// zero Time when it is not one.
func parseMDTM(s string) time.Time {
	s = strings.TrimSpace(s)
	layout := "20060102150405"
	if len(s) > len(layout) && s[len(layout)] == '.' {
		layout += "." + strings.Repeat("9", len(s)-len(layout)-1)
	}
	t, err := time.ParseInLocation(layout, s, time.UTC)
	if err != nil {
		return time.Time{}
	}
	return t
}

// parseLIST reads one line of a LIST reply in the formats servers use:
// Unix "ls -l" (vsftpd, proftpd, pure-ftpd and most others) and DOS (IIS).
// now decides the year of Unix dates that omit it. Times are taken as UTC:
// the listing does not say the server's zone.
func parseLIST(line string, now time.Time) (item, error) {
	if strings.HasPrefix(line, "total ") {
		return item{}, errSkip
	}
	f := fields(line)
	if len(f) > 0 && len(f[0].s) == 10 && strings.IndexByte("-dlcbps", f[0].s[0]) >= 0 {
		return parseUnix(line, f, now)
	}
	if len(f) >= 4 && dosDate(f[0].s) {
		return parseDOS(line, f)
	}
	return item{}, unparsed("LIST", line)
}

// field is one space-separated word of a line and where it ends.
type field struct {
	s   string
	end int
}

func fields(line string) []field {
	var out []field
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, field{line[i:j], j})
		}
		i = j
	}
	return out
}

// rest is the line after field f, its separating blanks skipped.
func rest(line string, f field) string {
	return strings.TrimLeft(line[f.end:], " \t")
}

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// parseUnix reads "drwxr-xr-x 2 owner group 4096 Nov 23 17:05 name" and
// its variants (no group; a year for the time; "name -> target" for a
// link), finding the date by its shape and the size just before it.
func parseUnix(line string, f []field, now time.Time) (item, error) {
	for m := 2; m+3 < len(f); m++ {
		mon, ok := months[strings.ToLower(f[m].s)]
		if !ok {
			continue
		}
		day, err := strconv.Atoi(f[m+1].s)
		if err != nil || day < 1 || day > 31 {
			continue
		}
		size, err := strconv.ParseInt(f[m-1].s, 10, 64)
		if err != nil {
			continue
		}
		var t time.Time
		if hh, mm, ok := strings.Cut(f[m+2].s, ":"); ok {
			h, err1 := strconv.Atoi(hh)
			mi, err2 := strconv.Atoi(mm)
			if err1 != nil || err2 != nil {
				continue
			}
			t = time.Date(now.Year(), mon, day, h, mi, 0, 0, time.UTC)
			if t.After(now.Add(24 * time.Hour)) {
				// ls shows the time for the last six months: a
				// date ahead is last year's.
				t = t.AddDate(-1, 0, 0)
			}
		} else if y, err := strconv.Atoi(f[m+2].s); err == nil && y > 1900 {
			t = time.Date(y, mon, day, 0, 0, 0, 0, time.UTC)
		} else {
			continue
		}
		name := rest(line, f[m+2])
		kind := f[0].s[0]
		if kind == 'l' {
			if i := strings.Index(name, " -> "); i >= 0 {
				name = name[:i]
			}
		}
		if name == "" {
			break
		}
		if name == "." || name == ".." {
			return item{}, errSkip
		}
		it := item{name: name, dir: kind == 'd', link: kind == 'l', size: size, mtime: t}
		if kind != '-' {
			it.size = -1 // a directory's or a link's size is not its content's
		}
		return it, nil
	}
	return item{}, unparsed("LIST", line)
}

// dosDate reports whether s is MM-DD-YY or MM-DD-YYYY.
func dosDate(s string) bool {
	return (len(s) == 8 || len(s) == 10) && s[2] == '-' && s[5] == '-'
}

// parseDOS reads "11-23-26  05:05PM  <DIR>  name" and
// "11-23-26  05:05PM  3000 name".
func parseDOS(line string, f []field) (item, error) {
	t, err := time.ParseInLocation("01-02-06 03:04PM", f[0].s+" "+strings.ToUpper(f[1].s), time.UTC)
	if err != nil {
		t, err = time.ParseInLocation("01-02-2006 03:04PM", f[0].s+" "+strings.ToUpper(f[1].s), time.UTC)
	}
	if err != nil {
		return item{}, unparsed("LIST", line)
	}
	name := rest(line, f[2])
	if name == "" {
		return item{}, unparsed("LIST", line)
	}
	if name == "." || name == ".." {
		return item{}, errSkip
	}
	if strings.EqualFold(f[2].s, "<DIR>") {
		return item{name: name, dir: true, size: -1, mtime: t}, nil
	}
	size, err := strconv.ParseInt(f[2].s, 10, 64)
	if err != nil || size < 0 {
		return item{}, unparsed("LIST", line)
	}
	return item{name: name, size: size, mtime: t}, nil
}
