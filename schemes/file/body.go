package file

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// fileBody reads a file up to the size it had when opened, stopping when the
// request's context is done. Close is safe to call twice.
type fileBody struct {
	f    *os.File
	left int64 // bytes still to deliver; -1 for a stream of unknown size
	c    canceler
	once sync.Once
}

func newFileBody(ctx context.Context, f *os.File, size int64) *fileBody {
	b := &fileBody{f: f, left: size}
	b.c.watch(ctx)
	return b
}

func (b *fileBody) Read(p []byte) (int, error) {
	if err := b.c.err(); err != nil {
		return 0, err
	}
	if b.left == 0 {
		return 0, io.EOF
	}
	if b.left > 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
		if err == io.EOF && b.left > 0 {
			// The file shrank while it was read.
			return n, truncated(b.left)
		}
		if b.left == 0 && err == nil {
			err = io.EOF
		}
	}
	if err != nil && err != io.EOF {
		err = classify(err)
	}
	return n, err
}

// WriteTo copies the rest of the file to w in large chunks, letting the
// operating system copy file to file when w is an *os.File.
func (b *fileBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if err := b.c.err(); err != nil {
			return total, err
		}
		if b.left == 0 {
			return total, nil
		}
		chunk := int64(8 << 20)
		if b.left > 0 && b.left < chunk {
			chunk = b.left
		}
		n, err := io.Copy(w, io.LimitReader(b.f, chunk))
		total += n
		if b.left > 0 {
			b.left -= n
		}
		if err != nil {
			return total, classify(err)
		}
		if n < chunk {
			if b.left > 0 {
				return total, truncated(b.left)
			}
			return total, nil
		}
	}
}

func (b *fileBody) Close() error {
	var err error
	b.once.Do(func() {
		b.c.stop()
		err = b.f.Close()
	})
	return err
}

// dirBody yields a directory's entry names, one a line, sorted.
type dirBody struct {
	f     *os.File
	names []string
	buf   bytes.Buffer
	read  bool
	c     canceler
	once  sync.Once
}

func newDirBody(ctx context.Context, f *os.File) *dirBody {
	b := &dirBody{f: f}
	b.c.watch(ctx)
	return b
}

func (b *dirBody) Read(p []byte) (int, error) {
	if err := b.c.err(); err != nil {
		return 0, err
	}
	if !b.read {
		b.read = true
		names, err := b.f.Readdirnames(-1)
		if err != nil {
			return 0, classify(err)
		}
		slices.Sort(names)
		b.names = names
	}
	for b.buf.Len() < len(p) && len(b.names) > 0 {
		b.buf.WriteString(b.names[0])
		b.buf.WriteByte('\n')
		b.names = b.names[1:]
	}
	if b.buf.Len() == 0 {
		return 0, io.EOF
	}
	return b.buf.Read(p)
}

func (b *dirBody) Close() error {
	var err error
	b.once.Do(func() {
		b.c.stop()
		err = b.f.Close()
	})
	return err
}

// truncated reports a file that shrank while it was read.
func truncated(missing int64) error {
	return fetch.Errorf(fetch.Incomplete, "the file shrank while it was read: %d bytes missing", missing)
}
