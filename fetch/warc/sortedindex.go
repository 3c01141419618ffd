package warc

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
)

// DefaultIndexMemory is the bytes of CDXJ lines a SortedIndex holds in
// memory when its MaxMemory is zero.
const DefaultIndexMemory = 4 << 20

// maxIndexRuns is how many sorted runs a SortedIndex keeps before it
// merges them into one, so that its open files stay few however long the
// index grows.
const maxIndexRuns = 64

// SortedIndex gathers the lines of a CDXJ index (it is an io.Writer for
// Options.Index) and writes them sorted, as pywb reads them (byte order,
// LC_ALL=C sort's), without holding them all: past MaxMemory bytes, the
// lines held are sorted and written to a temporary file (a run), and
// WriteTo merges the runs with the lines still held (an external merge
// sort). Its output is the same as sorting every line in memory. A
// SortedIndex is safe for concurrent use; Close removes its temporary
// files, and must be called, whether WriteTo was or not.
type SortedIndex struct {
	// MaxMemory bounds the bytes of lines held in memory. Zero means
	// DefaultIndexMemory.
	MaxMemory int
	// TempDir is where the runs are written; "" means os.TempDir. On
	// Unix a run's name is removed as soon as it is made: a process
	// killed leaves none behind.
	TempDir string

	mu      sync.Mutex
	buf     []byte     // the lines held, and a line begun at the end
	runs    []*os.File // sorted runs, each a file of whole lines
	named   []string   // the names of runs that could not be removed while open (Windows)
	maxRuns int        // maxIndexRuns; a test sets fewer
	err     error      // a failure to spill, which every later call returns
}

// Write adds p, lines of a CDXJ index each ending in "\n" (a line may come
// in several writes), to the index.
func (x *SortedIndex) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return 0, x.err
	}
	x.buf = append(x.buf, p...)
	if len(x.buf) >= x.maxMemory() {
		if err := x.spill(); err != nil {
			x.err = err
			return 0, err
		}
	}
	return len(p), nil
}

func (x *SortedIndex) maxMemory() int {
	if x.MaxMemory > 0 {
		return x.MaxMemory
	}
	return DefaultIndexMemory
}

// held splits the whole lines of x.buf (each with its "\n") and sorts them.
// n is the bytes they take; a line begun after them is not among them.
func (x *SortedIndex) held() (lines [][]byte, n int) {
	n = bytes.LastIndexByte(x.buf, '\n') + 1
	for rest := x.buf[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n') + 1
		lines = append(lines, rest[:i])
		rest = rest[i:]
	}
	slices.SortFunc(lines, bytes.Compare)
	return lines, n
}

// spill writes the whole lines held, sorted, as a new run, and merges the
// runs into one when there are too many.
func (x *SortedIndex) spill() error {
	lines, n := x.held()
	if n == 0 {
		return nil
	}
	f, err := x.newRun()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	for _, l := range lines {
		bw.Write(l)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	x.buf = x.buf[:copy(x.buf, x.buf[n:])]
	limit := x.maxRuns
	if limit == 0 {
		limit = maxIndexRuns
	}
	if len(x.runs) >= limit {
		return x.mergeRuns()
	}
	return nil
}

// newRun creates the file of a run and adds it to x.runs.
func (x *SortedIndex) newRun() (*os.File, error) {
	f, err := os.CreateTemp(x.TempDir, ".fetch-cdxj-run-*")
	if err != nil {
		return nil, err
	}
	if os.Remove(f.Name()) != nil {
		x.named = append(x.named, f.Name()) // removed by Close
	}
	x.runs = append(x.runs, f)
	return f, nil
}

// mergeRuns merges every run into one.
func (x *SortedIndex) mergeRuns() error {
	old := x.runs
	x.runs = nil
	f, err := x.newRun()
	if err != nil {
		x.runs = append(old, x.runs...)
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = merge(bw, old, nil)
	if err == nil {
		err = bw.Flush()
	}
	for _, r := range old {
		r.Close()
	}
	return err
}

// WriteTo writes the index, sorted, to w: the runs and the lines held,
// merged. A last line without its "\n" gets one. The index is then empty.
func (x *SortedIndex) WriteTo(w io.Writer) (int64, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return 0, x.err
	}
	if len(x.buf) > 0 && x.buf[len(x.buf)-1] != '\n' {
		x.buf = append(x.buf, '\n')
	}
	lines, _ := x.held()
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err := merge(bw, x.runs, lines)
	if err == nil {
		err = bw.Flush()
	}
	x.buf = x.buf[:0]
	x.closeRuns()
	return cw.n, err
}

// Close removes the index's temporary files and empties it.
func (x *SortedIndex) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.buf = nil
	return x.closeRuns()
}

func (x *SortedIndex) closeRuns() error {
	var errs []error
	for _, f := range x.runs {
		errs = append(errs, f.Close())
	}
	for _, name := range x.named {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	x.runs, x.named = nil, nil
	return errors.Join(errs...)
}

// merge writes the lines of the runs (files of sorted lines, read from
// their start) and the sorted lines held, merged in order, to w.
func merge(w io.Writer, runs []*os.File, held [][]byte) error {
	h := make(lineHeap, 0, len(runs)+1)
	for _, f := range runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		s := &lineSource{r: bufio.NewReaderSize(f, 64<<10)}
		if err := s.next(); err != nil {
			return err
		}
		if s.line != nil {
			h = append(h, s)
		}
	}
	if len(held) > 0 {
		s := &lineSource{held: held}
		s.next()
		h = append(h, s)
	}
	heap.Init(&h)
	for len(h) > 0 {
		s := h[0]
		if _, err := w.Write(s.line); err != nil {
			return err
		}
		if err := s.next(); err != nil {
			return err
		}
		if s.line == nil {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return nil
}

// lineSource is a run's reader, or the lines held, and its current line
// (nil at the end).
type lineSource struct {
	r    *bufio.Reader
	held [][]byte
	line []byte
}

func (s *lineSource) next() error {
	if s.r == nil {
		s.line = nil
		if len(s.held) > 0 {
			s.line, s.held = s.held[0], s.held[1:]
		}
		return nil
	}
	line, err := s.r.ReadBytes('\n')
	switch {
	case err == io.EOF && len(line) == 0:
		s.line = nil
		return nil
	case err == io.EOF:
		return errors.New("a run of the CDXJ index ends without its line end")
	case err != nil:
		return err
	}
	s.line = line
	return nil
}

// lineHeap orders the sources by their current lines.
type lineHeap []*lineSource

func (h lineHeap) Len() int           { return len(h) }
func (h lineHeap) Less(i, j int) bool { return bytes.Compare(h[i].line, h[j].line) < 0 }
func (h lineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(v any)        { *h = append(*h, v.(*lineSource)) }
func (h *lineHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}
