package url

import "math/bits"

// A runTable marks with 0xFF the bytes a scan runs over and with 0 those
// it stops at, so that eight bytes looked up together make a word whose
// first zero byte is the first stop.
type runTable [256]uint8

var (
	hostRun  runTable // a lenient host's bytes (cHostLoose)
	xcharRun runTable // xchars (cXchar)
)

func init() {
	for c := 0; c < 256; c++ {
		if class[c]&cHostLoose != 0 {
			hostRun[c] = 0xFF
		}
		if class[c]&cXchar != 0 {
			xcharRun[c] = 0xFF
		}
	}
}

// span returns the index of the first byte of s at or after i at which
// the scan of t stops, or len(s). It looks at eight bytes at a time and
// finds the stop among them without a branch per byte.
func span(s string, i int, t *runTable) int {
	if len(s) < 8 {
		for ; i < len(s) && t[s[i]] != 0; i++ {
		}
		return i
	}
	for i < len(s) {
		// Eight bytes from j: from i, or the last eight of s with those
		// before i counted as run over.
		j := min(i, len(s)-8)
		b := s[j : j+8]
		// (In two halves, which the CPU computes side by side.)
		w := (uint64(t[b[0]]) | uint64(t[b[1]])<<8 | uint64(t[b[2]])<<16 | uint64(t[b[3]])<<24) |
			(uint64(t[b[4]])<<32 | uint64(t[b[5]])<<40 | uint64(t[b[6]])<<48 | uint64(t[b[7]])<<56) |
			(1<<(8*uint(i-j)) - 1)
		if w != ^uint64(0) {
			return j + bits.TrailingZeros64(^w)/8
		}
		i = j + 8
	}
	return len(s)
}
