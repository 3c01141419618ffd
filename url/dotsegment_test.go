package url

import (
	"slices"
	"strings"
	"testing"
)

// hasDotSegment finds exactly the "." and ".." segments a split would.
func TestHasDotSegment(t *testing.T) {
	for _, p := range []string{
		"", ".", "..", "...", "a.html", "a..", "..a", "a/.", "a/..", "./a", "../a", "a/./b", "a/../b",
		"a/.../b", "/a/b.c/d", "/.", "/..", "//.", "a.b/c..d/.e/f.", "a/b/", ".a/b./..c/d..",
	} {
		want := slices.ContainsFunc(strings.Split(p, "/"), func(s string) bool { return s == "." || s == ".." })
		if got := hasDotSegment(p); got != want {
			t.Errorf("hasDotSegment(%q) = %v, want %v", p, got, want)
		}
	}
}

func FuzzHasDotSegment(f *testing.F) {
	f.Add("a/./b.c")
	f.Add("x../..y/..")
	f.Fuzz(func(t *testing.T, p string) {
		want := slices.ContainsFunc(strings.Split(p, "/"), func(s string) bool { return s == "." || s == ".." })
		if got := hasDotSegment(p); got != want {
			t.Errorf("hasDotSegment(%q) = %v, want %v", p, got, want)
		}
	})
}
