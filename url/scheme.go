package url

import "slices"

// Scheme holds the facts about one URL scheme that the parser and the fetch
// client need: its default port, whether it uses the common Internet scheme
// syntax of RFC 1738 §3.1 ("//" login), and whether it names a data object
// that can be retrieved (mailto and telnet do not, §3.5 and §3.8).
type Scheme struct {
	Name        string // lower-case
	DefaultPort int    // 0 when the scheme has none
	Hier        bool   // "//" login follows the colon
	Data        bool   // the URL names a retrievable data object
	RFC1738     bool   // defined by RFC 1738 itself (the others are later companions)
}

var schemes = [...]Scheme{
	{Name: "ftp", DefaultPort: 21, Hier: true, Data: true, RFC1738: true},
	{Name: "http", DefaultPort: 80, Hier: true, Data: true, RFC1738: true},
	{Name: "gopher", DefaultPort: 70, Hier: true, Data: true, RFC1738: true},
	{Name: "mailto", Data: false, RFC1738: true},
	{Name: "news", Data: true, RFC1738: true},
	{Name: "nntp", DefaultPort: 119, Hier: true, Data: true, RFC1738: true},
	{Name: "telnet", DefaultPort: 23, Hier: true, Data: false, RFC1738: true},
	{Name: "wais", DefaultPort: 210, Hier: true, Data: true, RFC1738: true},
	{Name: "file", Hier: true, Data: true, RFC1738: true},
	{Name: "prospero", DefaultPort: 1525, Hier: true, Data: true, RFC1738: true},
	// Secure variants in common use, with the syntax of their plain scheme.
	{Name: "https", DefaultPort: 443, Hier: true, Data: true},
	{Name: "ftps", DefaultPort: 990, Hier: true, Data: true},
	{Name: "gophers", DefaultPort: 70, Hier: true, Data: true},
	{Name: "nntps", DefaultPort: 563, Hier: true, Data: true},
	{Name: "snews", Data: true},
}

// otherPorts are the well-known ports besides its DefaultPort that a
// scheme's servers listen on: its plain or secure twin's, mail submission.
var otherPorts = map[string][]int{
	"ftp":    {990},
	"ftps":   {21},
	"nntp":   {563},
	"nntps":  {119},
	"news":   {119, 563},
	"snews":  {563, 119},
	"mailto": {25, 465, 587},
}

// OwnsPort reports whether port is one of the well-known ports the
// scheme's servers listen on: its DefaultPort, or its plain or secure
// twin's (ftp and ftps, nntp and nntps), or, for news and mailto, which
// have none by the URL, the NNTP and SMTP ports.
func (s Scheme) OwnsPort(port int) bool {
	return port != 0 && (port == s.DefaultPort || slices.Contains(otherPorts[s.Name], port))
}

// families holds family(schemes[i].Name) for each scheme, for the parser.
var families [len(schemes)]string

func init() {
	for i, s := range schemes {
		families[i] = family(s.Name)
	}
}

// LookupScheme returns the facts about a known scheme, given in lower case.
func LookupScheme(name string) (Scheme, bool) {
	if i := schemeIndex(name); i >= 0 && schemes[i].Name == name {
		return schemes[i], true
	}
	return Scheme{}, false
}

// schemeIndex returns the index in schemes of the scheme named name,
// ignoring ASCII case (RFC 1738 §2.1), or -1. It does not allocate.
func schemeIndex(name string) int {
	switch name { // the common case: already lower case
	case "http":
		return 1
	case "https":
		return 10
	case "ftp":
		return 0
	}
	if len(name) < 3 || len(name) > 8 {
		return -1
	}
	var b [8]byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	switch string(b[:len(name)]) {
	case "ftp":
		return 0
	case "http":
		return 1
	case "gopher":
		return 2
	case "mailto":
		return 3
	case "news":
		return 4
	case "nntp":
		return 5
	case "telnet":
		return 6
	case "wais":
		return 7
	case "file":
		return 8
	case "prospero":
		return 9
	case "https":
		return 10
	case "ftps":
		return 11
	case "gophers":
		return 12
	case "nntps":
		return 13
	case "snews":
		return 14
	}
	return -1
}

// Schemes returns every scheme the package knows, RFC 1738's ten first.
func Schemes() []Scheme {
	out := make([]Scheme, len(schemes))
	copy(out, schemes[:])
	return out
}

// family maps a secure variant onto the plain scheme whose syntax it shares.
func family(scheme string) string {
	switch scheme {
	case "https":
		return "http"
	case "ftps":
		return "ftp"
	case "gophers":
		return "gopher"
	case "nntps":
		return "nntp"
	case "snews":
		return "news"
	}
	return scheme
}

// Family returns the RFC 1738 scheme whose syntax the URL follows: "http"
// for https, "ftp" for ftps, "gopher" for gophers, "nntp" for nntps, "news"
// for snews, and the scheme itself otherwise.
func (u *URL) Family() string { return family(u.Scheme) }
