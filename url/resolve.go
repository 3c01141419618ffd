package url

import "strings"

// ResolveReference resolves ref, an absolute URL or a relative reference
// such as a link in a page, against u as its base, by RFC 1808 §4, and
// parses the result leniently (references are real-world text). It is
// Parser{Lenient: true}.Resolve(u, ref); see Resolve for what each scheme
// does.
func (u *URL) ResolveReference(ref string) (*URL, error) {
	return Parser{Lenient: true}.Resolve(u, ref)
}

// Resolve resolves ref against base by the algorithm of RFC 1808 §4 and
// parses the absolute URL it gives with p. ref may be an absolute URL
// ("scheme:..."), a network-path reference ("//host/p"), an absolute path
// ("/p"), a relative path ("p", "../p", "p?q"), a query or parameters alone
// ("?q", ";x"), a fragment alone ("#f") or empty (the base itself).
//
// How a relative path resolves depends on the base's scheme:
//
//   - http and https: RFC 1808 exactly. The path, ";params", "?query" and
//     "#fragment" are told apart (§2.4), the base's last segment is
//     replaced and "." and ".." segments are removed (§4 step 6); an empty
//     path keeps the base's path, params and query as §4 step 5 says.
//   - ftp, ftps and file: the same, except that '?' is an ordinary path
//     character there (RFC 1738 §3.2.2, §3.10), so there is no query, and
//     only ftp has params (its ";type=" typecode).
//   - gopher and gophers: the type and selector are opaque (RFC 1436 gives
//     the selector meaning only on the server), so only an absolute URL, a
//     network-path reference, an absolute path ("/1/dir", taken verbatim
//     as the type and selector), a fragment or the empty reference
//     resolve; a relative path is an *Error.
//   - The other schemes have no hierarchical path: a relative path or a
//     query is an *Error there too.
//
// Unremovable ".." segments are kept, as RFC 1808 §5.2 shows
// ("../../../g" against "http://a/b/c/d;p?q" is "http://a/../g"). A
// reference that starts with a scheme name is absolute even when that is
// the base's scheme ("http:g" does not parse: http needs "//").
func (p Parser) Resolve(base *URL, ref string) (*URL, error) {
	if p.Lenient {
		_, ref = trimSpace(ref)
	}
	if ref == "" {
		// §4 step 1: the empty reference is the base, fragment and all.
		return p.Parse(base.String())
	}
	if hasScheme(ref) {
		return p.Parse(ref) // §4 step 2a
	}
	if strings.HasPrefix(ref, "//") {
		return p.Parse(base.Scheme + ":" + ref) // §4 step 3
	}
	ref, frag, hasFrag := strings.Cut(ref, "#")
	fragment := ""
	if hasFrag {
		fragment = "#" + frag
	}
	if ref == "" {
		// §4 step 5 with nothing but a fragment: the base's path,
		// params and query are kept.
		b := *base
		b.Fragment, b.HasFragment = "", false
		return p.Parse(b.String() + fragment)
	}
	var params, query bool
	switch base.Family() {
	case "http":
		params, query = true, true
	case "ftp":
		params = true
	case "file":
	case "gopher":
		if ref[0] != '/' {
			return nil, &Error{Input: redactRaw(ref), Offset: 0,
				Expected: "an absolute URL, a //host or a /path reference (a gopher selector is opaque, RFC 1436)"}
		}
		return p.Parse(baseAuthority(base) + ref + fragment)
	default:
		return nil, &Error{Input: redactRaw(ref), Offset: 0,
			Expected: "an absolute URL or a //host reference (" + base.Scheme + " URLs have no hierarchical path)"}
	}
	if !base.Hier {
		return nil, &Error{Input: redactRaw(ref), Offset: 0,
			Expected: "an absolute URL (the base has no \"//\" and so no path to resolve against)"}
	}
	r := splitRef(ref, params, query)
	b := splitRef(base.Path, params, query) // its path is "/"+b.path
	switch {
	case strings.HasPrefix(r.path, "/"):
		// §4 step 4: an absolute path, taken as it is.
	case r.path == "":
		// §4 step 5: the base's path, and its params and query unless the
		// reference has its own.
		r.path = "/" + b.path
		if !r.hasParams {
			r.params, r.hasParams = b.params, b.hasParams
			if !r.hasQuery {
				r.query, r.hasQuery = b.query, b.hasQuery
			}
		}
	default:
		// §4 step 6: the base's last segment replaced, dot segments removed.
		r.path = removeDotSegments("/" + b.path[:strings.LastIndexByte(b.path, '/')+1] + r.path)
	}
	// baseAuthority(base) + r.String() + fragment, made at once.
	var s strings.Builder
	s.Grow(len(base.Scheme) + len(base.Host) + len(r.path) + len(r.params) + len(r.query) + len(fragment) + 32)
	a := URL{Scheme: base.Scheme, User: base.User, Host: base.Host, Port: base.Port, Hier: base.Hier}
	a.writeAuthority(&s, false)
	s.WriteString(r.path)
	if r.hasParams {
		s.WriteByte(';')
		s.WriteString(r.params)
	}
	if r.hasQuery {
		s.WriteByte('?')
		s.WriteString(r.query)
	}
	s.WriteString(fragment)
	return p.Parse(s.String())
}

// hasScheme reports whether ref begins with a scheme name and ':' (before
// any '/', '?' or '#'), which makes it an absolute URL (RFC 1808 §2.4.2).
func hasScheme(ref string) bool {
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if c == ':' {
			return i > 0
		}
		if class[c]&cScheme == 0 {
			return false
		}
	}
	return false
}

// baseAuthority returns "scheme://login" of u, with no path.
func baseAuthority(u *URL) string {
	a := URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Port: u.Port, Hier: u.Hier}
	return a.String()
}

// ref is a path with its params and query, as RFC 1808 §2.4 splits them.
type ref struct {
	path                string
	params, query       string
	hasParams, hasQuery bool
}

// splitRef splits s (without its fragment) into path, ";params" and
// "?query": the query from the first '?' (§2.4.3), then the params from
// the first ';' of what is left (§2.4.4), each only when the scheme has it.
func splitRef(s string, params, query bool) ref {
	var r ref
	if query {
		s, r.query, r.hasQuery = strings.Cut(s, "?")
	}
	if params {
		s, r.params, r.hasParams = strings.Cut(s, ";")
	}
	r.path = s
	return r
}

func (r ref) String() string {
	s := r.path
	if r.hasParams {
		s += ";" + r.params
	}
	if r.hasQuery {
		s += "?" + r.query
	}
	return s
}

// removeDotSegments applies RFC 1808 §4 step 6 (a)-(d) to path, which
// begins with '/': "." segments go, then "segment/.." pairs, leftmost
// first, where segment is not "..". A ".." with no segment before it stays.
func removeDotSegments(path string) string {
	if !hasDotSegment(path) {
		return path
	}
	segs := strings.Split(path[1:], "/")
	// (a) and (b): "./" everywhere, and a last "." (the path then ends in '/').
	out := segs[:0]
	for i, s := range segs {
		if s == "." {
			if i == len(segs)-1 {
				out = append(out, "")
			}
			continue
		}
		out = append(out, s)
	}
	segs = out
	// (c) and (d): "segment/../" leftmost first, then a last "segment/..".
	for i := 0; i+1 < len(segs); {
		if segs[i] != ".." && segs[i+1] == ".." {
			if i+2 == len(segs) {
				segs = append(segs[:i], "") // (d): the path ends in '/'
				break
			}
			segs = append(segs[:i], segs[i+2:]...)
			i = max(i-1, 0)
			continue
		}
		i++
	}
	return "/" + strings.Join(segs, "/")
}
