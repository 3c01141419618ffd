package warc

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixed = time.Date(2026, 11, 23, 17, 30, 5, 0, time.FixedZone("CET", 3600))

func TestWriteResource(t *testing.T) {
	for _, gz := range []bool{false, true} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{Gzip: gz, Software: "fetch/test", Filename: "x.warc", Now: func() time.Time { return fixed }})
		body := "hello, gopher\r\n.\r\n"
		id, err := w.WriteResource(&Header{TargetURI: "gopher://h/0/a", ContentType: "text/plain", Date: fixed}, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		recs := readAll(t, out.Bytes())
		if len(recs) != 2 {
			t.Fatalf("gzip=%v: %d records, want warcinfo and resource", gz, len(recs))
		}
		info, res := recs[0], recs[1]
		if info.get("WARC-Type") != "warcinfo" || info.get("Content-Type") != "application/warc-fields" || info.get("WARC-Filename") != "x.warc" {
			t.Errorf("first record %v, want a warcinfo naming x.warc", info.fields)
		}
		if !strings.Contains(string(info.block), "software: fetch/test\r\n") || !strings.Contains(string(info.block), "format: WARC File Format 1.1\r\n") {
			t.Errorf("warcinfo block %q", info.block)
		}
		want := map[string]string{
			"WARC-Type":        "resource",
			"WARC-Record-ID":   id,
			"WARC-Target-URI":  "gopher://h/0/a",
			"WARC-Date":        "2026-11-23T16:30:05Z",
			"Content-Type":     "text/plain",
			"Content-Length":   "18",
			"WARC-Warcinfo-ID": info.get("WARC-Record-ID"),
		}
		for k, v := range want {
			if got := res.get(k); got != v {
				t.Errorf("gzip=%v: %s = %q, want %q", gz, k, got, v)
			}
		}
		if string(res.block) != body {
			t.Errorf("block %q, want %q", res.block, body)
		}
		if res.get("WARC-Payload-Digest") != sha1b32([]byte(body)) {
			t.Errorf("resource record without a payload digest: %v", res.fields)
		}
		for i, r := range recs {
			if err := checkDigests(r); err != nil {
				t.Errorf("record %d: %v", i, err)
			}
		}
	}
}

func TestRecordID(t *testing.T) {
	re := regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewRecordID()
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("NewRecordID() = %q: not a fresh version 4 UUID URN", id)
		}
		seen[id] = true
	}
}

func TestFormatDate(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{fixed, "2026-11-23T16:30:05Z"},
		{time.Date(2000, 1, 2, 3, 4, 5, 120000000, time.UTC), "2000-01-02T03:04:05.12Z"},
	} {
		if got := FormatDate(tc.in); got != tc.want {
			t.Errorf("FormatDate(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriteHTTP(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Gzip: true})
	gzBody := "\x1f\x8b\x08\x00not really gzip, but bytes as sent"
	reqID, respID, err := w.WriteHTTP(&Exchange{
		TargetURI: "http://example.test/a?b",
		IPAddress: "127.0.0.1",
		Request:   RequestHead("GET", "/a?b", "HTTP/1.1", http.Header{"Host": {"example.test"}, "Accept-Encoding": {"gzip"}}),
		Response:  ResponseHead("HTTP/1.1 200 OK", http.Header{"Content-Encoding": {"gzip"}, "Content-Length": {"38"}, "X-Evil": {"a\r\nInjected: 1"}}),
		Body:      strings.NewReader(gzBody),
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out.Bytes())
	if len(recs) != 3 {
		t.Fatalf("%d records, want warcinfo, request, response", len(recs))
	}
	req, resp := recs[1], recs[2]
	if req.get("WARC-Type") != "request" || req.get("WARC-Record-ID") != reqID || req.get("WARC-Concurrent-To") != respID {
		t.Errorf("request record %v", req.fields)
	}
	if resp.get("WARC-Type") != "response" || resp.get("WARC-Record-ID") != respID || resp.get("WARC-Concurrent-To") != reqID {
		t.Errorf("response record %v", resp.fields)
	}
	if resp.get("Content-Type") != "application/http;msgtype=response" || req.get("Content-Type") != "application/http;msgtype=request" {
		t.Errorf("Content-Types %q, %q", req.get("Content-Type"), resp.get("Content-Type"))
	}
	if resp.get("WARC-IP-Address") != "127.0.0.1" || req.get("WARC-Date") != resp.get("WARC-Date") {
		t.Errorf("response record %v", resp.fields)
	}
	wantReq := "GET /a?b HTTP/1.1\r\nAccept-Encoding: gzip\r\nHost: example.test\r\n\r\n"
	if string(req.block) != wantReq {
		t.Errorf("request block %q, want %q", req.block, wantReq)
	}
	wantResp := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 38\r\n\r\n" + gzBody
	if string(resp.block) != wantResp {
		t.Errorf("response block %q, want %q", resp.block, wantResp)
	}
	if resp.get("WARC-Payload-Digest") != sha1b32([]byte(gzBody)) {
		t.Errorf("payload digest %s, want the digest of the body alone", resp.get("WARC-Payload-Digest"))
	}
	if req.get("WARC-Payload-Digest") != "" {
		t.Errorf("a request without a body has a payload digest")
	}
	for i, r := range recs {
		if err := checkDigests(r); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
}

// An exchange over TLS has two WARC-Protocol fields on each record: the
// HTTP protocol, then the TLS version; one over none has the first alone.
func TestWriteHTTPProtocols(t *testing.T) {
	for _, tt := range []struct {
		protocol, tls string
		want          []string
	}{
		{"http/1.1", "tls/1.3", []string{"http/1.1", "tls/1.3"}},
		{"h2", "tls/1.2", []string{"h2", "tls/1.2"}},
		{"http/1.1", "", []string{"http/1.1"}},
		{"", "", nil},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{})
		_, _, err := w.WriteHTTP(&Exchange{
			TargetURI: "https://example.test/",
			Request:   RequestHead("GET", "/", "HTTP/1.1", http.Header{"Host": {"example.test"}}),
			Response:  ResponseHead("HTTP/1.1 204 No Content", http.Header{}),
			Protocol:  tt.protocol,
			TLS:       tt.tls,
		})
		if err != nil {
			t.Fatal(err)
		}
		recs := readAll(t, out.Bytes())
		for _, r := range recs[1:] {
			if got := r.fields["warc-protocol"]; !slices.Equal(got, tt.want) {
				t.Errorf("%q, %q: %s record has WARC-Protocol %q, want %q", tt.protocol, tt.tls, r.get("WARC-Type"), got, tt.want)
			}
		}
	}
}

func TestFieldInjectionRefused(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{})
	_, err := w.WriteResource(&Header{TargetURI: "gopher://h/0/a\r\nWARC-Type: revisit"}, strings.NewReader("x"))
	if err == nil {
		t.Fatal("a Target-URI with CR LF was written")
	}
	if strings.Contains(out.String(), "revisit") {
		t.Errorf("output holds the injected field: %q", out.String())
	}
	if _, err := w.WriteInfo(Field{"bad name", "v"}); err == nil {
		t.Error("a field name with a space was accepted")
	}
}

// TestLargeBodySpools writes a body larger than the memory limit: it goes
// through a temporary file, which is gone afterwards, and the heap does not
// grow with the body.
func TestLargeBodySpools(t *testing.T) {
	dir := t.TempDir()
	const size = 48 << 20
	var out countingDiscard
	w := NewWriter(&out, Options{TempDir: dir, Gzip: false})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	body := &checkingReader{t: t, dir: dir, n: size}
	if _, err := w.WriteResource(&Header{TargetURI: "file:///big"}, body); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if !body.sawFile {
		t.Error("no temporary file while the body was spooled")
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 8<<20 {
		t.Errorf("writing a %d MiB body allocated %d MiB", size>>20, grown>>20)
	}
	if out.n < size {
		t.Errorf("wrote %d bytes, want more than %d", out.n, size)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// checkingReader yields n bytes and notes whether a spool file exists in dir
// once more than the memory limit has been read.
type checkingReader struct {
	t       *testing.T
	dir     string
	n, off  int64
	sawFile bool
}

func (r *checkingReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	if r.off > 2<<20 && !r.sawFile {
		ents, _ := os.ReadDir(r.dir)
		r.sawFile = len(ents) == 1
	}
	n := int64(len(p))
	n = min(n, r.n-r.off)
	for i := range p[:n] {
		p[i] = byte(r.off + int64(i))
	}
	r.off += n
	return int(n), nil
}

func TestConcurrentRecordsStayWhole(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Gzip: true, MemoryLimit: 100})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := strings.Repeat(string(rune('a'+i)), 1000*i)
			if _, err := w.WriteResource(&Header{TargetURI: "file:///x"}, strings.NewReader(body)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	recs := readAll(t, out.Bytes())
	if len(recs) != 21 {
		t.Fatalf("%d records, want 21", len(recs))
	}
	if recs[0].get("WARC-Type") != "warcinfo" {
		t.Errorf("first record is %q", recs[0].get("WARC-Type"))
	}
	for i, r := range recs {
		if err := checkDigests(r); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.ErrShortWrite
	}
	f.n--
	return len(p), nil
}

func TestOutputFailureSticks(t *testing.T) {
	w := NewWriter(&failWriter{}, Options{})
	if _, err := w.WriteResource(&Header{TargetURI: "file:///x"}, strings.NewReader("x")); err == nil {
		t.Fatal("a failed write reported success")
	}
	if _, err := w.WriteResource(&Header{TargetURI: "file:///y"}, strings.NewReader("y")); err == nil {
		t.Fatal("a write after a failure reported success")
	}
}
