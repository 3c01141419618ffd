package url

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParse checks, in both modes, that parsing never panics, that
// Parse(u.String()) gives back an equal URL, that the canonical form holds
// no raw control character, that Redacted hides the password, and that an
// error for a URL with a password does not show it; and that a URL the
// strict parser accepts parses the same leniently.
func FuzzParse(f *testing.F) {
	for _, tt := range rfcExamples {
		f.Add(tt.in)
	}
	for _, s := range []string{
		"http://ds.internic.net/instructions/overview.html#WARNING",
		"ftp://a%3Ab:c%40d%2Fe@h.org:2121/a//b%2Fc;type=d",
		"gopher://h.org/7/s%09query%09+",
		"news:<1234@h.org>", "nntp://h.org/g/42", "wais://h.org/db/TEXT/x", "wais://h.org/db?q",
		"prospero://h.org/x;a=1;b=", "mailto:a%25b@h.org", "file:///etc/motd", "telnet://u:p@h.org/",
		"http://[2001:db8::1]:8080/~joe?q#f", "  HTTP://h.org?q=a@b ", "ftp://u:pa?ss@h.org/", "x-foo://u:p@h/",
		"http://h.org/%zz%", "ftp://h.org/a;type=d/b", "ftp://:@h.org/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, p := range []Parser{strict, lenient} {
			u, err := p.Parse(in)
			if err != nil {
				e, ok := err.(*Error)
				if !ok {
					t.Fatalf("Parse(%q) error %T", in, err)
				}
				if e.Offset < 0 || e.Offset > len(in) {
					t.Fatalf("Parse(%q) (lenient=%v) offset %d out of range", in, p.Lenient, e.Offset)
				}
				if !p.Lenient {
					// A password the lenient parser finds must not show in
					// the strict parser's error (its Input, which Error
					// quotes).
					if lu, lerr := lenient.Parse(in); lerr == nil && lu.User != nil && len(lu.User.Password) >= 4 &&
						strings.Contains(in, lu.User.Password) && strings.Contains(e.Input, lu.User.Password) &&
						!strings.Contains(strings.Replace(in, lu.User.Password, "", 1), lu.User.Password) &&
						strings.Count(in, "//") == 1 {
						t.Fatalf("Parse(%q) error shows the password %q: %v", in, lu.User.Password, err)
					}
				}
				continue
			}
			s := u.String()
			for i := 0; i < len(s); i++ {
				if isControl(s[i]) || s[i] == ' ' {
					t.Fatalf("Parse(%q).String() = %q holds byte %#x", in, s, s[i])
				}
			}
			u2, err := p.Parse(s)
			if err != nil {
				t.Fatalf("Parse(%q) (lenient=%v) = %q, which does not parse: %v", in, p.Lenient, s, err)
			}
			if !reflect.DeepEqual(u, u2) {
				t.Fatalf("Parse(%q) (lenient=%v) = %s, but Parse(%q) = %s", in, p.Lenient, dump(u), s, dump(u2))
			}
			if s2 := u2.String(); s2 != s {
				t.Fatalf("String is not stable: %q, then %q", s, s2)
			}
			if u.User != nil && u.User.Password != "" {
				r := u.Redacted()
				masked := *u
				masked.User = &Userinfo{Username: u.User.Username, Password: "****", HasPassword: true}
				if want := masked.String(); r != want {
					t.Fatalf("Parse(%q).Redacted() = %q, want %q", in, r, want)
				}
				ru, err := p.Parse(r)
				if err != nil || ru.User == nil || ru.User.Password != "****" {
					t.Fatalf("Parse(%q).Redacted() = %q, which reparses to %v, %v", in, r, ru, err)
				}
			}
			// The views must not panic on anything the parser accepts.
			_ = u.FTP()
			_ = u.HTTP().RequestURI()
			_ = u.Gopher()
			_ = u.News()
			_ = u.NNTP()
			_ = u.WAIS()
			_ = u.File()
			_ = u.Prospero()
			_ = u.Mailto()
			_ = u.HostPort()
		}
		// What the strict parser accepts, a lenient one reads the same way.
		if su, err := strict.Parse(in); err == nil {
			lu, err := lenient.Parse(in)
			if err != nil || !reflect.DeepEqual(su, lu) {
				t.Fatalf("Parse(%q) = %s, but ParseLenient = %s, %v", in, dump(su), dump(lu), err)
			}
		}
		for _, m := range Extract(in) {
			if m.Start < 0 || m.End > len(in) || m.Start >= m.End || m.URL == "" {
				t.Fatalf("Extract(%q): bad match %+v", in, m)
			}
		}
	})
}
