package http

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/rfc1738/fetch/fetch"
)

// encode applies the codings in order, as a server lists them in
// Content-Encoding.
func encode(t *testing.T, data []byte, codings ...string) []byte {
	t.Helper()
	for _, c := range codings {
		var b bytes.Buffer
		var w io.WriteCloser
		switch c {
		case "gzip":
			w = gzip.NewWriter(&b)
		case "br":
			w = brotli.NewWriter(&b)
		case "zstd":
			zw, err := zstd.NewWriter(&b)
			if err != nil {
				t.Fatal(err)
			}
			w = zw
		default:
			t.Fatalf("no encoder for %s", c)
		}
		w.Write(data)
		w.Close()
		data = b.Bytes()
	}
	return data
}

// Bodies in gzip, br and zstd, one coding or two, are decoded alike on
// both transports (h1 for http, net/http's for https); Raw keeps the wire
// bytes; a coding fetch does not know is delivered as sent and named.
func TestDecodeCodings(t *testing.T) {
	text := []byte(strings.Repeat("all work and no play makes jack a dull boy\n", 3000))
	encoded := map[string][]byte{}
	fn := func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != acceptEncoding {
			w.Write(text)
			return
		}
		ce := r.URL.Query().Get("ce")
		b := encoded[ce]
		if ce == "compress" {
			b = []byte("not really compressed")
		}
		w.Header().Set("Content-Encoding", ce)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}
	for _, ce := range []string{"gzip", "br", "zstd", "gzip, br", "zstd, gzip"} {
		var codings []string
		for _, c := range strings.Split(ce, ",") {
			codings = append(codings, strings.TrimSpace(c))
		}
		encoded[ce] = encode(t, text, codings...)
	}
	plain := server(t, fn)
	secure, trust := tlsServer(t, fn)
	for _, base := range []string{plain.URL, secure.URL} {
		for _, ce := range []string{"gzip", "br", "zstd", "gzip, br", "zstd, gzip"} {
			u := base + "/?ce=" + strings.ReplaceAll(ce, " ", "%20")
			res, body, err := get(t, newHandler(t), &fetch.Request{URL: parse(t, u), TLS: trust})
			if err != nil || !bytes.Equal(body, text) || res.Size != -1 || res.Extra[fetch.ExtraContentEncoding] != "" {
				t.Errorf("%s: %d bytes, size %d, extra %v, %v; want %d bytes decoded", u, len(body), res.Size, res.Extra, err, len(text))
			}
			raw := &Handler{Raw: true}
			res, body, err = get(t, raw, &fetch.Request{URL: parse(t, u), TLS: trust})
			raw.Close()
			if err != nil || !bytes.Equal(body, encoded[ce]) || res.Extra[fetch.ExtraContentEncoding] != ce {
				t.Errorf("raw %s: %d bytes, extra %v, %v; want the %d wire bytes", u, len(body), res.Extra, err, len(encoded[ce]))
			}
		}
		u := base + "/?ce=compress"
		res, body, err := get(t, newHandler(t), &fetch.Request{URL: parse(t, u), TLS: trust})
		if err != nil || string(body) != "not really compressed" || res.Extra[fetch.ExtraContentEncoding] != "compress" {
			t.Errorf("%s: %q, extra %v, %v; want it as sent", u, body, res.Extra, err)
		}
	}
}

// A corrupt stream of each coding is a Protocol error; one cut short is
// Incomplete.
func TestDecodeCorrupt(t *testing.T) {
	// Text that compresses to some kilobytes (hex of pseudo-random
	// bytes), so that the middle of every coding's stream can be
	// corrupted: a repeated pattern compressed to fewer bytes than that
	// under br and zstd.
	rnd := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 32<<10)
	for i := range raw {
		raw[i] = byte(rnd.Uint32())
	}
	text := []byte(hex.EncodeToString(raw))
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		ce := r.URL.Query().Get("ce")
		b := encode(t, text, ce)
		if len(b) < 1<<10 {
			t.Errorf("%s: the coded text is %d bytes, too few to corrupt its middle", ce, len(b))
		}
		switch r.URL.Query().Get("how") {
		case "corrupt":
			b = bytes.Clone(b)
			for i := len(b) / 2; i < len(b)/2+16; i++ {
				b[i] ^= 0x5a
			}
			if ce == "zstd" {
				b[0] ^= 0xff // the magic number
			}
		case "cut":
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			b = b[:len(b)/2]
		}
		w.Header().Set("Content-Encoding", ce)
		w.Write(b)
	})
	for _, ce := range []string{"gzip", "br", "zstd"} {
		for how, kind := range map[string]fetch.Kind{"corrupt": fetch.Protocol, "cut": fetch.Incomplete} {
			_, _, err := get(t, newHandler(t), &fetch.Request{URL: parse(t, srv.URL+"/?ce="+ce+"&how="+how)})
			if !errors.Is(err, kind) {
				t.Errorf("%s %s: %v (kind %v), want kind %v", how, ce, err, fetch.KindOf(err), kind)
			}
		}
	}
}

// Decode undoes, with the same decoders, the coding of a Resource a Raw
// Handler delivered as sent (what the command does after recording the
// bytes in a WARC file); a coding it does not know stays, and a corrupt
// stream is a protocol error.
func TestDecodeResource(t *testing.T) {
	text := strings.Repeat("all work and no play\n", 500)
	for _, tt := range []struct {
		ce   string
		body []byte
		want string
		kind fetch.Kind
	}{
		{"gzip", encode(t, []byte(text), "gzip"), text, 0},
		{"br", encode(t, []byte(text), "br"), text, 0},
		{"gzip, zstd", encode(t, []byte(text), "gzip", "zstd"), text, 0},
		{"compress", []byte("as sent"), "as sent", 0},
		{"gzip", []byte("not gzip at all"), "", fetch.Protocol},
	} {
		res := &fetch.Resource{Size: int64(len(tt.body)), Extra: map[string]string{fetch.ExtraContentEncoding: tt.ce},
			Body: io.NopCloser(bytes.NewReader(tt.body))}
		undone := Decode(res)
		b, err := io.ReadAll(res.Body)
		if tt.kind != 0 {
			if !errors.Is(err, tt.kind) {
				t.Errorf("%s, corrupt: %v, want kind %v", tt.ce, err, tt.kind)
			}
			continue
		}
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: %d bytes, %v", tt.ce, len(b), err)
		}
		if known := tt.ce != "compress"; (undone != "") != known || (res.Extra[fetch.ExtraContentEncoding] == "") != known || (res.Size == -1) != known {
			t.Errorf("%s: Decode = %q, extra %v, size %d", tt.ce, undone, res.Extra, res.Size)
		}
	}
}
