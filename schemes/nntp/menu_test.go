package nntp

import (
	"context"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

func TestRender(t *testing.T) {
	f := newServer(t)
	f.add("local.test", 3, "evil@example.org", "Subject: \x1b[31mred\x1b[0m\nMessage-ID: <evil@example.org>\n\nx\n")
	addr := f.start(nil)
	h := newHandler(t, addr)
	for _, tt := range []struct {
		url   string
		descr bool
		want  string
	}{
		{"news:local.test", false,
			"     1  first  (fake@example)  news:one@example.org\n" +
				"     2  second  (fake@example)  news:two@example.org\n" +
				"     3  \\x1b[31mred\\x1b[0m  (fake@example)  news:evil@example.org\n"},
		{"nntp://" + addr + "/local.test", false,
			"     1  first  (fake@example)  nntp://" + addr + "/local.test/1\n"},
		{"news:*", false,
			"local.empty  0 articles  news:local.empty\nlocal.test  3 articles  news:local.test\n"},
		{"news:*", true,
			"local.empty  Nothing.  news:local.empty\nlocal.test  Tests.  news:local.test\n"},
		{"nntp://" + addr + "/local.test/1", false, article1},
	} {
		h.Descriptions = tt.descr
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: parse(t, tt.url)})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		err = Render(&b, res)
		res.Body.Close()
		if err != nil || !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("Render(%s) = %q, %v; want it to begin with %q", tt.url, b.String(), err, tt.want)
		}
	}
}
