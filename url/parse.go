package url

// Parser parses URLs. Its zero value is strict.
type Parser struct {
	// Lenient accepts raw spaces, national characters ('~', '{', ...),
	// non-ASCII bytes, stray '%' signs, a "#fragment", IPv6 literals and an
	// empty port, encoding what must be encoded. It also takes '_' in host
	// names, a '?' right after the host ("http://h?q"), a user in schemes
	// without a login, unencoded '/' in a WAIS wpath, and leading and
	// trailing white space (trimmed). Control characters are refused in
	// both modes. The default is strict.
	Lenient bool
}

// Parse parses rawURL strictly by the BNF of RFC 1738 §5.
func Parse(rawURL string) (*URL, error) { return Parser{}.Parse(rawURL) }

// ParseLenient parses rawURL as a lenient Parser does.
func ParseLenient(rawURL string) (*URL, error) { return Parser{Lenient: true}.Parse(rawURL) }

// Parse parses rawURL. A malformed URL yields an *Error giving the byte
// offset where parsing stopped; its Input has any password redacted.
func (p Parser) Parse(rawURL string) (*URL, error) {
	u, err := p.parse(rawURL)
	if err != nil {
		err.Input = redactRaw(rawURL)
		return nil, err
	}
	return u, nil
}

// schemeInfo is what the scheme name of a URL tells the parser.
type schemeInfo struct {
	name  string  // lower-case, unless upper
	upper bool    // name, of an unknown scheme, has upper-case letters
	info  *Scheme // nil for a scheme the package does not know
	fam   string  // the family (see Family) of a known scheme
}

// parse parses s in four steps: the scheme name (§2.1), the "//" login of
// the common Internet scheme syntax (§3.1), the url-path, and the rules of
// the scheme (§3). It parses into a builder on the stack and makes the one
// allocation only once the URL is known to be well formed (see
// builder.url). Control characters are refused wherever they stand, by the
// scan of each component.
func (p Parser) parse(s string) (*URL, *Error) {
	off := 0 // offset of s within the original input
	if p.Lenient {
		off, s = trimSpace(s)
	}
	sc, colon, err := parseScheme(s, off)
	if err != nil {
		return nil, err
	}
	var b builder
	b.u.Scheme, b.lowerScheme = sc.name, sc.upper
	rest := s[colon+1:]
	off += colon + 1

	slashes := len(rest) >= 2 && rest[0] == '/' && rest[1] == '/'
	if (sc.info != nil && sc.info.Hier) || (sc.info == nil && slashes) {
		if !slashes {
			return nil, &Error{Offset: off, Expected: `"//" after "` + sc.name + `:"`}
		}
		n, err := p.parseHier(&b, rest[2:], off+2, sc)
		if err != nil {
			return nil, err
		}
		n += 2
		off += n
		rest = rest[n:]
	}
	if err := p.parsePath(&b, rest, off); err != nil {
		return nil, err
	}
	// (A lenient parser checks nothing more for http, gopher and file.)
	if sc.info != nil && (!p.Lenient || (sc.fam != "http" && sc.fam != "gopher" && sc.fam != "file")) {
		// A lenient parser's path is checked as it stands in the input,
		// before encoding: its rules look at no byte that needs encoding.
		if err := p.checkScheme(&b.u, sc.fam, off); err != nil {
			return nil, err
		}
	}
	return b.url(), nil
}

// trimSpace trims the white space a lenient parser ignores around a URL,
// returning the offset of what is left and what is left.
func trimSpace(s string) (int, string) {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return i, s[i:j]
}

// parseScheme parses scheme ":" at the start of s, which starts at offset
// off, returning what the scheme is and the index of the colon.
func parseScheme(s string, off int) (schemeInfo, int, *Error) {
	// The common cases first: most URLs are http or https.
	switch {
	case len(s) >= 8 && s[:8] == "https://":
		return schemeInfo{name: "https", info: &schemes[10], fam: "http"}, 5, nil
	case len(s) >= 7 && s[:7] == "http://":
		return schemeInfo{name: "http", info: &schemes[1], fam: "http"}, 4, nil
	}
	colon := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			colon = i
			break
		}
		if class[c]&cScheme == 0 {
			if isControl(c) {
				return schemeInfo{}, 0, errControl(off + i)
			}
			return schemeInfo{}, 0, &Error{Offset: off + i, Expected: "scheme character or ':'"}
		}
	}
	if colon < 0 {
		return schemeInfo{}, 0, &Error{Offset: off + len(s), Expected: "':' after the scheme name"}
	}
	if colon == 0 {
		return schemeInfo{}, 0, &Error{Offset: off, Expected: "scheme name"}
	}
	if i := schemeIndex(s[:colon]); i >= 0 {
		// The static name: no allocation for "HTTP:".
		return schemeInfo{name: schemes[i].Name, info: &schemes[i], fam: families[i]}, colon, nil
	}
	return schemeInfo{name: s[:colon], upper: hasUpper(s[:colon])}, colon, nil
}

// parseHier parses login [ "/" ] of the common Internet scheme syntax
// (§3.1) at the start of s, just after the "//", which starts at offset off,
// into b: its login, Hier and Slash. It returns how many bytes of s it took.
func (p Parser) parseHier(b *builder, s string, off int, sc schemeInfo) (int, *Error) {
	end, ls := p.scanLogin(s, sc.fam)
	b.u.Hier = true
	if ls.fast && ls.at < 0 && ls.bad < 0 && ls.colon < 0 && end > 0 {
		// The common case: a lenient host name and nothing else.
		b.u.Host = s[:end]
	} else if err := p.parseLogin(b, s[:end], ls, off, sc.info); err != nil {
		return 0, err
	}
	if end < len(s) && s[end] == '/' {
		b.u.Slash = true
		end++
	}
	return end, nil
}

// parsePath sets b's Path (and, for a lenient parser, its Fragment) from
// s, the rest of the URL, which starts at offset off. A strict parser
// checks that s is *xchar; a lenient one splits off the fragment and
// counts the bytes that builder.url must encode.
func (p Parser) parsePath(b *builder, s string, off int) *Error {
	if !p.Lenient {
		if err := checkXchars(s, off); err != nil {
			return err
		}
		b.u.Path = s
		return nil
	}
	hash, bad, err := scanLenient(s, off)
	if err != nil {
		return err
	}
	if hash < len(s) {
		frag := s[hash+1:]
		fragBad, err := countBad(frag, off+hash+1)
		if err != nil {
			return err
		}
		b.u.Fragment, b.u.HasFragment, b.fragBad = frag, true, fragBad
		s = s[:hash]
	}
	b.u.Path, b.pathBad = s, bad
	return nil
}

// all8 reports whether each of the eight bytes of s has a bit of mask.
func all8(s string, mask uint16) bool {
	if len(s) != 8 {
		return false
	}
	return class[s[0]]&class[s[1]]&class[s[2]]&class[s[3]]&
		class[s[4]]&class[s[5]]&class[s[6]]&class[s[7]]&mask != 0
}
