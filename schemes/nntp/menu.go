package nntp

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// maxRenderLine bounds one overview or group-list line that Render reads;
// the rest of a longer line is skipped.
const maxRenderLine = 64 << 10

// Render writes a list this package fetched (a group's overview, a group
// list) for a person to read: one entry a line, each
// ending with the URL that fetches it. Articles and other resources are
// copied unchanged. Control characters from the server are shown as '?',
// so that no escape sequence reaches a terminal. Render reads res.Body to
// its end; the caller still closes it.
//
//	overview:   "   1  Subject  (From)  news:unique@host"
//	group list: "local.test  3 articles  news:local.test"
func Render(w io.Writer, res *fetch.Resource) error {
	list := res.Extra[ExtraList]
	if list == "" {
		_, err := io.Copy(w, res.Body)
		return err
	}
	br := bufio.NewReaderSize(res.Body, 4096)
	bw := bufio.NewWriter(w)
	for {
		line, err := readBoundedLine(br)
		if line != "" {
			var out string
			switch list {
			case "overview":
				out = overviewEntry(res, line)
			default:
				out = groupEntry(res, list, line)
			}
			if _, werr := bw.WriteString(out + "\n"); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil {
			bw.Flush()
			return err
		}
	}
}

// readBoundedLine reads a line without its "\n", at most maxRenderLine
// bytes of it; the rest of a longer line is read and dropped.
func readBoundedLine(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, err := br.ReadSlice('\n')
		if b.Len() < maxRenderLine {
			b.Write(chunk[:min(len(chunk), maxRenderLine-b.Len())])
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimRight(b.String(), "\r\n"), err
	}
}

// overviewEntry renders one OVER line: number, subject, from, date,
// message-id, references, bytes, lines (RFC 3977 §8.3).
func overviewEntry(res *fetch.Resource, line string) string {
	f := strings.Split(line, "\t")
	for len(f) < 5 {
		f = append(f, "")
	}
	num, subject, from, id := f[0], f[1], f[2], strings.TrimSuffix(strings.TrimPrefix(f[4], "<"), ">")
	var link string
	if u := res.URL; u != nil && (u.Scheme == "nntp" || u.Scheme == "nntps") && digits(num) {
		link = serverURL(u) + "/" + url.Escape(res.Extra[ExtraGroup], "") + "/" + num
	} else if id != "" {
		link = newsScheme(res) + ":" + url.Escape(id, ";/?:&=@")
	}
	return fmt.Sprintf("%6s  %s  (%s)  %s", visible(num), visible(subject), visible(from), link)
}

// groupEntry renders one LIST ACTIVE line ("group high low status") or
// LIST NEWSGROUPS line ("group TAB description").
func groupEntry(res *fetch.Resource, list, line string) string {
	var group, about string
	if list == "newsgroups" {
		g, d, _ := strings.Cut(line, "\t")
		if d == "" {
			g, d, _ = strings.Cut(line, " ")
		}
		group, about = strings.TrimSpace(g), strings.TrimSpace(d)
	} else {
		f := strings.Fields(line)
		if len(f) == 0 {
			return ""
		}
		group = f[0]
		if len(f) >= 3 {
			hi, ok1 := parseNumber(f[1])
			lo, ok2 := parseNumber(f[2])
			if ok1 && ok2 {
				n := int64(0)
				if hi >= lo {
					n = hi - lo + 1
				}
				about = strconv.FormatInt(n, 10) + " articles"
				if n == 1 {
					about = "1 article"
				}
			}
		}
		if len(f) >= 4 && strings.HasPrefix(f[3], "m") {
			about += ", moderated"
		}
	}
	var link string
	if u := res.URL; u != nil && (u.Scheme == "nntp" || u.Scheme == "nntps") {
		link = serverURL(u) + "/" + url.Escape(group, "")
	} else {
		link = newsScheme(res) + ":" + url.Escape(group, "")
	}
	return fmt.Sprintf("%s  %s  %s", visible(group), visible(about), link)
}

// newsScheme is "snews" for resources fetched over TLS, else "news".
func newsScheme(res *fetch.Resource) string {
	if u := res.URL; u != nil && (u.Scheme == "snews" || u.Scheme == "nntps") {
		return "snews"
	}
	return "news"
}

// serverURL is "scheme://host[:port]" of u: its server, without user or
// path.
func serverURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Hier: true, Host: u.Host, Port: u.Port}).String()
}

// visible escapes the characters of server text that could act on a
// terminal (fetch.Sanitize).
func visible(s string) string { return fetch.Sanitize(s) }
