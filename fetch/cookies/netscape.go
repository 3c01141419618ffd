package cookies

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// httpOnlyPrefix marks an HttpOnly cookie's line in a Netscape file, as
// curl writes it.
const httpOnlyPrefix = "#HttpOnly_"

// maxLine bounds a line of a cookie file.
const maxLine = 64 << 10

// Load adds the cookies of a Netscape cookie file (curl's and wget's
// format: one cookie a line, seven TAB-separated fields: domain,
// include-subdomains TRUE/FALSE, path, secure TRUE/FALSE, expiry in Unix
// seconds (0 for a session cookie), name, value; "#" starts a comment,
// "#HttpOnly_" an HttpOnly cookie's domain). Expired cookies are
// skipped, and with junkSession so are session cookies (curl's -j).
// A line that is not a cookie is an error naming its number.
func (j *Jar) Load(r io.Reader, junkSession bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if rest, ok := strings.CutPrefix(line, httpOnlyPrefix); ok {
			line, httpOnly = rest, true
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) == 6 {
			f = append(f, "") // an empty value, as curl writes it
		}
		if len(f) != 7 {
			return fmt.Errorf("cookie file line %d: %d fields, want 7 separated by TABs", n, len(f))
		}
		exp, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			return fmt.Errorf("cookie file line %d: expiry %q is not a number", n, f[4])
		}
		e := &entry{
			domain:   strings.TrimPrefix(strings.ToLower(f[0]), "."),
			hostOnly: !strings.EqualFold(f[1], "TRUE"),
			path:     f[2],
			secure:   strings.EqualFold(f[3], "TRUE"),
			httpOnly: httpOnly,
			name:     f[5],
			value:    f[6],
			used:     now,
		}
		if e.domain == "" || e.name == "" || badText(e.name) || badText(e.value) || e.path == "" || e.path[0] != '/' {
			return fmt.Errorf("cookie file line %d: not a cookie", n)
		}
		if exp != 0 {
			e.expires = time.Unix(exp, 0)
			if !e.expires.After(now) {
				continue
			}
		} else if junkSession {
			continue
		}
		j.store(key{e.domain, e.path, e.name}, e)
	}
	return sc.Err()
}

// Save writes the cookies the jar holds, session cookies included and
// expired ones left out, in the Netscape format Load reads, sorted by
// domain, path and name.
func (j *Jar) Save(w io.Writer) error {
	now := j.now()
	j.mu.Lock()
	var es []*entry
	for _, e := range j.entries {
		if e.expires.IsZero() || e.expires.After(now) {
			es = append(es, e)
		}
	}
	j.mu.Unlock()
	sort.Slice(es, func(a, b int) bool {
		x, y := es[a], es[b]
		if x.domain != y.domain {
			return x.domain < y.domain
		}
		if x.path != y.path {
			return x.path < y.path
		}
		return x.name < y.name
	})
	bw := bufio.NewWriter(w)
	bw.WriteString("# Netscape HTTP Cookie File\n# Written by fetch: one cookie a line, TAB-separated; edit at your own risk.\n\n")
	for _, e := range es {
		domain, sub := e.domain, "FALSE"
		if !e.hostOnly {
			domain, sub = "."+e.domain, "TRUE"
		}
		if e.httpOnly {
			domain = httpOnlyPrefix + domain
		}
		var exp int64
		if !e.expires.IsZero() {
			exp = e.expires.Unix()
		}
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", domain, sub, e.path, upperBool(e.secure), exp, e.name, e.value)
	}
	return bw.Flush()
}

func upperBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}
