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
	// MapHost, when set, maps a lenient parse's host that holds non-ASCII
	// bytes (an international domain name, "bücher.test") to the ASCII
	// name the URL then holds, as IDNA 2008 and UTS #46 say
	// ("xn--bcher-kva.test"); its error makes the URL malformed. The
	// package keeps to the standard library, so the mapping is given:
	// fetch.IDNAHost is the usual one, and fetch.Client's lenient Parser
	// uses it unless told otherwise. A strict parse never calls it: RFC
	// 1738 hosts are ASCII.
	MapHost func(host string) (string, error)
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
	// The scheme: the common cases first, as most URLs are http or https.
	var name, fam string
	var info *Scheme
	var colon int
	switch {
	case len(s) >= 8 && s[:8] == "https://":
		name, info, fam, colon = "https", &schemes[10], "http", 5
	case len(s) >= 7 && s[:7] == "http://":
		name, info, fam, colon = "http", &schemes[1], "http", 4
	default:
		var err *Error
		if name, info, fam, colon, err = parseScheme(s, off); err != nil {
			return nil, err
		}
	}
	var b builder
	b.u.Scheme, b.lowerScheme = name, info == nil && hasUpper(name)
	rest := s[colon+1:]
	off += colon + 1

	// login [ "/" ], after "//"
	slashes := len(rest) >= 2 && rest[0] == '/' && rest[1] == '/'
	if (info != nil && info.Hier) || (info == nil && slashes) {
		if !slashes {
			return nil, &Error{Offset: off, Expected: `"//" after "` + name + `:"`}
		}
		rest = rest[2:]
		off += 2
		end, ls := p.scanLogin(rest, fam)
		if ls.fast && ls.at < 0 && ls.bad < 0 && ls.colon < 0 && end > 0 {
			// The common case: a lenient host name and nothing else.
			b.u.Host = rest[:end]
		} else if err := p.parseLogin(&b, rest[:end], ls, off, info); err != nil {
			return nil, err
		}
		b.u.Hier = true
		if end < len(rest) && rest[end] == '/' {
			b.u.Slash = true
			end++
		}
		rest = rest[end:]
		off += end
	}

	// The url-path: a strict parser checks that it is *xchar; a lenient
	// one splits off the fragment and counts the bytes that builder.url
	// must encode.
	if !p.Lenient {
		if err := checkXchars(rest, off); err != nil {
			return nil, err
		}
		b.u.Path = rest
	} else {
		hash, bad, err := scanLenient(rest, off)
		if err != nil {
			return nil, err
		}
		if hash < len(rest) {
			frag := rest[hash+1:]
			fragBad, err := countBad(frag, off+hash+1)
			if err != nil {
				return nil, err
			}
			b.u.Fragment, b.u.HasFragment, b.fragBad = frag, true, fragBad
			rest = rest[:hash]
		}
		b.u.Path, b.pathBad = rest, bad
	}

	// The rules of the scheme. (A lenient parser checks nothing more for
	// http, gopher and file.)
	if info != nil && (!p.Lenient || (fam != "http" && fam != "gopher" && fam != "file")) {
		// A lenient parser checks the path as it stands in the input,
		// before encoding: its rules turn only on bytes that need no
		// encoding, and an error's offset is then the input's.
		if err := p.checkScheme(&b.u, fam, off); err != nil {
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
// off, returning the scheme's name and the index of the colon. For a
// scheme the package knows, it returns the name in lower case, the facts
// about it and its family (see Family); for another, the name as written.
func parseScheme(s string, off int) (name string, info *Scheme, fam string, colon int, err *Error) {
	colon = -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			colon = i
			break
		}
		if class[c]&cScheme == 0 {
			if isControl(c) {
				return "", nil, "", 0, errControl(off + i)
			}
			return "", nil, "", 0, &Error{Offset: off + i, Expected: "scheme character or ':'"}
		}
	}
	if colon < 0 {
		return "", nil, "", 0, &Error{Offset: off + len(s), Expected: "':' after the scheme name"}
	}
	if colon == 0 {
		return "", nil, "", 0, &Error{Offset: off, Expected: "scheme name"}
	}
	if i := schemeIndex(s[:colon]); i >= 0 {
		// The static name: no allocation for "HTTP:".
		return schemes[i].Name, &schemes[i], families[i], colon, nil
	}
	return s[:colon], nil, "", colon, nil
}
