package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// writeFileAtomic writes r to name through a temporary file renamed into
// place once complete, with mode 0644 and, unless mod is zero, mod as its
// access and modification times (the server's, as wget's): a failed
// transfer leaves no file, and a killed run leaves a temporary whose name
// carries its pid, which the next run writing into the folder removes.
//
// A mirror writes thousands of small files, so each costs as few system
// calls as it can: the folder is made only when the temporary cannot be
// created for want of it (not looked at before every file), and where the
// system allows it (Linux) the file is a bare descriptor, created with its
// mode and given its times before it is closed (see mirrorTemp).
func writeFileAtomic(name string, r io.Reader, size int64, mod time.Time) error {
	t, err := createMirrorTemp(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		t, err = createMirrorTemp(name)
	}
	if err != nil {
		return err
	}
	bp := copyBufs.Get().(*[]byte)
	n, err := copyTo(t, r, *bp)
	copyBufs.Put(bp)
	if err == nil && size >= 0 && n < size {
		err = fetch.Errorf(fetch.Incomplete, "got %d of %d bytes", n, size)
	}
	if cerr := t.finish(err == nil, mod); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameFile(t.name, name)
	}
	if err != nil {
		os.Remove(t.name)
	}
	return err
}

// copyBufs holds the buffers writeFileAtomic copies through: io.Copy
// would make one of 32 KiB for every file (an *os.File's ReadFrom finds
// no faster way from a body that is no file or socket).
var copyBufs = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

// copyTo copies r to w through buf until r's end, as io.CopyBuffer does
// but without asking w to read from r itself.
func copyTo(w io.Writer, r io.Reader, buf []byte) (int64, error) {
	var n int64
	for {
		m, rerr := r.Read(buf)
		if m > 0 {
			k, werr := w.Write(buf[:m])
			n += int64(k)
			if werr != nil {
				return n, werr
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}
