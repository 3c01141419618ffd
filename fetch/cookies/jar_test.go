package cookies

import (
	"bytes"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func mustURL(t *testing.T, s string) *neturl.URL {
	t.Helper()
	u, err := neturl.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func names(cs []*http.Cookie) string {
	var b []string
	for _, c := range cs {
		b = append(b, c.Name+"="+c.Value)
	}
	return strings.Join(b, "; ")
}

// RFC 6265 §5.3 and §5.4: which cookies are stored, and sent where.
func TestJar(t *testing.T) {
	for _, tt := range []struct {
		name   string
		set    string // URL the cookies come from
		lines  []string
		get    string
		want   string
		getNow time.Duration // after t0
	}{
		{name: "host-only", set: "http://www.example.com/a/b", lines: []string{"a=1"}, get: "http://www.example.com/a/c", want: "a=1"},
		{name: "host-only not to a subdomain", set: "http://example.com/", lines: []string{"a=1"}, get: "http://www.example.com/", want: ""},
		{name: "domain to a subdomain", set: "http://example.com/", lines: []string{"a=1; Domain=.example.com"}, get: "http://x.www.example.com/", want: "a=1"},
		{name: "domain of another site refused", set: "http://example.com/", lines: []string{"a=1; Domain=other.com"}, get: "http://other.com/", want: ""},
		{name: "public suffix refused", set: "http://www.example.co.uk/", lines: []string{"a=1; Domain=co.uk"}, get: "http://other.co.uk/", want: ""},
		{name: "default path", set: "http://h.test/dir/page", lines: []string{"a=1"}, get: "http://h.test/other", want: ""},
		{name: "default path matches below", set: "http://h.test/dir/page", lines: []string{"a=1"}, get: "http://h.test/dir/x/y", want: "a=1"},
		{name: "path prefix is not a path match", set: "http://h.test/", lines: []string{"a=1; Path=/dir"}, get: "http://h.test/directory", want: ""},
		{name: "longer path first", set: "http://h.test/", lines: []string{"a=1; Path=/", "b=2; Path=/x"}, get: "http://h.test/x/y", want: "b=2; a=1"},
		{name: "secure over https only", set: "https://h.test/", lines: []string{"s=1; Secure", "p=2"}, get: "http://h.test/", want: "p=2"},
		{name: "secure over https", set: "https://h.test/", lines: []string{"s=1; Secure"}, get: "https://h.test/", want: "s=1"},
		{name: "max-age expiry", set: "http://h.test/", lines: []string{"a=1; Max-Age=60"}, get: "http://h.test/", getNow: time.Minute, want: ""},
		{name: "max-age alive", set: "http://h.test/", lines: []string{"a=1; Max-Age=60"}, get: "http://h.test/", getNow: 59 * time.Second, want: "a=1"},
		{name: "deleted", set: "http://h.test/", lines: []string{"a=1", "a=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT"}, get: "http://h.test/", want: ""},
		{name: "replaced", set: "http://h.test/", lines: []string{"a=1", "b=2", "a=3"}, get: "http://h.test/", want: "a=3; b=2"},
		{name: "ip host", set: "http://127.0.0.1:8080/", lines: []string{"a=1", "b=2; Domain=0.0.1"}, get: "http://127.0.0.1:9090/", want: "a=1"},
	} {
		now := t0
		j := &Jar{Now: func() time.Time { return now }}
		for _, l := range tt.lines {
			// Each Set-Cookie separately, as a reply may send them.
			resp := &http.Response{Header: http.Header{"Set-Cookie": {l}}}
			j.SetCookies(mustURL(t, tt.set), resp.Cookies())
		}
		now = t0.Add(tt.getNow)
		if got := names(j.Cookies(mustURL(t, tt.get))); got != tt.want {
			t.Errorf("%s: Cookies(%s) = %q, want %q", tt.name, tt.get, got, tt.want)
		}
	}
}

const file = `# Netscape HTTP Cookie File
.example.com	TRUE	/	FALSE	0	sess	s1
www.example.com	FALSE	/app	TRUE	1999999999	persist	p1
#HttpOnly_.example.com	TRUE	/	FALSE	1999999999	ho	h1
old.example.com	FALSE	/	FALSE	1000	expired	x
h.test	FALSE	/	FALSE	0	empty	
`

func TestLoadSave(t *testing.T) {
	j := &Jar{Now: func() time.Time { return t0 }}
	if err := j.Load(strings.NewReader(file), false); err != nil {
		t.Fatal(err)
	}
	if got := names(j.Cookies(mustURL(t, "https://www.example.com/app/x"))); got != "persist=p1; sess=s1; ho=h1" {
		t.Errorf("Cookies = %q", got)
	}
	if got := names(j.Cookies(mustURL(t, "http://old.example.com/"))); got != "sess=s1; ho=h1" {
		t.Errorf("Cookies of old = %q (an expired cookie loaded?)", got)
	}
	var out bytes.Buffer
	if err := j.Save(&out); err != nil {
		t.Fatal(err)
	}
	want := "# Netscape HTTP Cookie File\n# Written by fetch: one cookie a line, TAB-separated; edit at your own risk.\n\n" +
		"#HttpOnly_.example.com\tTRUE\t/\tFALSE\t1999999999\tho\th1\n" +
		".example.com\tTRUE\t/\tFALSE\t0\tsess\ts1\n" +
		"h.test\tFALSE\t/\tFALSE\t0\tempty\t\n" +
		"www.example.com\tFALSE\t/app\tTRUE\t1999999999\tpersist\tp1\n"
	if out.String() != want {
		t.Errorf("Save wrote\n%s\nwant\n%s", out.String(), want)
	}
	// What Save wrote, Load reads back the same.
	j2 := &Jar{Now: j.Now}
	var again bytes.Buffer
	if err := j2.Load(bytes.NewReader(out.Bytes()), false); err != nil || j2.Save(&again) != nil || again.String() != want {
		t.Errorf("round trip: %v\n%s", err, again.String())
	}
	// -j: session cookies are junked.
	j3 := &Jar{Now: j.Now}
	if err := j3.Load(strings.NewReader(file), true); err != nil {
		t.Fatal(err)
	}
	if got := names(j3.Cookies(mustURL(t, "https://www.example.com/app/"))); got != "persist=p1; ho=h1" {
		t.Errorf("with junkSession: %q", got)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, in := range []string{
		"h.test\tFALSE\t/\tFALSE\t0\n",
		"h.test\tFALSE\t/\tFALSE\tsoon\tn\tv\n",
		"h.test\tFALSE\t/\tFALSE\t0\tn\tv\x00x\n",
		"h.test\tFALSE\tnoslash\tFALSE\t0\tn\tv\n",
	} {
		if err := (&Jar{}).Load(strings.NewReader(in), false); err == nil {
			t.Errorf("Load(%q) accepted it", in)
		}
	}
}

// The jar holds at most MaxCookies, dropping the one used least recently.
func TestJarBound(t *testing.T) {
	now := t0
	j := &Jar{Now: func() time.Time { return now }}
	u := mustURL(t, "http://h.test/")
	for i := 0; i < MaxCookies+10; i++ {
		now = now.Add(time.Second)
		j.SetCookies(u, []*http.Cookie{{Name: "c" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)), Value: "v"}})
	}
	if n := j.Len(); n != MaxCookies {
		t.Errorf("Len = %d, want %d", n, MaxCookies)
	}
}
