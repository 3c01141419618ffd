package warc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// record fetches u through w.Do from a client whose handler serves body
// (or fails with err), reading and closing the body.
func recordOne(t *testing.T, w *Writer, u, body string, err error) {
	t.Helper()
	c := &fetch.Client{}
	h := fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if err != nil {
			if req.ErrorBody != nil {
				io.WriteString(req.ErrorBody, body)
			}
			return nil, err
		}
		return &fetch.Resource{URL: req.URL, Status: 200, MediaType: "text/plain", Size: int64(len(body)),
			Header: map[string][]string{"Content-Type": {"text/plain"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
	})
	c.Register("http", h)
	c.Register("gopher", h)
	res, ferr := w.Do(context.Background(), c, &fetch.Request{URL: mustParse(t, u)})
	if ferr != nil {
		if err == nil {
			t.Fatal(ferr)
		}
		return
	}
	io.ReadAll(res.Body)
	if err := res.Body.Close(); err != nil {
		t.Fatal(err)
	}
}

// With Revisits, a payload written before becomes a revisit record
// pointing at the first (its head only for HTTP, no block otherwise).
func TestRevisits(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Revisits: true})
	recordOne(t, w, "http://h.example/a", "same bytes", nil)
	recordOne(t, w, "http://h.example/b", "same bytes", nil)
	recordOne(t, w, "http://h.example/c", "other bytes", nil)
	recordOne(t, w, "gopher://h.example/0/x", "same bytes", nil)
	recs := readAll(t, out.Bytes())
	var types []string
	var first string
	for _, r := range recs {
		if err := checkDigests(r); err != nil && r.get("WARC-Type") != "revisit" {
			t.Error(err)
		}
		types = append(types, r.get("WARC-Type"))
		if r.get("WARC-Target-URI") == "http://h.example/a" && r.get("WARC-Type") == "response" {
			first = r.get("WARC-Record-ID")
		}
		if r.get("WARC-Type") == "revisit" {
			if n := len(r.fields["warc-payload-digest"]); n != 1 {
				t.Errorf("revisit with %d WARC-Payload-Digest fields", n)
			}
			if r.get("WARC-Refers-To") != first || r.get("WARC-Refers-To-Target-URI") != "http://h.example/a" ||
				r.get("WARC-Profile") != ProfileIdenticalPayload || r.get("WARC-Payload-Digest") != sha1b32([]byte("same bytes")) ||
				bytes.Contains(r.block, []byte("same bytes")) {
				t.Errorf("revisit %v\n%q", r.fields, r.block)
			}
		}
	}
	want := "warcinfo request response request revisit request response revisit"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("records %s, want %s", got, want)
	}
}

// Index writes a CDXJ line per response, resource and revisit record,
// whose offset and length find the record in the file.
func TestIndex(t *testing.T) {
	var out, idx bytes.Buffer
	w := NewWriter(&out, Options{Gzip: true, Filename: "f.warc.gz", Index: &idx, Revisits: true})
	recordOne(t, w, "http://www.Example.com:8080/A?b=1", "page", nil)
	recordOne(t, w, "http://www.example.com:8080/again", "page", nil)
	recordOne(t, w, "gopher://h.example/0/x", "text", nil)
	lines := strings.Split(strings.TrimSpace(idx.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("index %q", idx.String())
	}
	for i, l := range lines {
		f := strings.SplitN(l, " ", 3)
		var j cdxLine
		if err := json.Unmarshal([]byte(f[2]), &j); err != nil {
			t.Fatal(err)
		}
		if len(f[1]) != 14 || j.Filename != "f.warc.gz" {
			t.Errorf("line %q", l)
		}
		var off, n int
		fmt.Sscan(j.Offset, &off)
		fmt.Sscan(j.Length, &n)
		recs := readAll(t, out.Bytes()[off:off+n])
		if len(recs) != 1 || recs[0].get("WARC-Target-URI") != j.URL {
			t.Errorf("line %d: offset %d length %d hold %d records", i, off, n, len(recs))
		}
		switch i {
		case 0:
			if f[0] != "com,example:8080)/a?b=1" || j.Status != "200" || j.Mime != "text/plain" || j.Digest != strings.TrimPrefix(sha1b32([]byte("page")), "sha1:") {
				t.Errorf("line %q", l)
			}
		case 1:
			if j.Mime != "warc/revisit" {
				t.Errorf("line %q: not a revisit", l)
			}
		case 2:
			if f[0] != "example,h)/0/x" {
				t.Errorf("line %q", l)
			}
		}
	}
}

// MaxSize with Rotate starts a new file, with its own warcinfo record,
// after the record that crossed the size.
func TestRotate(t *testing.T) {
	var files []*bytes.Buffer
	first := &bytes.Buffer{}
	files = append(files, first)
	w := NewWriter(first, Options{Filename: "f-0.warc", MaxSize: 2000, Rotate: func() (io.Writer, string, error) {
		b := &bytes.Buffer{}
		files = append(files, b)
		return b, fmt.Sprintf("f-%d.warc", len(files)-1), nil
	}})
	for i := range 6 {
		recordOne(t, w, fmt.Sprintf("gopher://h.example/0/%d", i), strings.Repeat("x", 700), nil)
	}
	if len(files) < 3 {
		t.Fatalf("%d files", len(files))
	}
	total := 0
	for i, f := range files {
		recs := readAll(t, f.Bytes())
		if len(recs) == 0 {
			continue
		}
		if recs[0].get("WARC-Type") != "warcinfo" || recs[0].get("WARC-Filename") != fmt.Sprintf("f-%d.warc", i) {
			t.Errorf("file %d begins with %v", i, recs[0].fields)
		}
		for _, r := range recs[1:] {
			if r.get("WARC-Warcinfo-ID") != recs[0].get("WARC-Record-ID") {
				t.Errorf("file %d: a record names another file's warcinfo", i)
			}
		}
		total += len(recs) - 1
		if i < len(files)-1 && f.Len() > 2000+1500 {
			t.Errorf("file %d holds %d bytes", i, f.Len())
		}
	}
	if total != 6 {
		t.Errorf("%d records in all, want 6", total)
	}
}

// An HTTP reply of 400 or more, an error to the Client, is recorded with
// its status line and body.
func TestDoRecordsErrorReplies(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{})
	re := fetch.Reply(fetch.NotFound, 404, "Not Found")
	recordOne(t, w, "http://h.example/missing", "<h1>no such page</h1>", re)
	var rerr *fetch.ReplyError
	if !errors.As(re, &rerr) {
		t.Fatal("fetch.Reply made no ReplyError")
	}
	recs := readAll(t, out.Bytes())
	if len(recs) != 3 || recs[2].get("WARC-Type") != "response" ||
		!bytes.HasPrefix(recs[2].block, []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 21\r\n\r\n<h1>no such page</h1>")) {
		t.Fatalf("records %d, the last %v %q", len(recs), recs[len(recs)-1].fields, recs[len(recs)-1].block)
	}
	if err := checkDigests(recs[2]); err != nil {
		t.Error(err)
	}
}

// Do records the redirects the Client followed (Resource.Via) before the
// resource at their end.
func TestDoRecordsRedirects(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{})
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if req.URL.HTTP().Path == "/old" {
			to := mustParse(t, "http://h.example/new")
			return &fetch.Resource{URL: req.URL, Status: 301, Redirect: to, Size: 0, Body: fetch.NoBody,
				Header: map[string][]string{"Location": {"/new"}}}, nil
		}
		return &fetch.Resource{URL: req.URL, Status: 200, Size: 3, Body: io.NopCloser(strings.NewReader("new"))}, nil
	}))
	res, err := w.Do(context.Background(), c, &fetch.Request{URL: mustParse(t, "http://h.example/old")})
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	var got []string
	for _, r := range readAll(t, out.Bytes()) {
		if err := checkDigests(r); err != nil {
			t.Error(err)
		}
		line, _, _ := strings.Cut(string(r.block), "\r\n")
		got = append(got, r.get("WARC-Type")+" "+r.get("WARC-Target-URI")+" "+line)
	}
	want := "warcinfo  " + "|request http://h.example/old GET /old HTTP/1.1|response http://h.example/old HTTP/1.1 301 Moved Permanently" +
		"|request http://h.example/new GET /new HTTP/1.1|response http://h.example/new HTTP/1.1 200 OK"
	if g := strings.Join(got, "|"); !strings.HasPrefix(g, "warcinfo ") || strings.Join(got[1:], "|") != want[strings.Index(want, "|")+1:] {
		t.Errorf("records\n%s\nwant\n%s", g, want)
	}
}

// With RevisitMemory full, a payload not seen before is not remembered:
// its second copy is written whole, while one remembered before the table
// filled still makes a revisit; the table holds no more than its bound.
func TestRevisitMemory(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Revisits: true, RevisitMemory: 600})
	recordOne(t, w, "http://h.example/a", "first bytes", nil)
	for i := range 10 {
		recordOne(t, w, "http://h.example/fill/"+strings.Repeat("x", i), "filler "+strings.Repeat("y", i), nil)
	}
	if w.seenN > 600 || len(w.seen) >= 11 {
		t.Fatalf("%d payloads remembered in %d bytes, bound 600", len(w.seen), w.seenN)
	}
	recordOne(t, w, "http://h.example/late", "late bytes", nil)
	recordOne(t, w, "http://h.example/late2", "late bytes", nil)
	recordOne(t, w, "http://h.example/b", "first bytes", nil)
	var types []string
	for _, r := range readAll(t, out.Bytes()) {
		switch r.get("WARC-Target-URI") {
		case "http://h.example/late2", "http://h.example/b":
			if r.get("WARC-Type") != "request" {
				types = append(types, r.get("WARC-Type"))
			}
		}
	}
	if want := "response revisit"; strings.Join(types, " ") != want {
		t.Errorf("late2 and b recorded as %q, want %q", types, want)
	}
}
