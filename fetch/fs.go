package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/url"
)

// NewFS returns a read-only file system over the tree at rootURL: an FTP
// or file directory, a gopher menu, a Prospero directory, or anything else
// whose handler is a Lister. Directories (and menus) are listed with
// c.List; files are fetched with c.Do when first read, and stream. So
// fs.WalkDir walks a remote server, and io/fs's helpers (fs.ReadFile,
// fs.Glob, fs.Sub) work on it.
//
// A directory's entries are named by their names in the listing (a gopher
// item whose selector is a path, by the selector's last element); a name
// that io/fs cannot hold is escaped ("/" as "%2F", "\" as "%5C", "%" as
// "%25"), and a name repeated in one directory (two menu items with the
// same title) gets " (2)", " (3)", ... Entries that are neither files nor
// directories (gopher searches, telnet sessions, information lines) are
// left out, and so are entries on another scheme, host or port than
// rootURL's (a gopher menu's items elsewhere): the FS stays on its root's
// server. Sizes and modification times are the listing's; a size the
// listing does not give is reported as 0, and FileInfo.Sys returns the
// listing's Entry, whose Size is then -1. Listings are read once and kept
// for the life of the FS (up to 100,000 entries, then read again).
//
// The FS makes every request under ctx: fs.FS has no context of its own,
// so canceling ctx fails the FS's later operations. NewFS lists rootURL
// once to check that it is a directory, and returns that error if not.
func NewFS(ctx context.Context, c *Client, rootURL string) (fs.FS, error) {
	u, err := c.Parser.Parse(rootURL)
	if err != nil {
		return nil, &Error{Op: "list", URL: redactedInput(err, rootURL), Kind: Malformed, Err: err}
	}
	f := &remoteFS{ctx: ctx, c: c, root: u, cache: make(map[string][]*dirEntry)}
	if _, err := f.list(".", u, nil); err != nil {
		return nil, err
	}
	return f, nil
}

// maxCached bounds the entries an FS keeps in its listing cache.
const maxCached = 100_000

type remoteFS struct {
	ctx  context.Context
	c    *Client
	root *url.URL

	mu     sync.Mutex
	cache  map[string][]*dirEntry // by directory path ("." for the root)
	cached int
}

var (
	_ fs.FS        = (*remoteFS)(nil)
	_ fs.StatFS    = (*remoteFS)(nil)
	_ fs.ReadDirFS = (*remoteFS)(nil)
)

// dirEntry is one entry of a directory, as fs.DirEntry and fs.FileInfo.
type dirEntry struct {
	name string
	dir  bool
	e    Entry
}

func (d *dirEntry) Name() string { return d.name }
func (d *dirEntry) IsDir() bool  { return d.dir }
func (d *dirEntry) Type() fs.FileMode {
	if d.dir {
		return fs.ModeDir
	}
	return 0
}
func (d *dirEntry) Info() (fs.FileInfo, error) { return d, nil }
func (d *dirEntry) Size() int64 {
	if d.dir || d.e.Size < 0 {
		return 0
	}
	return d.e.Size
}
func (d *dirEntry) Mode() fs.FileMode {
	if d.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (d *dirEntry) ModTime() time.Time { return d.e.ModTime }

// Sys returns the listing's Entry.
func (d *dirEntry) Sys() any       { return d.e }
func (d *dirEntry) String() string { return fs.FormatDirEntry(d) }

// list returns the sorted entries of the directory at path, whose URL is
// u, below the directories whose URLs are above (the root first). A
// directory entry that leads back up (to u, to one of above, or to a
// parent of u's path, as a menu's ".." item does) is left out, so that
// the tree has no cycles.
func (f *remoteFS) list(path string, u *url.URL, above []string) ([]*dirEntry, error) {
	f.mu.Lock()
	ents, ok := f.cache[path]
	f.mu.Unlock()
	if ok {
		return ents, nil
	}
	l, err := f.c.List(f.ctx, &Request{URL: u})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	seen := map[string]int{}
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		dir, ok := fsKind(e)
		if !ok || !f.onRoot(e.URL) || dir && leadsUp(e.URL.String(), u.String(), above) {
			continue
		}
		name := fsName(entryName(e))
		if name == "" {
			continue
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s (%d)", name, n)
		}
		ents = append(ents, &dirEntry{name: name, dir: dir, e: e})
	}
	if err := l.Close(); err != nil {
		return nil, err
	}
	slices.SortFunc(ents, func(a, b *dirEntry) int { return strings.Compare(a.name, b.name) })
	ents = slices.CompactFunc(ents, func(a, b *dirEntry) bool { return a.name == b.name })
	f.mu.Lock()
	if f.cached+len(ents) > maxCached {
		f.cache, f.cached = make(map[string][]*dirEntry), 0
	}
	f.cache[path] = ents
	f.cached += len(ents)
	f.mu.Unlock()
	return ents, nil
}

// onRoot reports whether u is on the root's scheme, host and port: a
// menu's items elsewhere are not entries of the FS.
func (f *remoteFS) onRoot(u *url.URL) bool {
	return u.Scheme == f.root.Scheme && strings.EqualFold(u.HostPort(), f.root.HostPort())
}

// fsKind says whether a listing entry is a directory, and whether the FS
// holds it at all.
func fsKind(e Entry) (dir, ok bool) {
	if e.URL == nil || e.NeedsQuery {
		return false, false
	}
	switch e.Kind {
	case ResourceDirectory, ResourceMenu:
		return true, true
	case ResourceFile, ResourceArticle:
		return false, true
	}
	return false, false
}

// leadsUp reports whether a directory entry's URL e is the directory's
// own URL u, one of the URLs above it, or a parent of u by its path.
func leadsUp(e, u string, above []string) bool {
	if e == u || slices.Contains(above, e) {
		return true
	}
	rest, ok := strings.CutPrefix(u, e)
	return ok && (strings.HasSuffix(e, "/") || strings.HasPrefix(rest, "/"))
}

// entryName is the name an entry has in the FS: its FileName when the
// lister gave one (a gopher menu's titles are sentences, padded columns or
// dates rather than names), else its listing name.
func entryName(e Entry) string {
	if e.FileName != "" {
		return e.FileName
	}
	return e.Name
}

var nameEscaper = strings.NewReplacer("%", "%25", "/", "%2F", "\\", "%5C")

// fsName turns a listing name into a valid path element.
func fsName(s string) string {
	s = nameEscaper.Replace(s)
	switch s {
	case ".", "..":
		return ""
	}
	return s
}

// lookup finds the entry at name, listing its ancestors as needed, and
// returns it with the URLs of the directories above it (the root first).
// The root is returned as a nil entry.
func (f *remoteFS) lookup(op, name string) (*dirEntry, []string, error) {
	if !fs.ValidPath(name) {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil, nil, nil
	}
	var cur *dirEntry
	var above []string
	dirPath, dirURL := ".", f.root
	for elem := range strings.SplitSeq(name, "/") {
		if cur != nil {
			if !cur.dir {
				return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
			}
			if dirPath == "." {
				dirPath = cur.name
			} else {
				dirPath += "/" + cur.name
			}
			above = append(above, dirURL.String())
			dirURL = cur.e.URL
		}
		ents, err := f.list(dirPath, dirURL, above)
		if err != nil {
			return nil, nil, &fs.PathError{Op: op, Path: name, Err: fsError(err)}
		}
		i, found := slices.BinarySearchFunc(ents, elem, func(d *dirEntry, s string) int { return strings.Compare(d.name, s) })
		if !found {
			return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		cur = ents[i]
	}
	return cur, append(above, dirURL.String()), nil
}

// fsError makes a NotFound error also fs.ErrNotExist, and a Refused or
// Auth one fs.ErrPermission.
func fsError(err error) error {
	switch KindOf(err) {
	case NotFound:
		return fmt.Errorf("%w (%w)", err, fs.ErrNotExist)
	case Refused, Auth:
		return fmt.Errorf("%w (%w)", err, fs.ErrPermission)
	}
	return err
}

// Open opens the file or directory at name. A file is fetched when it is
// first read.
func (f *remoteFS) Open(name string) (fs.File, error) {
	d, above, err := f.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return &remoteDir{fs: f, path: ".", u: f.root, info: rootInfo{}}, nil
	}
	if d.dir {
		return &remoteDir{fs: f, path: name, u: d.e.URL, above: above, info: d}, nil
	}
	return &remoteFile{fs: f, path: name, d: d}, nil
}

// Stat returns the FileInfo of name, from its directory's listing.
func (f *remoteFS) Stat(name string) (fs.FileInfo, error) {
	d, _, err := f.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return rootInfo{}, nil
	}
	return d, nil
}

// ReadDir returns the entries of the directory name, sorted by name.
func (f *remoteFS) ReadDir(name string) ([]fs.DirEntry, error) {
	d, above, err := f.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	u := f.root
	if d != nil {
		if !d.dir {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
		}
		u = d.e.URL
	}
	ents, err := f.list(name, u, above)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fsError(err)}
	}
	out := make([]fs.DirEntry, len(ents))
	for i, e := range ents {
		out[i] = e
	}
	return out, nil
}

// rootInfo is the FileInfo of the root directory.
type rootInfo struct{}

func (rootInfo) Name() string       { return "." }
func (rootInfo) Size() int64        { return 0 }
func (rootInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (rootInfo) ModTime() time.Time { return time.Time{} }
func (rootInfo) IsDir() bool        { return true }
func (rootInfo) Sys() any           { return nil }

// remoteDir is an open directory.
type remoteDir struct {
	fs    *remoteFS
	path  string
	u     *url.URL
	above []string // the URLs of the directories above
	info  fs.FileInfo
	ents  []*dirEntry
	read  bool
	off   int
}

func (d *remoteDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *remoteDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errors.New("is a directory")}
}
func (d *remoteDir) Close() error { return nil }

// ReadDir reads the directory's entries in name order, n at a time (all
// that remain when n <= 0).
func (d *remoteDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		ents, err := d.fs.list(d.path, d.u, d.above)
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: d.path, Err: fsError(err)}
		}
		d.ents, d.read = ents, true
	}
	rest := d.ents[d.off:]
	if n > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(n, len(rest))]
	}
	d.off += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, e := range rest {
		out[i] = e
	}
	return out, nil
}

// remoteFile is an open file, fetched at its first Read.
type remoteFile struct {
	fs     *remoteFS
	path   string
	d      *dirEntry
	body   io.ReadCloser
	err    error
	closed bool
}

func (f *remoteFile) Stat() (fs.FileInfo, error) { return f.d, nil }

func (f *remoteFile) Read(p []byte) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.path, Err: fs.ErrClosed}
	}
	if f.err != nil {
		return 0, f.err
	}
	if f.body == nil {
		res, err := f.fs.c.Do(f.fs.ctx, &Request{URL: f.d.e.URL})
		if err != nil {
			f.err = &fs.PathError{Op: "read", Path: f.path, Err: fsError(err)}
			return 0, f.err
		}
		f.body = res.Body
	}
	n, err := f.body.Read(p)
	if err != nil && err != io.EOF {
		err = &fs.PathError{Op: "read", Path: f.path, Err: err}
	}
	return n, err
}

func (f *remoteFile) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	f.closed = true
	if f.body != nil {
		if err := f.body.Close(); err != nil {
			return &fs.PathError{Op: "close", Path: f.path, Err: err}
		}
	}
	return nil
}
