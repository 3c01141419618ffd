package url

import (
	"reflect"
	"strings"
	"testing"
)

var (
	strict  = Parser{}
	lenient = Parser{Lenient: true}
)

// parseTest is one row of a parser table: in parses (with the mode the
// table says) to want, and want.String() is roundtrip ("" = in itself).
type parseTest struct {
	sect      string // where in RFC 1738 the example or rule stands
	in        string
	want      *URL
	roundtrip string
}

func runParseTests(t *testing.T, p Parser, tests []parseTest) {
	t.Helper()
	for _, tt := range tests {
		u, err := p.Parse(tt.in)
		if err != nil {
			t.Errorf("%s: Parse(%q) (lenient=%v): %v", tt.sect, tt.in, p.Lenient, err)
			continue
		}
		if !reflect.DeepEqual(u, tt.want) {
			t.Errorf("%s: Parse(%q) (lenient=%v) =\n\t%s\nwant\n\t%s", tt.sect, tt.in, p.Lenient, dump(u), dump(tt.want))
		}
		want := tt.roundtrip
		if want == "" {
			want = tt.in
		}
		if s := u.String(); s != want {
			t.Errorf("%s: Parse(%q).String() = %q, want %q", tt.sect, tt.in, s, want)
		}
		u2, err := p.Parse(u.String())
		if err != nil || !reflect.DeepEqual(u, u2) {
			t.Errorf("%s: Parse(%q) does not round-trip: %s, %v", tt.sect, u.String(), dump(u2), err)
		}
	}
}

func dump(u *URL) string {
	if u == nil {
		return "<nil>"
	}
	s := strings.Builder{}
	s.WriteString("{Scheme:" + u.Scheme)
	if u.User != nil {
		s.WriteString(" User:" + u.User.Username)
		if u.User.HasPassword {
			s.WriteString(" Password:" + u.User.Password)
		}
	}
	v := *u
	v.User = nil
	return s.String() + " " + strings.TrimPrefix(strings.ReplaceAll(
		strings.ReplaceAll(fmtURL(v), "\n", ""), "\t", ""), "{") + "}"
}

func fmtURL(v URL) string {
	return "Host:" + v.Host + " Port:" + itoa(v.Port) + " Slash:" + btoa(v.Slash) + " Path:" + v.Path +
		" Fragment:" + v.Fragment + " HasFragment:" + btoa(v.HasFragment) + " Hier:" + btoa(v.Hier)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func btoa(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// ftpURL and friends build expected URLs tersely.
func hier(scheme, host string, port int, slash bool, path string) *URL {
	return &URL{Scheme: scheme, Host: host, Port: port, Slash: slash, Path: path, Hier: true}
}

func withUser(u *URL, ui *Userinfo) *URL { u.User = ui; return u }

// rfcExamples holds every example URL written in the text of RFC 1738, in
// the order they appear. Each parses strictly and leniently to the same URL.
var rfcExamples = []parseTest{
	{"§1 (URI-WG archive)", "http://www.acl.lanl.gov/URI/archive/uri-archive.index.html",
		hier("http", "www.acl.lanl.gov", 0, true, "URI/archive/uri-archive.index.html"), ""},
	{"§3.1 empty user, no password", "ftp://@host.com/",
		withUser(hier("ftp", "host.com", 0, true, ""), &Userinfo{}), ""},
	{"§3.1 no user", "ftp://host.com/",
		hier("ftp", "host.com", 0, true, ""), ""},
	{"§3.1 user foo, empty password", "ftp://foo:@host.com/",
		withUser(hier("ftp", "host.com", 0, true, ""), &Userinfo{Username: "foo", HasPassword: true}), ""},
	{"§3.2.2 %2F: CWD /etc", "ftp://myname@host.dom/%2Fetc/motd",
		withUser(hier("ftp", "host.dom", 0, true, "%2Fetc/motd"), User("myname")), ""},
	{"§3.2.2 CWD etc", "ftp://myname@host.dom/etc/motd",
		withUser(hier("ftp", "host.dom", 0, true, "etc/motd"), User("myname")), ""},
	{"§3.2.2 empty CWD", "ftp://myname@host.dom//etc/motd",
		withUser(hier("ftp", "host.dom", 0, true, "/etc/motd"), User("myname")), ""},
	{"§3.6 all groups", "news:*",
		&URL{Scheme: "news", Path: "*"}, ""},
	{"§3.10 VMS file", "file://vms.host.edu/disk$user/my/notes/note12345.txt",
		hier("file", "vms.host.edu", 0, true, "disk$user/my/notes/note12345.txt"), ""},
	{"§3.11 hsoname /pros/name", "prospero://host.dom//pros/name",
		hier("prospero", "host.dom", 0, true, "/pros/name"), ""},
	{"Appendix (whitespace removed)", "ftp://info.cern.ch/pub/www/doc;type=d",
		hier("ftp", "info.cern.ch", 0, true, "pub/www/doc;type=d"), ""},
	{"Appendix (whitespace removed)", "ftp://ds.internic.net/rfc",
		hier("ftp", "ds.internic.net", 0, true, "rfc"), ""},
	{"References [1]", "ftp://ds.internic.net/rfc/rfc1436.txt;type=a",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1436.txt;type=a"), ""},
	{"References [2] (line break removed)", "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
		hier("ftp", "boombox.micro.umn.edu", 0, true, "pub/gopher/gopher_protocol/Gopher+/Gopher+.txt"), ""},
	{"References [3]", "ftp://ds.internic.net/rfc/rfc1630.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1630.txt"), ""},
	{"References [4]", "ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z",
		hier("ftp", "info.cern.ch", 0, true, "pub/www/doc/http-spec.txt.Z"), ""},
	{"References [5]", "ftp://ds.internic.net/rfc/rfc1123.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1123.txt"), ""},
	{"References [6]", "ftp://ds.internic.net/rfc/rfc822.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc822.txt"), ""},
	{"References [7]", "ftp://quake.think.com/pub/wais/doc/protspec.txt",
		hier("ftp", "quake.think.com", 0, true, "pub/wais/doc/protspec.txt"), ""},
	{"References [8]", "ftp://ds.internic.net/rfc/rfc1036.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1036.txt"), ""},
	{"References [10]", "ftp://quake.think.com/pub/wais/doc/doc-ids.txt",
		hier("ftp", "quake.think.com", 0, true, "pub/wais/doc/doc-ids.txt"), ""},
	{"References [11]", "ftp://ds.internic.net/rfc/rfc977.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc977.txt"), ""},
	{"References [12] (line break removed)", "ftp://ds.internic.net/internet-drafts/draft-ietf-uri-irl-fun-req-02.txt",
		hier("ftp", "ds.internic.net", 0, true, "internet-drafts/draft-ietf-uri-irl-fun-req-02.txt"), ""},
	{"References [13]", "ftp://ds.internic.net/rfc/rfc1034.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1034.txt"), ""},
	{"References [14] (line break removed)", "ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
		hier("ftp", "prospero.isi.edu", 0, true, "pub/prospero/doc/prospero-protocol.PS.Z"), ""},
	{"References [15]", "ftp://ds.internic.net/rfc/rfc959.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc959.txt"), ""},
	{"References [16]", "ftp://ds.internic.net/rfc/rfc1737.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1737.txt"), ""},
	{"References [17]", "ftp://ds.internic.net/rfc/rfc1625.txt",
		hier("ftp", "ds.internic.net", 0, true, "rfc/rfc1625.txt"), ""},
	{"References [18]", "ftp://uu.psi.com/wp/nir.txt",
		hier("ftp", "uu.psi.com", 0, true, "wp/nir.txt"), ""},
}

func TestParseRFCExamples(t *testing.T) {
	runParseTests(t, strict, rfcExamples)
	runParseTests(t, lenient, rfcExamples)
}

// TestParseRFCFragmentExample is the Appendix's "#WARNING" example: a
// fragment is not part of RFC 1738's URL, so only a lenient parser takes it.
func TestParseRFCFragmentExample(t *testing.T) {
	const in = "http://ds.internic.net/instructions/overview.html#WARNING"
	want := hier("http", "ds.internic.net", 0, true, "instructions/overview.html")
	want.Fragment, want.HasFragment = "WARNING", true
	runParseTests(t, lenient, []parseTest{{"Appendix", in, want, ""}})
	if _, err := Parse(in); err == nil {
		t.Errorf("Parse(%q) (strict) succeeded, want an error at the '#'", in)
	} else if e := err.(*Error); e.Offset != strings.IndexByte(in, '#') {
		t.Errorf("Parse(%q) (strict) offset = %d, want %d", in, e.Offset, strings.IndexByte(in, '#'))
	}
}

// TestParseSchemes covers each scheme's BNF in §5, strictly (and the
// lenient parser agrees on all of them).
func TestParseSchemes(t *testing.T) {
	tests := []parseTest{
		// §3.1 common syntax, §3.2 ftp
		{"§3.1 no url-path", "ftp://host.com", hier("ftp", "host.com", 0, false, ""), ""},
		{"§3.1 explicit port", "ftp://host.com:2121/a", hier("ftp", "host.com", 2121, true, "a"), ""},
		{"§3.1 default port kept implicit", "ftp://host.com:21/a", hier("ftp", "host.com", 21, true, "a"), ""},
		{"§3.1 IPv4 hostnumber", "ftp://10.0.0.1/", hier("ftp", "10.0.0.1", 0, true, ""), ""},
		{"§3.1 user and password", "ftp://u:p@h.org/",
			withUser(hier("ftp", "h.org", 0, true, ""), UserPassword("u", "p")), ""},
		{"§3.1 encoded ':' '@' '/' in login", "ftp://a%3Ab:c%40d%2Fe@h.org/",
			withUser(hier("ftp", "h.org", 0, true, ""), UserPassword("a:b", "c@d/e")), ""},
		{"§5 user allows ; ? & =", "ftp://a;b?c&d=e:f@h.org/",
			withUser(hier("ftp", "h.org", 0, true, ""), UserPassword("a;b?c&d=e", "f")), ""},
		{"§3.2.2 typecode i", "ftp://h.org/a/b;type=i", hier("ftp", "h.org", 0, true, "a/b;type=i"), ""},
		{"§3.2.2 typecode upper case", "ftp://h.org/a;type=A", hier("ftp", "h.org", 0, true, "a;type=A"), ""},
		// §3.3 http
		{"§3.3 host only", "http://h.org", hier("http", "h.org", 0, false, ""), ""},
		{"§3.3 search", "http://h.org/p;x:y@z&w=v?q=1;a:b@c&d", hier("http", "h.org", 0, true, "p;x:y@z&w=v?q=1;a:b@c&d"), ""},
		{"§3.3 port", "http://h.org:8080/", hier("http", "h.org", 8080, true, ""), ""},
		// §3.4 gopher
		{"§3.4.1 empty path", "gopher://h.org", hier("gopher", "h.org", 0, false, ""), ""},
		{"§3.4.1 selector", "gopher://h.org/0/readme", hier("gopher", "h.org", 0, true, "0/readme"), ""},
		{"§3.4.3 search and plus", "gopher://h.org/7/s%09query%09+", hier("gopher", "h.org", 0, true, "7/s%09query%09+"), ""},
		{"§3.4.9 form", "gopher://h.org/1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A",
			hier("gopher", "h.org", 0, true, "1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A"), ""},
		// §3.5 mailto
		{"§3.5 mailto", "mailto:joe@h.org", &URL{Scheme: "mailto", Path: "joe@h.org"}, ""},
		{"§3.5 encoded %", "mailto:a%25b@h.org", &URL{Scheme: "mailto", Path: "a%25b@h.org"}, ""},
		// §3.6 news
		{"§3.6 group", "news:comp.infosystems.www.misc", &URL{Scheme: "news", Path: "comp.infosystems.www.misc"}, ""},
		{"§3.6 article", "news:1234.abc@h.org", &URL{Scheme: "news", Path: "1234.abc@h.org"}, ""},
		// §3.7 nntp
		{"§3.7 group", "nntp://h.org/comp.lang.go", hier("nntp", "h.org", 0, true, "comp.lang.go"), ""},
		{"§3.7 article", "nntp://h.org:1119/comp.lang.go/42", hier("nntp", "h.org", 1119, true, "comp.lang.go/42"), ""},
		// §3.8 telnet
		{"§3.8 bare", "telnet://h.org", hier("telnet", "h.org", 0, false, ""), ""},
		{"§3.8 final slash", "telnet://u:p@h.org:2323/",
			withUser(hier("telnet", "h.org", 2323, true, ""), UserPassword("u", "p")), ""},
		// §3.9 wais
		{"§3.9 database", "wais://h.org/db", hier("wais", "h.org", 0, true, "db"), ""},
		{"§3.9 search", "wais://h.org/db?a+b", hier("wais", "h.org", 0, true, "db?a+b"), ""},
		{"§3.9 document", "wais://h.org/db/TEXT/0%2F12", hier("wais", "h.org", 0, true, "db/TEXT/0%2F12"), ""},
		// §3.10 file
		{"§3.10 empty host", "file:///etc/motd", hier("file", "", 0, true, "etc/motd"), ""},
		{"§3.10 localhost", "file://localhost/etc/motd", hier("file", "localhost", 0, true, "etc/motd"), ""},
		{"§3.10 root", "file:///", hier("file", "", 0, true, ""), ""},
		// §3.11 prospero
		{"§3.11 fields", "prospero://h.org:1526/a/b;OBJECT-VERSION=2;x=",
			hier("prospero", "h.org", 1526, true, "a/b;OBJECT-VERSION=2;x="), ""},
		// §2.1, §5: scheme case, other schemes
		{"§2.1 scheme case-ignore", "FTP://h.org/", hier("ftp", "h.org", 0, true, ""), "ftp://h.org/"},
		{"§2.1 mixed case", "HtTpS://h.org/", hier("https", "h.org", 0, true, ""), "https://h.org/"},
		{"§5 otherurl", "x-foo:any;thing/?:@&=", &URL{Scheme: "x-foo", Path: "any;thing/?:@&="}, ""},
		{"§5 otherurl with //", "z39.50s://h.org:210/db", hier("z39.50s", "h.org", 210, true, "db"), ""},
		{"§5 otherurl unknown upper", "X-Y://h.org", hier("x-y", "h.org", 0, false, ""), "x-y://h.org"},
		{"§5 scheme starting with a digit", "3com:x", &URL{Scheme: "3com", Path: "x"}, ""},
		{"§5 unknown // with user", "foo://u:p@h.org/",
			withUser(hier("foo", "h.org", 0, true, ""), UserPassword("u", "p")), ""},
	}
	runParseTests(t, strict, tests)
	runParseTests(t, lenient, tests)
}

// TestUserDistinctions checks §3.1: no user, empty user, user with empty
// password, and that String keeps each distinction.
func TestUserDistinctions(t *testing.T) {
	tests := []struct {
		in      string
		user    *Userinfo
		wantStr string
	}{
		{"ftp://h.org/", nil, "ftp://h.org/"},
		{"ftp://@h.org/", &Userinfo{}, "ftp://@h.org/"},
		{"ftp://:@h.org/", &Userinfo{HasPassword: true}, "ftp://:@h.org/"},
		{"ftp://u@h.org/", &Userinfo{Username: "u"}, "ftp://u@h.org/"},
		{"ftp://u:@h.org/", &Userinfo{Username: "u", HasPassword: true}, "ftp://u:@h.org/"},
		{"ftp://:p@h.org/", &Userinfo{Password: "p", HasPassword: true}, "ftp://:p@h.org/"},
		{"ftp://u%3A:p%40@h.org/", &Userinfo{Username: "u:", Password: "p@", HasPassword: true}, "ftp://u%3A:p%40@h.org/"},
	}
	for _, p := range []Parser{strict, lenient} {
		for _, tt := range tests {
			u, err := p.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(u.User, tt.user) {
				t.Errorf("Parse(%q).User = %+v, want %+v", tt.in, u.User, tt.user)
			}
			if s := u.String(); s != tt.wantStr {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, tt.wantStr)
			}
		}
	}
}

// TestDefaultPorts checks the default port of each scheme (§3.2 to §3.11).
func TestDefaultPorts(t *testing.T) {
	tests := []struct {
		in   string
		want int
		hp   string
	}{
		{"ftp://h.org/", 21, "h.org:21"},
		{"http://h.org/", 80, "h.org:80"},
		{"gopher://h.org/", 70, "h.org:70"},
		{"nntp://h.org/g", 119, "h.org:119"},
		{"telnet://h.org/", 23, "h.org:23"},
		{"wais://h.org/db", 210, "h.org:210"},
		{"prospero://h.org/x", 1525, "h.org:1525"},
		{"https://h.org/", 443, "h.org:443"},
		{"ftps://h.org/", 990, "h.org:990"},
		{"nntps://h.org/g", 563, "h.org:563"},
		{"file:///x", 0, ":0"},
		{"mailto:a@b.org", 0, ":0"},
		{"news:a.b", 0, ":0"},
		{"foo://h.org/", 0, "h.org:0"},
		{"http://h.org:8080/", 8080, "h.org:8080"},
		{"http://[::1]:8080/", 8080, "[::1]:8080"},
	}
	for _, tt := range tests {
		u, err := ParseLenient(tt.in)
		if err != nil {
			t.Fatalf("ParseLenient(%q): %v", tt.in, err)
		}
		if got := u.EffectivePort(); got != tt.want {
			t.Errorf("ParseLenient(%q).EffectivePort() = %d, want %d", tt.in, got, tt.want)
		}
		if got := u.HostPort(); got != tt.hp {
			t.Errorf("ParseLenient(%q).HostPort() = %q, want %q", tt.in, got, tt.hp)
		}
	}
}

// TestStrictLenient lists what a lenient parser accepts and a strict one
// refuses (CONTRACT §1 --strict), with the strict error offset and the
// lenient canonical form.
func TestStrictLenient(t *testing.T) {
	tests := []struct {
		why       string
		in        string
		strictOff int    // -1: strict accepts too
		lenient   string // lenient String(); "" = lenient refuses too
	}{
		{"§2.2 raw space is unsafe", "http://h.org/a b", 14, "http://h.org/a%20b"},
		{"§2.2 ~ is unsafe", "http://h.org/~joe", 13, "http://h.org/%7Ejoe"},
		{"§2.2 national characters", "ftp://h.org/{a}|b^[c]`\\", 12, "ftp://h.org/%7Ba%7D%7Cb%5E%5Bc%5D%60%5C"},
		{"§2.2 <, >, \" are unsafe", "gopher://h.org/0<\">", 16, "gopher://h.org/0%3C%22%3E"},
		{"§2.2 # is unsafe: a fragment", "http://h.org/p#frag", 14, "http://h.org/p#frag"},
		{"§2.2 a second # in the fragment", "http://h.org/p#a#b", 14, "http://h.org/p#a%23b"},
		{"§2.2 fragment right after the host", "http://h.org#top", 12, "http://h.org#top"},
		{"§2.2 empty fragment", "http://h.org/#", 13, "http://h.org/#"},
		{"§2.2 bad escape", "http://h.org/100%", 16, "http://h.org/100%25"},
		{"§2.2 bad escape, one digit", "http://h.org/%4g", 13, "http://h.org/%254g"},
		{"§2.2 lower-case hex is fine", "http://h.org/%7e", -1, "http://h.org/%7e"},
		{"§2.2 non-ASCII", "http://h.org/caf\xc3\xa9", 16, "http://h.org/caf%C3%A9"},
		{"§2.2 control character", "http://h.org/a\nb", 14, ""},
		{"§2.2 DEL", "http://h.org/a\x7fb", 14, ""},
		{"§2.2 TAB in the login", "ftp://u\t@h.org/", 7, ""},
		{"§2.2 NUL in the fragment", "http://h.org/#\x00", 13, ""},
		{"§2.2 leading and trailing white space", "  http://h.org/ \n", 0, "http://h.org/"},
		{"§3.1 IPv6 literal", "http://[2001:db8::1]:8080/x", 7, "http://[2001:db8::1]:8080/x"},
		{"§3.1 IPv6 without port", "ftp://[::1]/", 6, "ftp://[::1]/"},
		{"§3.1 bad IPv6", "http://[::g]/", 7, ""},
		{"§3.1 unclosed IPv6", "http://[::1/", 7, ""},
		{"§3.1 empty port", "http://h.org:/", 13, "http://h.org/"},
		{"§3.1 underscore in a host", "http://my_host.org/", 9, "http://my_host.org/"},
		{"§3.1 '?' ends the login (real-world)", "http://h.org?q=1", 12, "http://h.org?q=1"},
		{"§3.1 '?' before '@' in an http URL", "http://h.org?a=b@c.org", 7, "http://h.org?a=b@c.org"},
		{"§3.3 https is a later scheme with http's syntax", "https://h.org/a?b", -1, "https://h.org/a?b"},
		{"§3.3 user in an http URL", "http://u:p@h.org/", 7, "http://u:p@h.org/"},
		{"§3.3 '/' in the search part", "http://h.org/a?b/c", 16, "http://h.org/a?b/c"},
		{"§3.10 port in a file URL", "file://h.org:80/x", 12, "file://h.org:80/x"},
		{"§5 fileurl needs its '/'", "file://localhost", 16, "file://localhost"},
		{"§5 waisurl needs its '/'", "wais://h.org", 12, "wais://h.org"},
		{"§3.2.2 ';' in an FTP segment", "ftp://h.org/a;b/c", 13, "ftp://h.org/a;b/c"},
		{"§3.2.2 ;type= only at the end", "ftp://h.org/a;type=d/b", 13, "ftp://h.org/a;type=d/b"},
		{"§3.6 group must start with a letter", "news:1group", 5, "news:1group"},
		{"§3.6 article host", "news:abc@-h.org", 9, "news:abc@-h.org"},
		{"§3.7 nntp trailing slash", "nntp://h.org/g/", 15, "nntp://h.org/g/"},
	}
	for _, tt := range tests {
		u, err := strict.Parse(tt.in)
		switch {
		case tt.strictOff < 0 && err != nil:
			t.Errorf("%s: Parse(%q) = %v, want success", tt.why, tt.in, err)
		case tt.strictOff >= 0 && err == nil:
			t.Errorf("%s: Parse(%q) = %s, want an error at offset %d", tt.why, tt.in, u, tt.strictOff)
		case tt.strictOff >= 0 && err.(*Error).Offset != tt.strictOff:
			t.Errorf("%s: Parse(%q) offset = %d (%v), want %d", tt.why, tt.in, err.(*Error).Offset, err, tt.strictOff)
		}
		u, err = lenient.Parse(tt.in)
		switch {
		case tt.lenient == "" && err == nil:
			t.Errorf("%s: ParseLenient(%q) = %s, want an error", tt.why, tt.in, u)
		case tt.lenient != "" && err != nil:
			t.Errorf("%s: ParseLenient(%q) = %v, want %q", tt.why, tt.in, err, tt.lenient)
		case tt.lenient != "" && u.String() != tt.lenient:
			t.Errorf("%s: ParseLenient(%q) = %q, want %q", tt.why, tt.in, u.String(), tt.lenient)
		}
	}
}

// TestParseErrors checks error offsets and messages: Offset is where the
// parser stopped, in the original input.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		p      Parser
		in     string
		off    int
		substr string
	}{
		{strict, "", 0, "':' after the scheme"},
		{strict, "http", 4, "':' after the scheme"},
		{strict, ":x", 0, "scheme name"},
		{strict, "ht tp://h/", 2, "scheme character"},
		{strict, "ht\ttp://h/", 2, "no control character"},
		{lenient, "  ht tp://h/", 4, "scheme character"},
		{strict, "http:h.org", 5, `"//" after "http:"`},
		{strict, "http:/h.org", 5, `"//"`},
		{strict, "ftp://", 6, "host"},
		{strict, "ftp:///x", 6, "host"},
		{strict, "ftp://u@/x", 8, "host"},
		{strict, "http://h.org:x/", 13, "port digits"},
		{strict, "http://h.org:80x/", 15, "port digits"},
		{strict, "http://h.org:0/", 13, "port from 1 to 65535"},
		{strict, "http://h.org:65536/", 13, "port from 1 to 65535"},
		{lenient, "http://h.org:99999999999999999999/", 13, "port from 1 to 65535"},
		{strict, "http://h..org/", 9, "host name"},
		{strict, "http://-h.org/", 7, "host name"},
		{strict, "http://h-.org/", 8, "host name"},
		{strict, "http://h.org./", 13, "host name"},
		{strict, "http://h.9org/", 9, "host name"},
		{strict, "http://1.2.3/", 11, "host name"},
		{strict, "http://1.2.3.4.5/", 15, "host name"},
		{strict, "http://h_o.org/", 8, "host name"},
		{lenient, "http://h o.org/", 8, "host name"},
		{lenient, "http://h.org\x01/", 12, "no control character"},
		{strict, "ftp://u%zz@h.org/", 7, "two hex digits"},
		{strict, "ftp://u:p%@h.org/", 9, "two hex digits"},
		{strict, "ftp://u:p:q@h.org/", 9, "user or password character"},
		{strict, "gopher://u@h.org/", 9, "gopher URLs have no user or password"},
		{strict, "prospero://u@h.org/x", 11, "have no user or password"},
		{strict, "ftp://h.org/a%2", 13, "two hex digits"},
		{strict, "ftp://h.org/a;type=x", 19, "typecode"},
		{lenient, "ftp://h.org/a;type=", 19, "typecode"},
		{strict, "mailto:", 7, "address"},
		{strict, "news:", 5, "newsgroup"},
		{strict, "news:@h.org", 5, "message-id"},
		{strict, "news:a@", 7, "host after '@'"},
		{strict, "news:a@b@c.org", 6, "message-id character"},
		{strict, "news:g!", 6, "newsgroup name character"},
		{strict, "nntp://h.org/", 13, "newsgroup"},
		{strict, "nntp://h.org/g/1x", 16, "article number"},
		{lenient, "nntp://h.org/g/99999999999999999999", 15, "article number below"},
		{strict, "telnet://h.org/x", 15, "end of telnet URL"},
		{strict, "wais://h.org/a/b", 13, "database"},
		{strict, "wais://h.org/db?a/b", 17, "WAIS search"},
		{strict, "prospero://h.org/x;y", 20, "'=' in a ;fieldname=value"},
		{strict, "prospero://h.org/x;a=b=c", 22, "Prospero field value"},
		{strict, "file://h.org:1/", 12, "no port"},
		{lenient, "http://[::1", 11, "']' closing"},
		{lenient, "http://[::1]x/", 12, "':' port or '/'"},
		{lenient, "http://[fe80::1%25eth0]/", 8, "IPv6 address"},
	}
	for _, tt := range tests {
		_, err := tt.p.Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) (lenient=%v) succeeded, want an error at %d", tt.in, tt.p.Lenient, tt.off)
			continue
		}
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%q) error is %T, want *Error", tt.in, err)
			continue
		}
		if e.Offset != tt.off || !strings.Contains(e.Expected, tt.substr) {
			t.Errorf("Parse(%q) (lenient=%v) = offset %d %q, want offset %d containing %q", tt.in, tt.p.Lenient, e.Offset, e.Expected, tt.off, tt.substr)
		}
		if e.Offset < 0 || e.Offset > len(tt.in) {
			t.Errorf("Parse(%q): offset %d out of range", tt.in, e.Offset)
		}
	}
}

// TestErrorRedactsPassword checks that an *Error never shows a password,
// whatever the shape of the malformed login around it.
func TestErrorRedactsPassword(t *testing.T) {
	tests := []struct{ in, secret string }{
		{"ftp://joe:s3cret@h.org:x/", "s3cret"},
		{"ftp://joe:s3cret@bad host/", "s3cret"},
		{"http://joe:s3cret@h.org/a\nb", "s3cret"},
		{"ftp://joe:s3cret@h.org/a;type=q", "s3cret"},
		{"ftp://joe:s3/cret@h.org/", "s3/cret"},
		{"ftp://joe:s3cret/@h.org/x@y", "s3cret"},
		// A '#' in the password: a lenient parser ends the login there.
		{"ftp://u:S3cr3tPw#x@h/f", "S3cr3tPw"},
		{"ftp://u:x#S3cr3tPw@h/f", "S3cr3tPw"},
		// One slash or none where "//" must stand.
		{"ftp:/u:S3cr3tPw@h/", "S3cr3tPw"},
		{"ftp:u:S3cr3tPw@h/", "S3cr3tPw"},
		{"  ftp:u:S3cr3tPw@h/", "S3cr3tPw"},
		{"ftp//u:S3cr3tPw@h/", "S3cr3tPw"},
		// RFC 5538's news://server form has no login.
		{"news://u:S3cr3tPw@h/g", "S3cr3tPw"},
		{"snews://u:S3cr3tPw@h/g", "S3cr3tPw"},
		// A second '@' after the path starts.
		{"ftp://u:S3cr3tPw@h/a\tb@c", "S3cr3tPw"},
	}
	for _, tt := range tests {
		for _, p := range []Parser{strict, lenient} {
			_, err := p.Parse(tt.in)
			if err == nil {
				t.Errorf("Parse(%q) (lenient=%v) succeeded", tt.in, p.Lenient)
				continue
			}
			for i := 0; i+4 <= len(tt.secret); i++ {
				if part := tt.secret[i : i+4]; strings.Contains(err.Error(), part) {
					t.Errorf("Parse(%q) (lenient=%v) error shows %q of the password: %v", tt.in, p.Lenient, part, err)
					break
				}
			}
		}
	}
}

func TestRedacted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ftp://joe:s3cret@h.org/x", "ftp://joe:****@h.org/x"},
		{"ftp://joe:@h.org/x", "ftp://joe:@h.org/x"},
		{"ftp://joe@h.org/x", "ftp://joe@h.org/x"},
		{"telnet://a%40b:p%3Aw@h.org", "telnet://a%40b:****@h.org"},
		// No "//": a login's shape in the opaque part is hidden too.
		{"x-foo:/u:S3cr3tPw@h/", "x-foo:/u:****@h/"},
		{"x-foo:u:S3cr3tPw@h/", "x-foo:u:****@h/"},
		{"news:u:S3cr3tPw@h", "news:u:****@h"},
		{"news:1234@h.org", "news:1234@h.org"},
		{"mailto:joe@h.org", "mailto:joe@h.org"},
		{"news:comp.lang.go", "news:comp.lang.go"},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Redacted(); got != tt.want {
			t.Errorf("Parse(%q).Redacted() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLookupScheme(t *testing.T) {
	for i, s := range Schemes() {
		got, ok := LookupScheme(s.Name)
		if !ok || got != s {
			t.Errorf("LookupScheme(%q) = %+v, %v", s.Name, got, ok)
		}
		if j := schemeIndex(strings.ToUpper(s.Name)); j != i {
			t.Errorf("schemeIndex(%q) = %d, want %d", strings.ToUpper(s.Name), j, i)
		}
	}
	for _, name := range []string{"HTTP", "", "htt", "httpss", "x-ftp"} {
		if _, ok := LookupScheme(name); ok {
			t.Errorf("LookupScheme(%q) found a scheme", name)
		}
	}
	if n := len(Schemes()); n != 15 {
		t.Errorf("len(Schemes()) = %d", n)
	}
	for _, s := range Schemes()[:10] {
		if !s.RFC1738 {
			t.Errorf("%s: RFC1738 = false", s.Name)
		}
	}
}

// TestParseAllocs checks the promise of the package: one allocation per
// URL, its Userinfo and every component the parser writes anew (a decoded
// user or password, an encoded path or fragment, a lower-cased scheme
// name) included, and for a malformed URL only its *Error.
func TestParseAllocs(t *testing.T) {
	for _, tc := range []struct {
		in      string
		lenient bool // only a lenient parser takes it
	}{
		{"http://www.example.com/a/b/c.html?x=1", false},
		{"HTTP://WWW.EXAMPLE.COM/", false},
		{"https://www.example.com:8443/a%20b?q=%7E", false},
		{"ftp://joe:pw@ftp.example.com:2121/pub/x.tar.gz;type=i", false},
		{"ftp://anonymous:email%40notset%2Ecom@ftp.example.com/pub/", false},
		{"ftp://%6A%6Fe:p%3Aw@ftp.example.com/", false},
		{"ftp://@ftp.example.com/", false},
		{"ftps://ftp.example.com/a;type=d", false},
		{"gopher://gopher.example.com/1/a%09b", false},
		{"gophers://gopher.example.com:7070/0x", false},
		{"mailto:joe@example.com", false},
		{"news:comp.lang.go", false},
		{"news:123@example.com", false},
		{"snews:comp.lang.go", false},
		{"nntp://news.example.com/comp.lang.go/123", false},
		{"nntps://news.example.com/comp.lang.go", false},
		{"telnet://joe:pw@host.example.com:2323/", false},
		{"wais://wais.example.com:210/db?search", false},
		{"wais://wais.example.com/db/t/p", false},
		{"file://localhost/etc/fstab", false},
		{"file:///C%3A/x", false},
		{"prospero://p.example.com/a/b;f=v;g=w", false},
		{"X-Custom+Scheme://Host/Path", false},
		{"x-custom:opaque", false},
		{"http://www.example.com/~joe/", true},
		{"http://www.example.com/~joe/a b/{x}#~frag", true},
		{"http://www.example.com/100%/x#a#b", true},
		{"http://www.example.com/caf\xc3\xa9", true},
		{"HTTP://Joe:p%zz~@host.example.com/~a", true},
		{"ftp://j%6Fe:p~w@ftp.example.com/~x", true},
		{"X-Custom://h/~p#~f", true},
		{"https://[::1]:8443/a#frag", true},
		{"http://h?q=~", true},
		{"wais://wais.example.com/db/t/p/~q", true},
		{"  http://www.example.com/~joe  ", true},
		{"http://www.example.com/" + strings.Repeat("~", 1300), true},
		// A malformed URL costs its *Error.
		{"wais://wais.example.com/db/t", true},
		{"nntp://news.example.com/comp.lang.go/123a", true},
		{"telnet://host.example.com/x", true},
		{"http://host.example.com:65536/", true},
		{"http://ho st.example.com/", true},
	} {
		modes := []Parser{{Lenient: true}}
		if !tc.lenient {
			modes = append(modes, Parser{})
		}
		for _, p := range modes {
			n := testing.AllocsPerRun(100, func() { p.Parse(tc.in) })
			if n > 1 {
				t.Errorf("%+v.Parse(%q): %v allocations, want 1", p, tc.in, n)
			}
		}
	}
}

func TestOwnsPort(t *testing.T) {
	for _, tt := range []struct {
		scheme string
		port   int
		want   bool
	}{
		{"ftp", 21, true}, {"ftp", 990, true}, {"ftps", 21, true}, {"ftp", 25, false},
		{"nntp", 119, true}, {"nntp", 563, true}, {"news", 119, true}, {"snews", 563, true},
		{"mailto", 25, true}, {"mailto", 587, true}, {"mailto", 119, false},
		{"http", 80, true}, {"http", 443, false}, {"gopher", 70, true}, {"file", 0, false},
	} {
		s, ok := LookupScheme(tt.scheme)
		if got := ok && s.OwnsPort(tt.port); got != tt.want {
			t.Errorf("%s.OwnsPort(%d) = %v, want %v", tt.scheme, tt.port, got, tt.want)
		}
	}
}
