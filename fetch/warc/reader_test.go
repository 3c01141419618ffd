package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// record is one record as the tests read it back.
type record struct {
	fields map[string][]string
	block  []byte
}

func (r record) get(name string) string {
	if v := r.fields[strings.ToLower(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readAll parses a WARC file the way the specification defines it, without
// using the writer's code: version line, fields, empty line, Content-Length
// bytes of block, CR LF CR LF. Gzip members are read one by one when the
// file is compressed, and each must hold exactly one record.
func readAll(t *testing.T, data []byte) []record {
	t.Helper()
	var recs []record
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		br := bufio.NewReader(bytes.NewReader(data))
		for {
			if _, err := br.Peek(1); err == io.EOF {
				break
			}
			zr, err := gzip.NewReader(br)
			if err != nil {
				t.Fatalf("gzip member %d: %v", len(recs), err)
			}
			zr.Multistream(false)
			member, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("gzip member %d: %v", len(recs), err)
			}
			rs := parseRecords(t, member)
			if len(rs) != 1 {
				t.Fatalf("gzip member %d holds %d records, want 1", len(recs), len(rs))
			}
			recs = append(recs, rs...)
		}
		return recs
	}
	return parseRecords(t, data)
}

func parseRecords(t *testing.T, data []byte) []record {
	t.Helper()
	var recs []record
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte("\r\n"))
		if !ok || string(line) != "WARC/1.1" {
			t.Fatalf("record %d starts with %q, want WARC/1.1 CRLF", len(recs), line)
		}
		data = rest
		r := record{fields: map[string][]string{}}
		for {
			line, rest, ok = bytes.Cut(data, []byte("\r\n"))
			if !ok {
				t.Fatalf("record %d: header not ended", len(recs))
			}
			data = rest
			if len(line) == 0 {
				break
			}
			name, value, ok := strings.Cut(string(line), ": ")
			if !ok {
				t.Fatalf("record %d: malformed field %q", len(recs), line)
			}
			k := strings.ToLower(name)
			r.fields[k] = append(r.fields[k], value)
		}
		n, err := strconv.Atoi(r.get("Content-Length"))
		if err != nil || n > len(data) {
			t.Fatalf("record %d: Content-Length %q with %d bytes left", len(recs), r.get("Content-Length"), len(data))
		}
		r.block, data = data[:n], data[n:]
		if !bytes.HasPrefix(data, []byte("\r\n\r\n")) {
			t.Fatalf("record %d: block not followed by CRLF CRLF", len(recs))
		}
		data = data[4:]
		recs = append(recs, r)
	}
	return recs
}

func sha1b32(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// checkDigests checks a record's WARC-Block-Digest, and its
// WARC-Payload-Digest over the bytes after the HTTP head for HTTP records
// and over the whole block for the others.
func checkDigests(r record) error {
	if got, want := r.get("WARC-Block-Digest"), sha1b32(r.block); got != want {
		return fmt.Errorf("WARC-Block-Digest %s, want %s", got, want)
	}
	pd := r.get("WARC-Payload-Digest")
	if pd == "" {
		return nil
	}
	payload := r.block
	if strings.HasPrefix(r.get("Content-Type"), "application/http") {
		_, p, ok := bytes.Cut(r.block, []byte("\r\n\r\n"))
		if !ok {
			return fmt.Errorf("HTTP block without an empty line")
		}
		payload = p
	}
	if want := sha1b32(payload); pd != want {
		return fmt.Errorf("WARC-Payload-Digest %s, want %s", pd, want)
	}
	return nil
}
