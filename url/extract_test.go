package url

import (
	"fmt"
	"reflect"
	"testing"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Match
	}{
		{
			// RFC 1738 Appendix, as the RFC prints it: wrapped URLs broken
			// across indented lines.
			"Appendix example, original line breaks",
			"   Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;\n" +
				"   type=d> but you can probably pick it up from <URL:ftp://ds.in\n" +
				"   ternic.net/rfc>.  Note the warning in <URL:http://ds.internic.\n" +
				"   net/instructions/overview.html#WARNING>.\n",
			[]Match{
				{URL: "ftp://info.cern.ch/pub/www/doc;type=d", Start: 30, End: 77, Wrapped: true},
				{URL: "ftp://ds.internic.net/rfc", Start: 115, End: 150, Wrapped: true},
				{URL: "http://ds.internic.net/instructions/overview.html#WARNING", Start: 173, End: 240, Wrapped: true},
			},
		},
		{
			// The same paragraph as our copy of the RFC holds it, reflowed
			// onto one line: the breaks became spaces.
			"Appendix example, reflowed",
			"Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc; type=d> but you can probably pick it up from <URL:ftp://ds.in ternic.net/rfc>. Note the warning in <URL:http://ds.internic. net/instructions/overview.html#WARNING>.",
			[]Match{
				{URL: "ftp://info.cern.ch/pub/www/doc;type=d", Start: 27, End: 71, Wrapped: true},
				{URL: "ftp://ds.internic.net/rfc", Start: 109, End: 141, Wrapped: true},
				{URL: "http://ds.internic.net/instructions/overview.html#WARNING", Start: 163, End: 227, Wrapped: true},
			},
		},
		{
			"References [2]: break before a '/'",
			"       <URL:ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol\n       /Gopher+/Gopher+.txt>",
			[]Match{{URL: "ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt", Start: 7, End: 95, Wrapped: true}},
		},
		{
			"§3.1 examples in running text",
			"E.g., <URL:ftp://@host.com/> has an empty user name and no password, <URL:ftp://host.com/> has no user name",
			[]Match{
				{URL: "ftp://@host.com/", Start: 6, End: 28, Wrapped: true},
				{URL: "ftp://host.com/", Start: 69, End: 90, Wrapped: true},
			},
		},
		{
			"§3.6 news:* wrapped",
			`If <newsgroup-name> is "*" (as in <URL:news:*>), it is used`,
			[]Match{{URL: "news:*", Start: 34, End: 46, Wrapped: true}},
		},
		{
			"hyphen at a line break, wrapped",
			"see <URL:ftp://ds.internic.net/internet-\n   drafts/x.txt>",
			[]Match{{URL: "ftp://ds.internic.net/internet-drafts/x.txt", Start: 4, End: 57, Wrapped: true,
				Hyphenated: true, Unhyphenated: "ftp://ds.internic.net/internetdrafts/x.txt"}},
		},
		{
			"hyphen at a line break, unwrapped",
			"at http://www.rfc-\n   editor.org/info, and",
			[]Match{{URL: "http://www.rfc-editor.org/info", Start: 3, End: 37,
				Hyphenated: true, Unhyphenated: "http://www.rfceditor.org/info"}},
		},
		{
			"hyphen with a space, not a line break, ends the URL",
			"http://a-b.org/x- y",
			[]Match{{URL: "http://a-b.org/x-", Start: 0, End: 17}},
		},
		{
			"plain <scheme:...> wrapper",
			"mail <mailto:joe@h.org> or <http://h.org/a b>",
			[]Match{
				{URL: "mailto:joe@h.org", Start: 5, End: 23, Wrapped: true},
				{URL: "http://h.org/ab", Start: 27, End: 45, Wrapped: true},
			},
		},
		{
			"an e-mail address in brackets is no URL",
			"Comments to <uri@bunyip.com>.",
			nil,
		},
		{
			"URL: prefix any scheme when wrapped",
			"<URL:x-foo:bar> <URL: urn:isbn:123>",
			[]Match{
				{URL: "x-foo:bar", Start: 0, End: 15, Wrapped: true},
				{URL: "urn:isbn:123", Start: 16, End: 35, Wrapped: true},
			},
		},
		{
			"bare URL: prefix",
			"URL:ftp://h.org/pub.",
			[]Match{{URL: "ftp://h.org/pub", Start: 0, End: 19}},
		},
		{
			"trailing punctuation",
			"Go to http://h.org/a.html, then ftp://h.org/b; or gopher://h.org/1x! Really? (see http://h.org/c) 'http://h.org/d'",
			[]Match{
				{URL: "http://h.org/a.html", Start: 6, End: 25},
				{URL: "ftp://h.org/b", Start: 32, End: 45},
				{URL: "gopher://h.org/1x", Start: 50, End: 67},
				{URL: "http://h.org/c", Start: 82, End: 96},
				{URL: "http://h.org/d", Start: 99, End: 113},
			},
		},
		{
			"balanced parentheses stay",
			"https://en.wikipedia.org/wiki/Gopher_(protocol).",
			[]Match{{URL: "https://en.wikipedia.org/wiki/Gopher_(protocol)", Start: 0, End: 47}},
		},
		{
			"quotes end a URL",
			`href="http://h.org/x"`,
			[]Match{{URL: "http://h.org/x", Start: 6, End: 20}},
		},
		{
			"news and mailto unwrapped, case-insensitive scheme",
			"post to news:comp.lang.go or MAILTO:joe@h.org.",
			[]Match{
				{URL: "news:comp.lang.go", Start: 8, End: 25},
				{URL: "MAILTO:joe@h.org", Start: 29, End: 45},
			},
		},
		{
			"unknown schemes and words with colons are not URLs",
			"Note: foo:bar and xhttp is here; http: alone, http:// too, and see:http://h.org/",
			[]Match{{URL: "http://h.org/", Start: 67, End: 80}},
		},
		{
			"unterminated wrapper falls back to the bare URL",
			"<URL:http://h.org/x and more",
			[]Match{{URL: "http://h.org/x", Start: 1, End: 19}},
		},
		{"empty", "", nil},
		{"no URL", "just text: with colons", nil},
	}
	for _, tt := range tests {
		got := Extract(tt.text)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Extract(%q) =\n\t%+v\nwant\n\t%+v", tt.name, tt.text, got, tt.want)
		}
		for _, m := range got {
			if m.Start < 0 || m.End > len(tt.text) || m.Start >= m.End {
				t.Errorf("%s: bad span %d..%d", tt.name, m.Start, m.End)
				continue
			}
			span := tt.text[m.Start:m.End]
			switch {
			case m.Wrapped && (span[0] != '<' || span[len(span)-1] != '>'):
				t.Errorf("%s: wrapped span %q", tt.name, span)
			case !m.Wrapped && !m.Hyphenated && span != m.URL && span != "URL:"+m.URL:
				t.Errorf("%s: span %q for %q", tt.name, span, m.URL)
			}
		}
	}
}

// TestExtractRFCText runs Extract over the appendix and the references of
// RFC 1738 as printed, and checks that every URL found parses leniently.
func TestExtractRFCText(t *testing.T) {
	const refs = `[12] Kunze, J., "Functional Requirements for Internet Resource
       Locators", Work in Progress, December 1994.

       <URL:ftp://ds.internic.net/internet-drafts
       /draft-ietf-uri-irl-fun-req-02.txt>

[14] Neuman, B., and S. Augart, "The Prospero Protocol",
       USC/Information Sciences Institute, June 1993.

       <URL:ftp://prospero.isi.edu/pub/prospero/doc
       /prospero-protocol.PS.Z>
`
	want := []string{
		"ftp://ds.internic.net/internet-drafts/draft-ietf-uri-irl-fun-req-02.txt",
		"ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
	}
	got := Extract(refs)
	if len(got) != len(want) {
		t.Fatalf("Extract found %d URLs, want %d: %+v", len(got), len(want), got)
	}
	for i, m := range got {
		if m.URL != want[i] {
			t.Errorf("URL %d = %q, want %q", i, m.URL, want[i])
		}
		if _, err := Parse(m.URL); err != nil {
			t.Errorf("Parse(%q): %v", m.URL, err)
		}
	}
}

func ExampleExtract() {
	text := `Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;
   type=d> but you can probably pick it up from <URL:ftp://ds.in
   ternic.net/rfc>.  Note the warning in <URL:http://ds.internic.
   net/instructions/overview.html#WARNING>. Or try http://h.org/x.`
	for _, m := range Extract(text) {
		fmt.Println(m.URL)
	}
	// Output:
	// ftp://info.cern.ch/pub/www/doc;type=d
	// ftp://ds.internic.net/rfc
	// http://ds.internic.net/instructions/overview.html#WARNING
	// http://h.org/x
}
