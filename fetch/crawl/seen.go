package crawl

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"unsafe"
)

// A keyHash is the identity of a key in a seenSet: the first 128 bits of
// its SHA-256.
//
// Two keys of a crawl share a keyHash with a probability of about
// n²/2¹²⁹ for n keys: 1.5·10⁻²⁷ for a million, 1.5·10⁻¹⁹ for ten
// billion, far below the odds of a memory error. A shared hash would make
// the second key look seen and never be fetched. SHA-256 rather than a
// fast hash, so that a server cannot craft a link that collides with
// another on purpose.
type keyHash [2]uint64

func hashKey(key string) keyHash {
	// The key's bytes as they are: Sum256 only reads them, and a copy
	// would cost every link of a crawl an allocation.
	s := sha256.Sum256(unsafe.Slice(unsafe.StringData(key), len(key)))
	return keyHash{binary.BigEndian.Uint64(s[0:8]), binary.BigEndian.Uint64(s[8:16])}
}

func (h keyHash) compare(o keyHash) int {
	if c := cmp.Compare(h[0], o[0]); c != 0 {
		return c
	}
	return cmp.Compare(h[1], o[1])
}

// seenStage is how many new hashes a seenSet holds in a map before it
// merges them into its sorted runs.
const seenStage = 1 << 14

// seenShards is how many sorted runs a seenSet keeps, by the hash's top
// byte, so that a merge moves a 256th of the set at a time.
const seenShards = 256

// A seenSet is the set of keys a frontier met, compact: 16 bytes a key
// (and an eighth more at most for the runs' room to grow), whatever its
// length, in runs the garbage collector does not scan. New hashes wait in
// a small map until seenStage of them merge into the runs, each kept
// sorted for a binary search.
type seenSet struct {
	fresh map[keyHash]struct{}
	runs  [seenShards][]keyHash
	n     int
}

func newSeenSet() *seenSet {
	return &seenSet{fresh: make(map[keyHash]struct{})}
}

// has reports whether h is in the set.
func (s *seenSet) has(h keyHash) bool {
	if _, ok := s.fresh[h]; ok {
		return true
	}
	_, ok := slices.BinarySearchFunc(s.runs[h[0]>>56], h, keyHash.compare)
	return ok
}

// add adds h, and reports whether it was new.
func (s *seenSet) add(h keyHash) bool {
	if s.has(h) {
		return false
	}
	s.fresh[h] = struct{}{}
	s.n++
	if len(s.fresh) >= seenStage {
		s.merge()
	}
	return true
}

// merge moves the fresh hashes into the runs.
func (s *seenSet) merge() {
	var by [seenShards][]keyHash
	for h := range s.fresh {
		by[h[0]>>56] = append(by[h[0]>>56], h)
	}
	clear(s.fresh)
	for i, b := range by {
		if len(b) == 0 {
			continue
		}
		slices.SortFunc(b, keyHash.compare)
		s.runs[i] = mergeInto(s.runs[i], b)
	}
}

// mergeInto merges the sorted b into the sorted a, in a's room when it
// has enough (from the back, so that nothing is overwritten before it is
// moved), else in a new run with an eighth to spare.
func mergeInto(a, b []keyHash) []keyHash {
	m, k := len(a), len(b)
	if cap(a) < m+k {
		n := make([]keyHash, m, m+k+(m+k)/8)
		copy(n, a)
		a = n
	}
	a = a[:m+k]
	i, j := m-1, k-1
	for w := m + k - 1; j >= 0; w-- {
		if i >= 0 && a[i].compare(b[j]) > 0 {
			a[w] = a[i]
			i--
		} else {
			a[w] = b[j]
			j--
		}
	}
	return a
}
