package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rfc1738/fetch/url"
)

// fileOut writes a transfer to a file atomically: the bytes go to a
// temporary file in the same folder, renamed over the final name only when
// the transfer is complete. A failed transfer leaves no final file. With
// resume, the temporary file is FILE.part, kept after a failure so that the
// next "-C -" goes on where it stopped.
type fileOut struct {
	final  string
	resume bool
	tmp    *os.File
}

func (f *fileOut) partName() string { return f.final + ".part" }

// open prepares the temporary file and returns the offset to resume at.
func (f *fileOut) open() (int64, error) {
	if !f.resume {
		dir, base := filepath.Split(f.final)
		if dir == "" {
			dir = "."
		}
		t, err := os.CreateTemp(dir, "."+base+".*.part")
		if err != nil {
			return 0, err
		}
		f.tmp = t
		return 0, nil
	}
	part := f.partName()
	if _, err := os.Stat(part); errors.Is(err, os.ErrNotExist) {
		// Resume from a complete-looking earlier file by moving it aside.
		if fi, err := os.Stat(f.final); err == nil && fi.Mode().IsRegular() {
			if err := os.Rename(f.final, part); err != nil {
				return 0, err
			}
		}
	}
	t, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, err
	}
	off, err := t.Seek(0, io.SeekEnd)
	if err != nil {
		t.Close()
		return 0, err
	}
	f.tmp = t
	return off, nil
}

// startAt positions the file where the resource's body starts: the server
// may resume at the offset asked, or send everything from 0.
func (f *fileOut) startAt(off int64) error {
	if err := f.tmp.Truncate(off); err != nil {
		return err
	}
	_, err := f.tmp.Seek(off, io.SeekStart)
	return err
}

func (f *fileOut) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// ReadFrom lets io.Copy hand the copy to the operating system.
func (f *fileOut) ReadFrom(r io.Reader) (int64, error) { return f.tmp.ReadFrom(r) }

// commit makes the file final.
func (f *fileOut) commit() error {
	t := f.tmp
	f.tmp = nil
	// A temporary file is created 0600; the result gets the usual 0644
	// (less the umask, as for any new file) — as curl's output does.
	if !f.resume {
		t.Chmod(0o666 &^ umask())
	}
	if err := t.Close(); err != nil {
		os.Remove(t.Name())
		return err
	}
	return os.Rename(t.Name(), f.final)
}

// abort discards the temporary file, or keeps FILE.part when resuming.
func (f *fileOut) abort() {
	if f.tmp == nil {
		return
	}
	f.tmp.Close()
	if !f.resume {
		os.Remove(f.tmp.Name())
	}
	f.tmp = nil
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
		p := u.HTTP().Path
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

// umask returns the process's file mode creation mask.
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}
