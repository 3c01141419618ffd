package warc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// FileOptions are the options of Create: a Writer's (whose Gzip,
// Filename, Rotate and Index Create sets), and the index beside the file.
type FileOptions struct {
	Options
	// CDX writes a CDXJ index of the file's records (see Options.Index),
	// sorted, beside it when the File is closed: NAME.cdxj for
	// NAME.warc.gz, NAME.warc or NAME.gz.
	CDX bool
	// IndexMemory bounds the bytes of index lines held in memory while
	// the file is written (SortedIndex.MaxMemory); zero means
	// DefaultIndexMemory. Past it they go to temporary files in
	// Options.TempDir.
	IndexMemory int
}

// File is a WARC file that Create made: its Writer records into it, and,
// with Options.MaxSize, into the files that follow it (NAME-00001.warc.gz,
// ...). Close closes the last file and writes the index.
type File struct {
	*Writer

	path  string
	mu    sync.Mutex // f and n, which Rotate changes between records
	f     *os.File
	n     int          // files after the first, for their names
	index *SortedIndex // with CDX
}

// Create creates the WARC file path (records gzipped when its name ends
// in ".gz", its base name the warcinfo's WARC-Filename), and writes its
// warcinfo record. With opts.MaxSize, once a file holds MaxSize bytes the
// next record starts a new one, named by RotatedName, with a warcinfo
// record of its own. The caller closes the File.
func Create(path string, opts FileOptions) (*File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	wf := &File{path: path, f: f}
	o := opts.Options
	o.Gzip = strings.HasSuffix(path, ".gz")
	o.Filename = filepath.Base(path)
	if o.MaxSize > 0 {
		o.Rotate = wf.rotate
	}
	if opts.CDX {
		wf.index = &SortedIndex{MaxMemory: opts.IndexMemory, TempDir: opts.TempDir}
		o.Index = wf.index
	}
	wf.Writer = NewWriter(f, o)
	if _, err := wf.WriteInfo(); err != nil {
		wf.f.Close()
		if wf.index != nil {
			wf.index.Close()
		}
		return nil, err
	}
	return wf, nil
}

// RotatedName is the name of the n-th file after path: "-00001" before
// its ".warc.gz", ".warc" or ".gz", else at its end.
func RotatedName(path string, n int) string {
	suffix := fmt.Sprintf("-%05d", n)
	for _, ext := range []string{".warc.gz", ".warc", ".gz"} {
		if strings.HasSuffix(path, ext) {
			return strings.TrimSuffix(path, ext) + suffix + ext
		}
	}
	return path + suffix
}

// IndexName is the name of the CDXJ index of the WARC file path: its
// ".gz" and ".warc" dropped, ".cdxj" added.
func IndexName(path string) string {
	return strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".warc") + ".cdxj"
}

// rotate closes the current file and creates the next: the Writer's
// Rotate, called between records.
func (wf *File) rotate() (io.Writer, string, error) {
	wf.mu.Lock()
	defer wf.mu.Unlock()
	if err := wf.f.Close(); err != nil {
		return nil, "", err
	}
	wf.n++
	name := RotatedName(wf.path, wf.n)
	f, err := os.Create(name)
	if err != nil {
		wf.f = nil
		return nil, "", err
	}
	wf.f = f
	return f, filepath.Base(name), nil
}

// Close closes the file, and with CDX writes the index beside it: whole
// or not at all (it is written to a temporary file renamed into place),
// the index's own temporary files removed either way. Records written
// after Close fail.
func (wf *File) Close() error {
	wf.mu.Lock()
	defer wf.mu.Unlock()
	var err error
	if wf.f != nil {
		err = wf.f.Close()
		wf.f = nil
	}
	if wf.index == nil {
		return err
	}
	defer wf.index.Close()
	if err != nil {
		return err
	}
	return writeIndex(IndexName(wf.path), wf.index)
}

// writeIndex writes x, sorted, to the file name, through a temporary file
// in its folder.
func writeIndex(name string, x *SortedIndex) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.part")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 64<<10)
	if _, err = x.WriteTo(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	tmp.Chmod(0o644) // as os.Create's, less the umask; CreateTemp's is 0600
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
