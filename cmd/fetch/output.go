package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch/unnamed"
	"github.com/rfc1738/fetch/url"
)

// fileOut writes a transfer to a file atomically: the bytes go to a
// temporary file in the same folder, given the final name only when the
// transfer is complete. A failed transfer leaves no final file.
//
// On Linux the temporary file has no name at all until then (O_TMPFILE,
// see unnamed.Create): nothing is left behind by a failure or a kill.
// Elsewhere, and where the file system cannot, it is
// ".FILE.<pid>.<random>.part", renamed over FILE. Either is created with
// mode 0666 so that the operating system applies the umask, as for any new
// file. A run that was killed leaves its named temporary file behind; the
// next run writing into the same folder removes the ones whose process is
// gone (see removeStaleParts).
//
// A FILE that exists and is not a regular file or a folder (a device such
// as /dev/null, a named pipe) is written to directly, as it is: renaming
// over it would replace the device with a file. For -o that is known
// before the first byte, which then goes straight there; for -O, whose
// names are many and seldom exist already, FILE is looked at only when it
// turns out to exist, and a device there gets the bytes at the end.
//
// With resume (-C -), the temporary file is FILE.part, kept after a failure
// so that the next "-C -" goes on where it stopped. An existing complete
// FILE is resumed from without being touched until the server has sent a
// byte of the rest: only then is it moved to FILE.part and appended to. A
// server that ignores the range and sends everything writes a new
// FILE.part; FILE is replaced only when that transfer completes.
type fileOut struct {
	final  string
	resume bool
	tmp    *os.File
	// fd is an unnamed file's descriptor while no *os.File holds it:
	// set when fdOpen is. Writes go to it directly; an *os.File is made
	// of it only for what needs one (see file), which saves a small
	// file the cost of one (an fcntl, a finalizer, the poller's locks).
	fd     int
	fdOpen bool
	// unnamed is set when the file has no name yet (see unnamed.Create).
	unnamed bool
	// special is set when tmp is FILE itself, a device or a pipe.
	special bool
	// many is set when FILE is one of many names (-O): open does not
	// look for a device there beforehand (see above).
	many bool
	// mkdir is set when FILE's folder is made if missing (--create-dirs).
	mkdir bool
	// onFail, when set, is asked after a failed transfer that wrote the
	// file up to off whether to keep it open for a retry to go on with
	// (see resumer), rather than abort it; kept is then set.
	onFail func(f *fileOut, off int64) bool
	kept   bool

	// fromFinal is set while resuming from FILE itself: off is its size,
	// and pending is set once the server agreed to send from off, until
	// the first byte of the rest arrives.
	fromFinal bool
	pending   bool
	off       int64
}

func (f *fileOut) partName() string { return f.final + ".part" }

// open prepares the temporary file and returns the offset to resume at.
func (f *fileOut) open() (int64, error) {
	off, err := f.open1()
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if dir := filepath.Dir(f.final); !exists(dir) {
			return 0, fmt.Errorf("the folder %s does not exist (--create-dirs makes it)", dir)
		}
	}
	return off, err
}

// exists reports whether name is there.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func (f *fileOut) open1() (int64, error) {
	if f.mkdir {
		if err := os.MkdirAll(filepath.Dir(f.final), 0o777); err != nil {
			return 0, err
		}
	}
	f.tmp, f.fdOpen, f.unnamed, f.special, f.fromFinal, f.pending, f.off = nil, false, false, false, false, false, 0
	if !f.many && isSpecial(f.final) {
		t, err := os.OpenFile(f.final, os.O_WRONLY, 0)
		if err != nil {
			return 0, err
		}
		f.tmp, f.special = t, true
		return 0, nil
	}
	if !f.resume {
		dir, _ := filepath.Split(f.final)
		removeStaleParts(dir)
		if fd, ok := unnamed.Create(dir); ok {
			f.fd, f.fdOpen, f.unnamed = fd, true, true
			return 0, nil
		}
		t, err := createTemp(f.final)
		if err != nil {
			return 0, err
		}
		f.tmp = t
		return 0, nil
	}
	part := f.partName()
	t, err := os.OpenFile(part, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		// No FILE.part: resume from a complete-looking FILE, leaving it
		// where it is for now.
		if fi, err := os.Stat(f.final); err == nil && fi.Mode().IsRegular() {
			f.fromFinal, f.off = true, fi.Size()
			return f.off, nil
		}
		t, err = os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o666)
	}
	if err != nil {
		return 0, err
	}
	off, err := t.Seek(0, io.SeekEnd)
	if err != nil {
		t.Close()
		return 0, err
	}
	f.tmp, f.off = t, off
	return off, nil
}

// startAt positions the file where the resource's body starts: the server
// may resume at the offset asked, or send everything from 0.
func (f *fileOut) startAt(off int64) error {
	if f.fromFinal {
		switch off {
		case f.off:
			f.pending = true // moved aside once the rest starts to arrive
			return nil
		case 0:
			// Everything again: into a new FILE.part, FILE untouched.
			t, err := os.OpenFile(f.partName(), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
			if err != nil {
				return err
			}
			f.fromFinal, f.tmp = false, t
			return nil
		}
		return fmt.Errorf("the server resumed at byte %d, not at %d where %s ends", off, f.off, f.final)
	}
	if off == f.off {
		return nil // already there: a new file at 0, or a part resumed at its end
	}
	t := f.file()
	if err := t.Truncate(off); err != nil {
		return err
	}
	_, err := t.Seek(off, io.SeekStart)
	f.off = off
	return err
}

// moveAside turns a pending resume of FILE into an append to FILE.part:
// the server has started to send the rest.
func (f *fileOut) moveAside() error {
	part := f.partName()
	if err := os.Rename(f.final, part); err != nil {
		return err
	}
	t, err := os.OpenFile(part, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if end, err := t.Seek(0, io.SeekEnd); err != nil || end != f.off {
		t.Close()
		if err == nil {
			err = fmt.Errorf("%s changed size while it was resumed", f.final)
		}
		return err
	}
	f.tmp, f.pending, f.fromFinal = t, false, false
	return nil
}

func (f *fileOut) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.pending {
		if err := f.moveAside(); err != nil {
			return 0, err
		}
	}
	if f.fdOpen {
		return unnamed.Write(f.fd, f.final, p)
	}
	if f.tmp == nil {
		return 0, errors.New("write to a closed output file")
	}
	return f.tmp.Write(p)
}

// file returns the *os.File of the output, making one of a bare
// descriptor first; nil when nothing is open.
func (f *fileOut) file() *os.File {
	if f.fdOpen {
		f.tmp, f.fdOpen = os.NewFile(uintptr(f.fd), f.final), false
	}
	return f.tmp
}

// ReadFrom lets io.Copy hand the copy to the operating system: the
// *os.File's ReadFrom splices from a TCP connection and uses
// copy_file_range from a file.
func (f *fileOut) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	if f.pending {
		// Nothing is moved before a byte of the rest has arrived: a
		// server with nothing left to send leaves FILE as it was.
		var b [4096]byte
		m, err := io.ReadAtLeast(r, b[:], 1)
		if m == 0 {
			if err == io.EOF {
				err = nil
			}
			return 0, err
		}
		if _, err := f.Write(b[:m]); err != nil {
			return 0, err
		}
		n = int64(m)
	}
	t := f.file()
	if t == nil {
		return 0, errors.New("write to a closed output file")
	}
	m, err := t.ReadFrom(r)
	return n + m, err
}

// commit makes the file final.
func (f *fileOut) commit() error {
	if f.unnamed {
		return f.commitUnnamed()
	}
	t := f.tmp
	f.tmp = nil
	if t == nil {
		// Resumed from FILE and nothing was left to send: FILE stands.
		f.pending, f.fromFinal = false, false
		return nil
	}
	if f.special {
		f.special = false
		return t.Close()
	}
	if f.many && isSpecial(f.final) {
		err := copyInto(t, f.final)
		t.Close()
		os.Remove(t.Name())
		return err
	}
	if err := t.Close(); err != nil {
		os.Remove(t.Name())
		return err
	}
	dirMu.Lock()
	defer dirMu.Unlock()
	return os.Rename(t.Name(), f.final)
}

// commitUnnamed gives the unnamed file its final name, and closes it. A
// bare descriptor (the common case, a small file) gets no *os.File unless
// something is in the way of the name (see replace).
func (f *fileOut) commitUnnamed() error {
	f.unnamed = false
	fd := f.fd
	if !f.fdOpen {
		fd = int(f.tmp.Fd())
	}
	err := unnamed.Link(fd, f.final)
	if errors.Is(err, fs.ErrExist) {
		err = replace(f.file(), f.final, func(tmp string) error { return unnamed.Link(fd, tmp) })
	}
	var cerr error
	if f.fdOpen {
		f.fdOpen = false
		cerr = unnamed.Close(fd, f.final)
	} else {
		cerr = f.tmp.Close()
		f.tmp = nil
	}
	if err == nil && cerr != nil {
		os.Remove(f.final) // named, but its bytes may not all be there
		err = cerr
	}
	return err
}

// isSpecial reports whether name is a device, a named pipe or a socket:
// something that is there but is neither a regular file nor a folder.
func isSpecial(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// replace makes the complete file t final's, in place of what is there: a
// device or a pipe gets t's bytes; anything else is replaced at once,
// never missing, by naming t beside it (with name) and renaming that over
// it.
func replace(t *os.File, final string, name func(tmp string) error) error {
	if isSpecial(final) {
		return copyInto(t, final)
	}
	dir, base := filepath.Split(final)
	for range 100 {
		tmp := tempName(dir, base)
		err := name(tmp)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		dirMu.Lock()
		err = os.Rename(tmp, final)
		dirMu.Unlock()
		if err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	return fmt.Errorf("cannot name a temporary file for %s", final)
}

// copyInto writes t's bytes, from the start, into the device or pipe name.
func copyInto(t *os.File, name string) error {
	if _, err := t.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, t)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// dirMu lets one transfer at a time create or rename a named file: with
// many parallel renames into one folder, the kernel's lock on the folder
// spins. (1000 files of 1 KiB from 64 goroutines, created O_EXCL, written
// and renamed, on ext4: 430-475 µs of CPU a file with dirMu, 750-790
// without, in the same wall time; on tmpfs dirMu costs 3-5 µs a file.)
// Giving an unnamed file its name (unnamed.Link) goes without: it saved
// nothing on ext4, and cost about 1 µs of CPU a file on tmpfs.
var dirMu sync.Mutex

// pidText is the process id, for temporary file names.
var pidText = strconv.Itoa(os.Getpid())

// abort discards the temporary file, or keeps FILE.part when resuming.
func (f *fileOut) abort() {
	f.pending, f.fromFinal = false, false
	if f.fdOpen {
		unnamed.Close(f.fd, f.final)
		f.fdOpen, f.unnamed = false, false
		return
	}
	if f.tmp == nil {
		return
	}
	f.tmp.Close()
	if !f.resume && !f.unnamed && !f.special {
		os.Remove(f.tmp.Name())
	}
	f.tmp, f.unnamed, f.special = nil, false, false
}

// createTemp creates the temporary file for final,
// ".BASE.<pid>.<random>.part" in final's folder, with mode 0666 less the
// umask. It first removes what killed runs left there.
func createTemp(final string) (*os.File, error) {
	dir, base := filepath.Split(final)
	removeStaleParts(dir)
	for range 100 {
		name := tempName(dir, base)
		dirMu.Lock()
		t, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		dirMu.Unlock()
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return t, err
	}
	return nil, fmt.Errorf("cannot create a temporary file for %s", final)
}

// tempName returns a name for a temporary file for base in dir:
// ".BASE.<pid>.<8 random hex digits>.part".
func tempName(dir, base string) string {
	var hex [8]byte
	v := rand.Uint32()
	for i := len(hex) - 1; i >= 0; i-- {
		hex[i] = "0123456789abcdef"[v&15]
		v >>= 4
	}
	return dir + "." + base + "." + pidText + "." + string(hex[:]) + ".part"
}

// remoteName is the -O file name: the URL's last path segment, decoded.
// Path separators, "." and ".." are refused.
func remoteName(u *url.URL) (string, error) {
	var name string
	switch u.Family() {
	case "ftp":
		name = u.FTP().Name
	case "file":
		segs := u.File().Segments
		name = segs[len(segs)-1]
	case "http":
		// The last segment of the http view's Path, read from u.Path
		// itself: the view would build a new string for it.
		p := u.Path
		if i := strings.IndexByte(p, '?'); i >= 0 {
			p = p[:i]
		}
		seg, err := url.Unescape(p[strings.LastIndexByte(p, '/')+1:])
		if err != nil {
			return "", err
		}
		name = seg
	case "gopher":
		s := u.Gopher().Selector
		name = s[strings.LastIndexAny(s, "/")+1:]
	case "wais":
		name = u.WAIS().Database
	case "prospero":
		h := u.Prospero().HSOName
		name = h[strings.LastIndexByte(h, '/')+1:]
	case "nntp":
		v := u.NNTP()
		if v.HasArticle {
			name = fmt.Sprintf("%s.%d", v.Group, v.Article)
		} else {
			name = v.Group
		}
	default:
		p := u.Path
		seg, err := url.Unescape(p[strings.LastIndexByte(p, '/')+1:])
		if err != nil {
			return "", err
		}
		name = seg
	}
	switch {
	case name == "", name == ".", name == "..":
		return "", fmt.Errorf("-O: the URL has no file name in its path (use -o FILE)")
	case strings.ContainsAny(name, "/\\\x00"):
		return "", fmt.Errorf("-O: the URL's file name %q holds a path separator", name)
	}
	return name, nil
}
