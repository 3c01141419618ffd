package queue

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestStoreBodies: a body being written has no name in the store (nor one
// given up), a committed one has its key's, and a later job of the same
// URL (a recrawl) replaces it with nothing left beside it.
func TestStoreBodies(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := func() string {
		ents, _ := os.ReadDir(dir)
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name())
		}
		sort.Strings(ns)
		return strings.Join(ns, " ")
	}
	body := func(text string) *spool {
		p, err := s.create()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	u := "http://127.0.0.1/a"
	key := Key(u)
	gone := body("given up")
	p := body("one")
	if got := names(); got != "" && !strings.HasPrefix(got, ".body-") {
		t.Fatalf("while written, the store holds %q", got)
	}
	gone.discard()
	if ok, err := s.commit(key, &Record{URL: u, Seq: 1}, p); err != nil || !ok {
		t.Fatalf("commit: %v, %v", ok, err)
	}
	// The same job again (a redelivery): not stored a second time.
	if ok, err := s.commit(key, &Record{URL: u, Seq: 1}, body("again")); err != nil || ok {
		t.Fatalf("commit of the same job: %v, %v", ok, err)
	}
	rec := &Record{URL: u, Seq: 2}
	if ok, err := s.commit(key, rec, body("two")); err != nil || !ok {
		t.Fatalf("recrawl: %v, %v", ok, err)
	}
	if want := ".lock " + key + " " + ResultsName; names() != want {
		t.Errorf("the store holds %q, want %q", names(), want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, key)); string(b) != "two" {
		t.Errorf("the body is %q, want %q", b, "two")
	}
	if rec.Size != 3 || rec.SHA256 != "3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3" {
		t.Errorf("record: size %d sha256 %s", rec.Size, rec.SHA256)
	}
}
