package crawl

import (
	"encoding/binary"
	"errors"
	"os"

	"github.com/rfc1738/fetch/fetch"
)

// A spillStore keeps the chunks of waiting links that the memory frontier
// does not hold, in segment files of a temporary folder. A chunk is
// written once and read once; a segment whose chunks were all read is
// closed and its space given back. Where the system allows it (not
// Windows), a segment's file is removed as soon as it is created, open:
// its space goes back when it is closed or the process ends, even by a
// kill, and no file is left behind.
type spillStore struct {
	dir    string // where segments go; "" is os.TempDir()
	segMax int64  // a segment takes no more chunks past this size
	cur    *segment
	open   map[*segment]struct{}
}

// A segment is one file of a spillStore.
type segment struct {
	f    *os.File
	name string // to remove when closed; "" when removed already
	size int64
	live int // chunks written and not read yet
}

// A chunk is where a run of encoded links is in a segment.
type chunk struct {
	seg *segment
	off int64
	n   int
}

// write stores b and returns its chunk.
func (s *spillStore) write(b []byte) (chunk, error) {
	if s.cur == nil || s.cur.size >= s.segMax {
		if s.cur != nil && s.cur.live == 0 {
			s.close(s.cur)
		}
		f, err := os.CreateTemp(s.dir, "fetch-frontier-*.seg")
		if err != nil {
			return chunk{}, err
		}
		seg := &segment{f: f, name: f.Name()}
		if os.Remove(seg.name) == nil {
			seg.name = ""
		}
		if s.open == nil {
			s.open = map[*segment]struct{}{}
		}
		s.open[seg] = struct{}{}
		s.cur = seg
	}
	seg := s.cur
	if _, err := seg.f.WriteAt(b, seg.size); err != nil {
		return chunk{}, err
	}
	c := chunk{seg: seg, off: seg.size, n: len(b)}
	seg.size += int64(len(b))
	seg.live++
	return c, nil
}

// read returns the bytes of c, which is read once.
func (s *spillStore) read(c chunk) ([]byte, error) {
	b := make([]byte, c.n)
	_, err := c.seg.f.ReadAt(b, c.off)
	c.seg.live--
	if c.seg.live == 0 && c.seg != s.cur {
		s.close(c.seg)
	}
	return b, err
}

func (s *spillStore) close(seg *segment) error {
	delete(s.open, seg)
	if s.cur == seg {
		s.cur = nil
	}
	err := seg.f.Close()
	if seg.name != "" {
		err = errors.Join(err, os.Remove(seg.name))
	}
	return err
}

// segments reports how many segment files are open.
func (s *spillStore) segments() int { return len(s.open) }

// closeAll closes and removes every segment.
func (s *spillStore) closeAll() error {
	var err error
	for seg := range s.open {
		err = errors.Join(err, s.close(seg))
	}
	return err
}

// appendLink appends the encoding of m to b: its strings each after
// their length, then its validators, depth, kind and flags.
func appendLink(b []byte, m *memLink) []byte {
	for _, s := range [...]string{m.key, m.url, m.ref, m.tag, m.rel} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(m.etag)))
	b = append(b, m.etag...)
	b = binary.AppendVarint(b, m.mod)
	b = binary.AppendUvarint(b, uint64(m.depth))
	b = binary.AppendVarint(b, int64(m.kind))
	var flags byte
	if m.listed {
		flags |= 1
	}
	if m.public {
		flags |= 2
	}
	return append(b, flags)
}

var errBadRecord = errors.New("crawl: frontier: a spilled link does not decode")

// readLink decodes the link at the start of b and returns the rest.
func readLink(b []byte) (memLink, []byte, error) {
	var m memLink
	for _, p := range [...]*string{&m.key, &m.url, &m.ref, &m.tag, &m.rel, &m.etag} {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return m, nil, errBadRecord
		}
		*p = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	mod, k := binary.Varint(b)
	if k <= 0 {
		return m, nil, errBadRecord
	}
	m.mod, b = mod, b[k:]
	d, k := binary.Uvarint(b)
	if k <= 0 {
		return m, nil, errBadRecord
	}
	b = b[k:]
	kind, k := binary.Varint(b)
	if k <= 0 || len(b) == k {
		return m, nil, errBadRecord
	}
	flags := b[k]
	m.depth, m.kind = int32(d), fetch.ResourceKind(kind)
	m.listed, m.public = flags&1 != 0, flags&2 != 0
	return m, b[k+1:], nil
}
