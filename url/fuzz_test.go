package url

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse checks, in both modes, that parsing never panics, that
// Parse(u.String()) gives back an equal URL, that the canonical form holds
// no raw control character, that Redacted hides the password, and that an
// error shows no part of what may be a password (see
// checkErrorHidesSecret); and that a URL the strict parser accepts parses
// the same leniently. Every URL that parses normalizes idempotently to one
// that parses back to it.
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
		"ftp://u:S3cr3tPw#x@h/f", "ftp://u:x#S3cr3tPw@h/f", "ftp:/u:S3cr3tPw@h/", "ftp:u:S3cr3tPw@h/",
		"news://u:S3cr3tPw@h/g",
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
				checkErrorHidesSecret(t, in, e)
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
			if !u.Hier {
				// No parsed login, but the text may hold one's shape.
				checkHidesSecret(t, s, u.Redacted())
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
			// Normalize is idempotent and its result round-trips; what
			// the strict parser accepts normalizes to what it accepts.
			n := u.Normalize()
			checkNormalized(t, in, n)
			if !p.Lenient {
				if _, err := p.Parse(n.String()); err != nil {
					t.Fatalf("Normalize(%q) = %q, which the strict parser refuses: %v", in, n, err)
				}
			}
			if u.String() != s {
				t.Fatalf("Normalize changed its receiver %q to %q", s, u)
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

// secretSpan returns the text of in that may be a password, whatever the
// shape of the URL: from the first ':' after the authority's start (past
// "scheme:" and the slashes after it) to the last '@'. ok is false when
// there is none.
func secretSpan(in string) (start, end int, ok bool) {
	a := authorityStart(in)
	c := strings.IndexByte(in[a:], ':')
	at := strings.LastIndexByte(in, '@')
	if c < 0 || at <= a+c+1 {
		return 0, 0, false
	}
	return a + c + 1, at, true
}

// checkErrorHidesSecret fails when e's Input shows what may be a password
// of in (see checkHidesSecret), or when the message shows more of the URL
// than Input (the rest of it, Expected, is the parser's own words).
func checkErrorHidesSecret(t *testing.T, in string, e *Error) {
	t.Helper()
	if msg, want := e.Error(), "parse "+strconv.Quote(e.Input)+": at offset "; !strings.HasPrefix(msg, want) {
		t.Fatalf("Parse(%q) error %q does not start %q", in, msg, want)
	}
	checkHidesSecret(t, in, e.Input)
}

// checkHidesSecret fails when shown holds any four or more bytes of the
// secret span of in that do not also stand outside the span (in the
// scheme, the user or the host, which are not secret), the redaction marker
// "****" taken out first.
func checkHidesSecret(t *testing.T, in, shown string) {
	t.Helper()
	start, end, ok := secretSpan(in)
	if !ok {
		return
	}
	secret := in[start:end]
	// Every part of four or more bytes holds a part of exactly four, so
	// four-byte parts are what is compared, as sets, in linear time.
	outside := grams4(in[:start] + "\x00" + in[end:])
	visible := grams4(strings.ReplaceAll(shown, "****", "\x00"))
	for i := 0; i+4 <= len(secret); i++ {
		if part := secret[i : i+4]; visible[part] && !outside[part] {
			t.Fatalf("%q shows %q of the text of %q that may be a password", shown, part, in)
		}
	}
}

// grams4 returns the set of s's substrings of four bytes.
func grams4(s string) map[string]bool {
	m := make(map[string]bool, len(s))
	for i := 0; i+4 <= len(s); i++ {
		m[s[i:i+4]] = true
	}
	return m
}

// FuzzResolve resolves references against the bases of RFC 1808 §5 and of
// each scheme: never a panic, and every result parses back from its String
// to an equal URL.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"g", "../g", "./g/.", "/./g", "//g", "?y", ";x", "#s", "", "g:h", "../../../../g", "a b", "/1/x"} {
		f.Add(s)
	}
	bases := []string{"http://a/b/c/d;p?q#f", "ftp://u:pw@h/pub/x;type=i", "file:///etc/motd", "gopher://h/1/dir/", "news:comp.lang.go", "https://h"}
	f.Fuzz(func(t *testing.T, ref string) {
		for _, b := range bases {
			base, err := lenient.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			u, err := base.ResolveReference(ref)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("resolve %q against %q: error %T", ref, b, err)
				}
				continue
			}
			u2, err := lenient.Parse(u.String())
			if err != nil || !reflect.DeepEqual(u, u2) {
				t.Fatalf("resolve %q against %q = %s, which reparses to %s, %v", ref, b, dump(u), dump(u2), err)
			}
		}
	})
}
