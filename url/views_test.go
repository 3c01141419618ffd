package url

import (
	"reflect"
	"testing"
)

func mustParse(t *testing.T, p Parser, in string) *URL {
	t.Helper()
	u, err := p.Parse(in)
	if err != nil {
		t.Fatalf("Parse(%q) (lenient=%v): %v", in, p.Lenient, err)
	}
	return u
}

func TestFTPView(t *testing.T) {
	tests := []struct {
		sect string
		in   string
		want FTP
	}{
		{"§3.2.2 no path", "ftp://h.org", FTP{}},
		{"§3.2.2 empty path", "ftp://h.org/", FTP{}},
		{"§3.2.2 name only", "ftp://h.org/motd", FTP{Name: "motd"}},
		{"§3.2.2 CWD etc, RETR motd", "ftp://myname@host.dom/etc/motd", FTP{Cwd: []string{"etc"}, Name: "motd"}},
		{"§3.2.2 %2F: CWD /etc", "ftp://myname@host.dom/%2Fetc/motd", FTP{Cwd: []string{"/etc"}, Name: "motd"}},
		{"§3.2.2 empty segment: CWD with empty argument", "ftp://myname@host.dom//etc/motd", FTP{Cwd: []string{"", "etc"}, Name: "motd"}},
		{"§3.2.2 inner empty segment", "ftp://h.org/a//b", FTP{Cwd: []string{"a", ""}, Name: "b"}},
		{"§3.2.2 directory (ends in /)", "ftp://h.org/pub/", FTP{Cwd: []string{"pub"}, Name: ""}},
		{"§3.2.2 %2F inside a segment", "ftp://h.org/a%2Fb/c%2Fd", FTP{Cwd: []string{"a/b"}, Name: "c/d"}},
		{"§3.2.2 %3B inside a name", "ftp://h.org/a%3Btype=d", FTP{Name: "a;type=d"}},
		{"§3.2.2 decoded name", "ftp://h.org/my%20file.txt", FTP{Name: "my file.txt"}},
		{"§3.2.2 typecode d", "ftp://info.cern.ch/pub/www/doc;type=d", FTP{Cwd: []string{"pub", "www"}, Name: "doc", Typecode: "d"}},
		{"§3.2.2 typecode a", "ftp://ds.internic.net/rfc/rfc1436.txt;type=a", FTP{Cwd: []string{"rfc"}, Name: "rfc1436.txt", Typecode: "a"}},
		{"§3.2.2 typecode I lower-cased", "ftp://h.org/x.bin;type=I", FTP{Name: "x.bin", Typecode: "i"}},
		{"§3.2.2 typecode on an empty name", "ftp://h.org/pub/;type=d", FTP{Cwd: []string{"pub"}, Typecode: "d"}},
		{"§3.2.2 typecode alone", "ftp://h.org/;type=d", FTP{Typecode: "d"}},
		{"§3.2.2 encoded ;type= is part of the name", "ftp://h.org/a%3Btype%3Dd", FTP{Name: "a;type=d"}},
		{"§5 ?:@&= in segments", "ftp://h.org/a?b/c:d@e&f=g", FTP{Cwd: []string{"a?b"}, Name: "c:d@e&f=g"}},
	}
	for _, tt := range tests {
		for _, p := range []Parser{strict, lenient} {
			got := mustParse(t, p, tt.in).FTP()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: Parse(%q).FTP() = %#v, want %#v", tt.sect, tt.in, got, tt.want)
			}
		}
	}
	// ";type=" followed by more path is no typecode: lenient keeps it in
	// the segment, strict refuses the ';' (§3.2.2: ';' must be encoded).
	got := mustParse(t, lenient, "ftp://h.org/a;type=d/b").FTP()
	if want := (FTP{Cwd: []string{"a;type=d"}, Name: "b"}); !reflect.DeepEqual(got, want) {
		t.Errorf("FTP() = %#v, want %#v", got, want)
	}
}

func TestHTTPView(t *testing.T) {
	tests := []struct {
		in   string
		want HTTP
		uri  string
	}{
		{"http://h.org", HTTP{Path: "/"}, "/"},
		{"http://h.org/", HTTP{Path: "/"}, "/"},
		{"http://h.org/a/b%20c", HTTP{Path: "/a/b%20c"}, "/a/b%20c"},
		{"http://h.org/a?", HTTP{Path: "/a", HasSearch: true}, "/a?"},
		{"http://h.org/a?q=1&r=%3F", HTTP{Path: "/a", Search: "q=1&r=%3F", HasSearch: true}, "/a?q=1&r=%3F"},
		{"https://h.org/?x", HTTP{Path: "/", Search: "x", HasSearch: true}, "/?x"},
	}
	for _, tt := range tests {
		got := mustParse(t, strict, tt.in).HTTP()
		if got != tt.want || got.RequestURI() != tt.uri {
			t.Errorf("Parse(%q).HTTP() = %#v (%q), want %#v (%q)", tt.in, got, got.RequestURI(), tt.want, tt.uri)
		}
	}
	// Lenient: the login ends at '?'.
	got := mustParse(t, lenient, "http://h.org?q").HTTP()
	if want := (HTTP{Path: "/", Search: "q", HasSearch: true}); got != want {
		t.Errorf("ParseLenient(http://h.org?q).HTTP() = %#v, want %#v", got, want)
	}
}

func TestGopherView(t *testing.T) {
	tests := []struct {
		sect string
		in   string
		want Gopher
	}{
		{"§3.4.1 empty path: type 1", "gopher://h.org", Gopher{Type: "1"}},
		{"§3.4.1 empty path with /", "gopher://h.org/", Gopher{Type: "1"}},
		{"§3.4.1 type only", "gopher://h.org/1", Gopher{Type: "1"}},
		{"§3.4.1 selector", "gopher://h.org/0/docs/readme.txt", Gopher{Type: "0", Selector: "/docs/readme.txt"}},
		{"§3.4.1 selector starting with the type", "gopher://h.org/00about", Gopher{Type: "0", Selector: "0about"}},
		{"§3.4.1 encoded type", "gopher://h.org/%31sel", Gopher{Type: "1", Selector: "sel"}},
		{"§3.4.1 reserved characters are plain", "gopher://h.org/1a;b/c?d:e@f&g=h", Gopher{Type: "1", Selector: "a;b/c?d:e@f&g=h"}},
		{"§3.4.2 search", "gopher://h.org/7/search%09gopher%20urls", Gopher{Type: "7", Selector: "/search", Search: "gopher urls", HasSearch: true}},
		{"§3.4.2 empty search", "gopher://h.org/7/s%09", Gopher{Type: "7", Selector: "/s", HasSearch: true}},
		{"§3.4.3 plus with empty search", "gopher://h.org/1/x%09%09+", Gopher{Type: "1", Selector: "/x", HasSearch: true, Plus: "+", HasPlus: true}},
		{"§3.4.7 attributes", "gopher://h.org/0/x%09%09!+ABSTRACT%20+SMELL", Gopher{Type: "0", Selector: "/x", HasSearch: true, Plus: "!+ABSTRACT +SMELL", HasPlus: true}},
		{"§3.4.8 alternate view", "gopher://h.org/0/x%09%09+application/postscript%20Es_ES", Gopher{Type: "0", Selector: "/x", HasSearch: true, Plus: "+application/postscript Es_ES", HasPlus: true}},
		{"§3.4.9 form: later %09 stay in the plus string", "gopher://h.org/1s%09%09+%091%0D%0A.%0D%0A", Gopher{Type: "1", Selector: "s", HasSearch: true, Plus: "+\t1\r\n.\r\n", HasPlus: true}},
	}
	for _, tt := range tests {
		got := mustParse(t, strict, tt.in).Gopher()
		if got != tt.want {
			t.Errorf("%s: Parse(%q).Gopher() = %#v, want %#v", tt.sect, tt.in, got, tt.want)
		}
	}
}

func TestNewsView(t *testing.T) {
	tests := []struct {
		p    Parser
		in   string
		want News
	}{
		{strict, "news:*", News{Group: "*"}},
		{strict, "news:comp.infosystems.www.misc", News{Group: "comp.infosystems.www.misc"}},
		{strict, "news:alt.a-b_c+d", News{Group: "alt.a-b_c+d"}},
		{strict, "news:1234@h.org", News{Article: "1234@h.org"}},
		{strict, "news:a%20b;c/d?e:f&g=h@h.org", News{Article: "a b;c/d?e:f&g=h@h.org"}},
		{lenient, "news:<1234@h.org>", News{Article: "1234@h.org"}},
		{lenient, "news:weird%40group", News{Group: "weird@group"}},
	}
	for _, tt := range tests {
		got := mustParse(t, tt.p, tt.in).News()
		if got != tt.want {
			t.Errorf("Parse(%q).News() = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestNNTPView(t *testing.T) {
	tests := []struct {
		p    Parser
		in   string
		want NNTP
	}{
		{strict, "nntp://h.org/comp.lang.go", NNTP{Group: "comp.lang.go"}},
		{strict, "nntp://h.org/comp.lang.go/42", NNTP{Group: "comp.lang.go", Article: 42, HasArticle: true}},
		{strict, "nntp://h.org/g/0", NNTP{Group: "g", Article: 0, HasArticle: true}},
		{lenient, "nntp://h.org/g/", NNTP{Group: "g"}},
		{lenient, "nntp://h.org/g/9223372036854775807", NNTP{Group: "g", Article: 9223372036854775807, HasArticle: true}},
	}
	for _, tt := range tests {
		got := mustParse(t, tt.p, tt.in).NNTP()
		if got != tt.want {
			t.Errorf("Parse(%q).NNTP() = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestWAISView(t *testing.T) {
	tests := []struct {
		in   string
		want WAIS
	}{
		{"wais://h.org/", WAIS{}},
		{"wais://h.org/db", WAIS{Database: "db"}},
		{"wais://h.org/my%20db?", WAIS{Database: "my db", HasSearch: true}},
		{"wais://h.org/db?gopher+urls", WAIS{Database: "db", Search: "gopher+urls", HasSearch: true}},
		{"wais://h.org/db?a%20b", WAIS{Database: "db", Search: "a b", HasSearch: true}},
		{"wais://h.org/db/TEXT/0%2012%2Fx", WAIS{Database: "db", WType: "TEXT", WPath: "0 12/x", HasDoc: true}},
		{"wais://h.org/db//", WAIS{Database: "db", HasDoc: true}},
	}
	for _, tt := range tests {
		got := mustParse(t, strict, tt.in).WAIS()
		if got != tt.want {
			t.Errorf("Parse(%q).WAIS() = %#v, want %#v", tt.in, got, tt.want)
		}
	}
	// Lenient: a wpath with unencoded '/' (libwww's test lists hold such).
	got := mustParse(t, lenient, "wais://h.org/db/TEXT/a/b/c").WAIS()
	if want := (WAIS{Database: "db", WType: "TEXT", WPath: "a/b/c", HasDoc: true}); got != want {
		t.Errorf("ParseLenient(...).WAIS() = %#v, want %#v", got, want)
	}
	if _, err := Parse("wais://h.org/db/TEXT/a/b"); err == nil {
		t.Errorf("Parse (strict) took a wpath with an unencoded '/'")
	}
}

func TestFileView(t *testing.T) {
	tests := []struct {
		in   string
		want File
	}{
		{"file:///etc/motd", File{Host: "", Path: "/etc/motd", Segments: []string{"etc", "motd"}}},
		{"file://localhost/etc/motd", File{Host: "localhost", Path: "/etc/motd", Segments: []string{"etc", "motd"}}},
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", File{Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt",
			Segments: []string{"disk$user", "my", "notes", "note12345.txt"}}},
		{"file:///", File{Path: "/", Segments: []string{""}}},
		{"file:///tmp/", File{Path: "/tmp/", Segments: []string{"tmp", ""}}},
		{"file:///a%2Fb/c%20d", File{Path: "/a/b/c d", Segments: []string{"a/b", "c d"}}},
	}
	for _, tt := range tests {
		got := mustParse(t, strict, tt.in).File()
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).File() = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestProsperoView(t *testing.T) {
	tests := []struct {
		in   string
		want Prospero
	}{
		{"prospero://host.dom//pros/name", Prospero{HSOName: "/pros/name"}},
		{"prospero://h.org/a%3Bb", Prospero{HSOName: "a;b"}},
		{"prospero://h.org/x;OBJECT-VERSION=2", Prospero{HSOName: "x", Fields: []Field{{"OBJECT-VERSION", "2"}}}},
		{"prospero://h.org/x;a=1;b=;c%3D=d%20e", Prospero{HSOName: "x", Fields: []Field{{"a", "1"}, {"b", ""}, {"c=", "d e"}}}},
	}
	for _, tt := range tests {
		got := mustParse(t, strict, tt.in).Prospero()
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).Prospero() = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestMailtoView(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"mailto:joe@h.org", "joe@h.org"},
		{"mailto:a%25b@h.org", "a%b@h.org"},
		{"mailto:%22joe%20x%22@h.org", `"joe x"@h.org`},
		{"MAILTO:Joe@H.org", "Joe@H.org"},
	}
	for _, tt := range tests {
		got := mustParse(t, strict, tt.in).Mailto()
		if got.Address != tt.want {
			t.Errorf("Parse(%q).Mailto() = %q, want %q", tt.in, got.Address, tt.want)
		}
	}
}

func TestFamily(t *testing.T) {
	for in, want := range map[string]string{
		"https://h.org/": "http", "ftps://h.org/": "ftp", "gophers://h.org/": "gopher",
		"nntps://h.org/g": "nntp", "snews:g": "news", "ftp://h.org/": "ftp", "x:y": "x",
	} {
		if got := mustParse(t, strict, in).Family(); got != want {
			t.Errorf("Parse(%q).Family() = %q, want %q", in, got, want)
		}
	}
}
