package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// parseUsage is the usage line of fetch parse.
const parseUsage = "fetch parse [--json] [--strict] [--normalize] URL..."

// writeParseHelp prints the help of fetch parse.
func writeParseHelp(w io.Writer) {
	io.WriteString(w, `Usage: `+parseUsage+`

Print the components of each URL as RFC 1738 defines them, without fetching
anything: "key: value" lines (the password as ****), a blank line after each
URL. A URL is parsed leniently unless --strict.

Options:
  --json         one JSON object per URL, one a line: scheme, user, password,
                 host, port, path, and an object named after the scheme with
                 its decoded parts; {"error": ..., "offset": N} for a
                 malformed URL
  --strict       parse exactly by RFC 1738's BNF (unsafe and national
                 characters must be encoded)
  --normalize    print each URL's normalized form, one a line (scheme and
                 host lower case, default port dropped, unreserved escapes
                 decoded, fragment dropped, ...); with --json, a "normalized"
                 key in each object
  -h, --help     show this help

Exit codes: 0 every URL parsed, 2 usage error, 3 a URL is malformed.

Examples:
  fetch parse 'ftp://myname@host.dom/%2Fetc/motd;type=a'
  fetch parse --json 'gopher://gopher.example.org/7search%09words'
  fetch parse --normalize HTTP://Example.ORG:80 gopher://h/
`)
}

// runParse is "fetch parse [--json] [--strict] [--normalize] URL...": each
// URL's parsed components, as CONTRACT §3 says. It exits 3 when any URL is
// malformed.
func runParse(args []string, stdout, stderr io.Writer) int {
	asJSON, strict, normal := false, false, false
	var urls []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			urls = append(urls, args[i+1:]...)
			i = len(args)
		case a == "--json":
			asJSON = true
		case a == "--strict":
			strict = true
		case a == "--normalize":
			normal = true
		case a == "--help" || a == "-h":
			writeParseHelp(stdout)
			return 0
		case len(a) > 1 && a[0] == '-' && len(urls) == 0:
			fmt.Fprintf(stderr, "fetch parse: unknown option %s (usage: %s; see fetch parse --help)\n", a, parseUsage)
			return 2
		default:
			urls = append(urls, a)
		}
	}
	if len(urls) == 0 {
		fmt.Fprintf(stderr, "fetch parse: no URL given (usage: %s)\n", parseUsage)
		return 2
	}
	p := url.Parser{Lenient: !strict, MapHost: fetch.IDNAHost}
	code := 0
	for _, raw := range urls {
		u, err := p.Parse(raw)
		if err != nil {
			code = 3
			var pe *url.Error
			off := -1
			if errors.As(err, &pe) {
				off = pe.Offset
			}
			if asJSON {
				b, _ := marshalJSON(map[string]any{"error": err.Error(), "offset": off})
				fmt.Fprintf(stdout, "%s\n", b)
			} else {
				fmt.Fprintf(stderr, "fetch parse: %v\n", err)
			}
			continue
		}
		switch {
		case asJSON:
			var extra []field
			if normal {
				extra = []field{{"normalized", u.Normalize().String()}}
			}
			stdout.Write(parseJSON(u, extra...))
			io.WriteString(stdout, "\n")
		case normal:
			fmt.Fprintln(stdout, u.Normalize())
		default:
			writeParseText(stdout, u)
		}
	}
	return code
}

// field is one key of the JSON object, in order.
type field struct {
	key string
	val any
}

// commonFields are the keys present for every URL.
func commonFields(u *url.URL) []field {
	var user, pass any
	if u.User != nil {
		user = u.User.Username
		if u.User.HasPassword {
			pass = u.User.Password
		}
	}
	var port any
	if p := u.EffectivePort(); p != 0 {
		port = p
	}
	return []field{
		{"scheme", u.Scheme}, {"user", user}, {"password", pass},
		{"host", u.Host}, {"port", port}, {"path", u.Path},
	}
}

// schemeFields is the object named after the scheme, or nil for a scheme
// without one.
func schemeFields(u *url.URL) []field {
	opt := func(s string, ok bool) any {
		if ok {
			return s
		}
		return nil
	}
	switch u.Family() {
	case "ftp":
		v := u.FTP()
		cwd := v.Cwd
		if cwd == nil {
			cwd = []string{}
		}
		return []field{{"cwd", cwd}, {"name", v.Name}, {"typecode", v.Typecode}}
	case "http":
		v := u.HTTP()
		return []field{{"path", v.Path}, {"search", opt(v.Search, v.HasSearch)}}
	case "gopher":
		v := u.Gopher()
		return []field{{"type", v.Type}, {"selector", v.Selector}, {"search", opt(v.Search, v.HasSearch)}, {"plus", opt(v.Plus, v.HasPlus)}}
	case "mailto":
		return []field{{"address", u.Mailto().Address}}
	case "news":
		v := u.News()
		if v.Article != "" {
			return []field{{"article", v.Article}}
		}
		return []field{{"group", v.Group}}
	case "nntp":
		v := u.NNTP()
		var n any
		if v.HasArticle {
			n = v.Article
		}
		return []field{{"group", v.Group}, {"article", n}}
	case "telnet":
		return []field{}
	case "wais":
		v := u.WAIS()
		return []field{{"database", v.Database}, {"search", opt(v.Search, v.HasSearch)}, {"wtype", opt(v.WType, v.HasDoc)}, {"wpath", opt(v.WPath, v.HasDoc)}}
	case "file":
		return []field{{"path", u.File().Path}}
	case "prospero":
		v := u.Prospero()
		fields := map[string]string{}
		for _, f := range v.Fields {
			fields[f.Name] = f.Value
		}
		return []field{{"hsoname", v.HSOName}, {"fields", fields}}
	}
	return nil
}

// parseJSON renders u as the one-line JSON object of CONTRACT §3, with the
// extra keys after the common ones.
func parseJSON(u *url.URL, extra ...field) []byte {
	var b bytes.Buffer
	writeObject(&b, append(commonFields(u), extra...))
	if sf := schemeFields(u); sf != nil {
		b.Truncate(b.Len() - 1)
		b.WriteByte(',')
		k, _ := json.Marshal(u.Scheme)
		b.Write(k)
		b.WriteByte(':')
		writeObject(&b, sf)
		b.WriteByte('}')
	}
	return fetch.SanitizeJSON(b.Bytes())
}

func writeObject(b *bytes.Buffer, fs []field) {
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.val)
		if err != nil {
			v = []byte("null")
		}
		b.Write(v)
	}
	b.WriteByte('}')
}

// writeParseText prints the components for reading, one "key: value" a line,
// with a blank line after each URL. What Redacted hides (a password, or
// the text of a URL without "//" that has a login's shape) is shown as
// **** in every value, encoded or decoded.
func writeParseText(w io.Writer, u *url.URL) {
	hide := hiddenText(u)
	var hideDecoded string
	if hide != "" {
		hideDecoded, _ = url.Unescape(hide)
	}
	redact := func(s string) string {
		if hide == "" {
			return s
		}
		s = strings.ReplaceAll(s, hide, "****")
		if hideDecoded != "" {
			s = strings.ReplaceAll(s, hideDecoded, "****")
		}
		return s
	}
	show := func(v any) string {
		switch v := v.(type) {
		case nil:
			return "(none)"
		case string:
			return strconv.Quote(redact(v))
		case map[string]string:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var b bytes.Buffer
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%q=%q", k, v[k])
			}
			return "{" + b.String() + "}"
		case []string:
			var b bytes.Buffer
			for i, s := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Quote(s))
			}
			return "[" + b.String() + "]"
		}
		return fmt.Sprint(v)
	}
	fmt.Fprintf(w, "url: %s\n", u.Redacted())
	for _, f := range commonFields(u) {
		if f.key == "password" && f.val != nil {
			f.val = "****"
		}
		fmt.Fprintf(w, "%s: %s\n", f.key, show(f.val))
	}
	for _, f := range schemeFields(u) {
		fmt.Fprintf(w, "%s.%s: %s\n", u.Scheme, f.key, show(f.val))
	}
	fmt.Fprintln(w)
}

// hiddenText returns the text of u that Redacted hides where u has no
// parsed password (a URL without "//" whose text has a login's shape), ""
// when there is none.
func hiddenText(u *url.URL) string {
	if u.Hier {
		return "" // the password field is the only secret
	}
	s, r := u.String(), u.Redacted()
	if s == r {
		return ""
	}
	i := 0
	for i < len(s) && i < len(r) && s[i] == r[i] {
		i++
	}
	j := 0
	for j < len(s)-i && j < len(r)-i && s[len(s)-1-j] == r[len(r)-1-j] {
		j++
	}
	return s[i : len(s)-j]
}
