package ftp

import (
	"slices"
	"testing"
	"time"
)

// TestWantModTime: a request that wants the modification time asks MDTM
// before RETR and has it in Resource.ModTime; one that does not, does
// not ask.
func TestWantModTime(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("0123456789") // MDTM 2024-01-02 03:04:05
	s.start()
	h := &Handler{}
	r := req(t, "ftp://"+s.addr()+"/f.bin")
	r.WantModTime = true
	res, body, err := get(t, h, r)
	if err != nil || string(body) != "0123456789" {
		t.Fatalf("%q, %v", body, err)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !res.ModTime.Equal(want) {
		t.Errorf("ModTime = %v, want %v", res.ModTime, want)
	}
	plan, _ := h.Plan(r)
	r.WantModTime = false
	if res, _, err := get(t, h, r); err != nil || !res.ModTime.IsZero() {
		t.Errorf("without WantModTime: ModTime %v, %v", res.ModTime, err)
	}
	h.Close()
	got := s.commands()
	if len(got) != 1 || !slices.Contains(got[0], "MDTM f.bin") || slices.Index(got[0], "MDTM f.bin") > slices.Index(got[0], "RETR f.bin") {
		t.Errorf("commands = %q", got)
	}
	if n := len(slices.DeleteFunc(slices.Clone(got[0]), func(c string) bool { return c != "MDTM f.bin" })); n != 1 {
		t.Errorf("MDTM asked %d times, want once (only when wanted)", n)
	}
	if !slices.Contains(plan, "MDTM f.bin") {
		t.Errorf("Plan = %q, want MDTM", plan)
	}
}
