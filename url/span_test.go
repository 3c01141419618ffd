package url

import (
	"math/rand"
	"testing"
)

// TestSpan checks span against a byte-by-byte scan, for every start in
// strings of every length up to three words, with stops at every place.
func TestSpan(t *testing.T) {
	naive := func(s string, i int, tab *runTable) int {
		for ; i < len(s) && tab[s[i]] != 0; i++ {
		}
		return i
	}
	r := rand.New(rand.NewSource(1))
	const bytes = "abcXYZ019-._~/:@?#% \x00\x7f\x80\xff"
	for _, tab := range []*runTable{&hostRun, &xcharRun} {
		for n := 0; n <= 24; n++ {
			for k := 0; k < 200; k++ {
				b := make([]byte, n)
				for i := range b {
					if r.Intn(4) == 0 {
						b[i] = bytes[r.Intn(len(bytes))]
					} else {
						b[i] = "abc.-"[r.Intn(5)]
					}
				}
				s := string(b)
				for i := 0; i <= n; i++ {
					if got, want := span(s, i, tab), naive(s, i, tab); got != want {
						t.Fatalf("span(%q, %d) = %d, want %d", s, i, got, want)
					}
				}
			}
		}
	}
}
