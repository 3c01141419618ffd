package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"hash"
	"io"
	"os"
)

// spool holds one record's block while its length and digests are
// computed: in memory up to a limit, then in a temporary file that Close
// removes. Writes after a failure are dropped; the failure is kept in err.
type spool struct {
	limit   int
	dir     string
	mem     bytes.Buffer
	file    *os.File
	size    int64  // bytes of the block
	headLen int64  // bytes before the payload (the HTTP head); -1 until payloadStart
	head    []byte // those bytes
	block   hash.Hash
	payload hash.Hash
	err     error
}

func newSpool(opts Options) (*spool, error) {
	limit := opts.MemoryLimit
	if limit <= 0 {
		limit = 1 << 20
	}
	return &spool{limit: limit, dir: opts.TempDir, headLen: -1, block: sha1.New(), payload: sha1.New()}, nil
}

// payloadStart marks the end of the head: what is written next is the
// payload.
func (s *spool) payloadStart() {
	s.headLen = s.size
	if s.file == nil {
		s.head = bytes.Clone(s.mem.Bytes())
	}
}

// Write adds p to the block (and to the payload once payloadStart was
// called). It fails only when the temporary file cannot be written.
func (s *spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.file == nil && s.mem.Len()+len(p) > s.limit {
		f, err := os.CreateTemp(s.dir, "fetch-warc-*")
		if err != nil {
			s.err = err
			return 0, err
		}
		s.file = f
		if _, err := f.Write(s.mem.Bytes()); err != nil {
			s.err = err
			return 0, err
		}
		s.mem = bytes.Buffer{}
	}
	var err error
	if s.file != nil {
		_, err = s.file.Write(p)
	} else {
		s.mem.Write(p)
	}
	if err != nil {
		s.err = err
		return 0, err
	}
	s.block.Write(p)
	if s.headLen > 0 {
		s.payload.Write(p) // with no head, the payload is the block
	}
	s.size += int64(len(p))
	return len(p), nil
}

// WriteTo copies the spooled block to w.
func (s *spool) WriteTo(w io.Writer) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.file == nil {
		return io.Copy(w, bytes.NewReader(s.mem.Bytes()))
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return io.Copy(w, io.LimitReader(onlyReader{s.file}, s.size))
}

// onlyReader hides a file's WriteTo, so that io.Copy into a gzip writer
// goes through a buffer rather than the file's own methods.
type onlyReader struct{ io.Reader }

// Close removes the temporary file, if any.
func (s *spool) Close() error {
	if s.file == nil {
		return nil
	}
	name := s.file.Name()
	err := s.file.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	s.file = nil
	return err
}

func (s *spool) blockDigest() string { return digest(s.block) }
func (s *spool) payloadDigest() string {
	if s.headLen == 0 {
		return digest(s.block)
	}
	return digest(s.payload)
}

// digest formats a SHA-1 as WARC labels it: "sha1:" and base32.
func digest(h hash.Hash) string {
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
}
