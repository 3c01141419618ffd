package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// TestListJSONEscapesControls: a link text holding C0, DEL and C1
// controls (CSI, U+009B, is what a live page had: issue 28) comes out of
// --list --json as \u escapes, no raw control byte, and decodes back to
// the same name.
func TestListJSONEscapesControls(t *testing.T) {
	u, _ := url.Parse("http://h.example/a")
	name := "a\x1b[31m\u009b31mred\u0085\x7f\u00a0é\t"
	var b bytes.Buffer
	if err := writeListing(&b, testListing(t, fetch.Entry{Name: name, URL: u, Kind: fetch.ResourceFile, Size: -1}), true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, r := range strings.TrimSuffix(out, "\n") {
		if r < 0x20 || r >= 0x7f && r <= 0x9f {
			t.Errorf("raw control %U in %q", r, out)
		}
	}
	for _, esc := range []string{`\u001b`, `\u009b`, `\u0085`, `\u007f`, `\t`} {
		if !strings.Contains(out, esc) {
			t.Errorf("%s missing from %s", esc, out)
		}
	}
	var m struct{ Name string }
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || m.Name != name {
		t.Errorf("decoded name %q, %v; want %q", m.Name, err, name)
	}
}

// TestHeadEscapesControls: -I prints what the server said (a WAIS
// headline, a media type) with its controls escaped, in text and JSON.
func TestHeadEscapesControls(t *testing.T) {
	u, _ := url.Parse("wais://h.example/db")
	res := &fetch.Resource{URL: u, Kind: fetch.ResourceFile, Size: -1, MediaType: "text/plain\u009b", Extra: map[string]string{"headline": "x\x1b[2Jy\u009bz"}}
	for _, asJSON := range []bool{false, true} {
		e := &runEnv{cfg: &config{json: asJSON}}
		var b bytes.Buffer
		if err := e.printHead(&b, res); err != nil {
			t.Fatal(err)
		}
		for _, r := range strings.TrimSuffix(b.String(), "\n") {
			if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f {
				t.Errorf("json %v: raw control %U in %q", asJSON, r, b.String())
			}
		}
	}
}
