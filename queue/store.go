package queue

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch/unnamed"
)

// Record is the outcome of one job: a line of results.jsonl, and a message
// of the stream FETCH_RESULTS.
type Record struct {
	URL       string     `json:"url"`
	Status    int        `json:"status"`               // the exit-code class: 0 for success
	Kind      string     `json:"kind"`                 // the resource's kind, or the failure's
	Size      int64      `json:"size"`                 // bytes stored; 0 for a failure
	SHA256    string     `json:"sha256,omitempty"`     // of the body stored
	MediaType string     `json:"media_type,omitempty"` // the resource's, when known
	ModTime   *time.Time `json:"modtime,omitempty"`    // the resource's, when known
	ETag      string     `json:"etag,omitempty"`       // the resource's entity tag (HTTP), when it has one
	Body      string     `json:"body,omitempty"`       // the body's file name in the store
	Worker    string     `json:"worker"`               // the worker that stored it
	Attempts  int        `json:"attempts"`             // tries at fetching the job, this one included
	Waits     int        `json:"waits,omitempty"`      // deliveries handed back for want of a host slot (no tries)
	Seq       uint64     `json:"seq,omitempty"`        // the job's sequence in FETCH_JOBS (in FETCH_CRAWL with Crawl)
	Crawl     bool       `json:"crawl,omitempty"`      // a page of the fleet crawl, not a job
	Error     string     `json:"error,omitempty"`      // the failure, for a failed job
}

// seenJob is what a store knows of a URL's last record: the job that
// wrote it, and the resource's modification time and entity tag for a
// conditional recrawl.
type seenJob struct {
	seq     uint64
	crawl   bool // seq is in FETCH_CRAWL
	status  int
	kind    string
	modTime *time.Time
	etag    string
	// mediaType is the resource's, for a crawl to read the links of
	// the body kept.
	mediaType string
}

// ResultsName is the name of the results file in a store directory.
const ResultsName = "results.jsonl"

// Store is a directory of results shared by the workers that write to it,
// in this process or others: bodies named by Key, and results.jsonl.
type Store struct {
	dir string

	mu   sync.Mutex         // orders this process's commits
	seen map[string]seenJob // keys with a line in results.jsonl: the last
	off  int64              // how far results.jsonl has been read
}

// OpenStore prepares dir (creating it) as a Store.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Store{dir: dir, seen: make(map[string]seenJob)}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// spool is a body being written, before it is committed: a file without
// a name in the store's directory (see fetch/unnamed), or where the system
// cannot make one, a named temporary file.
type spool struct {
	fd   int      // the unnamed file, when f is nil
	f    *os.File // the named temporary file
	dir  string
	hash hashWriter
	n    int64
}

type hashWriter interface {
	io.Writer
	Sum([]byte) []byte
}

// create starts a body in the store's directory.
func (s *Store) create() (*spool, error) {
	if fd, ok := unnamed.Create(s.dir); ok {
		return &spool{fd: fd, dir: s.dir, hash: sha256.New()}, nil
	}
	f, err := os.CreateTemp(s.dir, ".body-*.part")
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &spool{fd: -1, f: f, dir: s.dir, hash: sha256.New()}, nil
}

func (p *spool) Write(b []byte) (n int, err error) {
	if p.f != nil {
		n, err = p.f.Write(b)
	} else {
		n, err = unnamed.Write(p.fd, p.dir, b)
	}
	p.hash.Write(b[:n])
	p.n += int64(n)
	return n, err
}

// close closes the body's file; a named one is removed unless kept.
func (p *spool) close(keep bool) error {
	if p.f == nil {
		return unnamed.Close(p.fd, p.dir)
	}
	err := p.f.Close()
	if !keep {
		os.Remove(p.f.Name())
	}
	return err
}

func (p *spool) discard() { p.close(false) }

// place gives the body the name name, in place of a body stored there
// before (a recrawl's): an unnamed file is linked beside it and renamed
// over it.
func (p *spool) place(name string) error {
	if p.f != nil {
		return os.Rename(p.f.Name(), name)
	}
	err := unnamed.Link(p.fd, name)
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	for range 100 {
		tmp := fmt.Sprintf("%s.%d.part", name, rand.Uint64())
		if err = unnamed.Link(p.fd, tmp); errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err = os.Rename(tmp, name); err != nil {
			os.Remove(tmp)
		}
		return err
	}
	return err
}

// commit stores rec, and the body in p when rec is a success, unless a
// line for the same job (key and rec.Seq) is there already; it reports
// whether it stored. A later job for the same URL (a recrawl) replaces the
// body and adds a line.
// The line is the commit point: it is written last, under the store's
// lock, after the body is in place. What is written survives the death of
// the process at once; it is not synced to the disk per job, which would
// serialise every worker on the lock for a guarantee (surviving a crash
// of the machine) that JetStream's own file store, syncing every two
// minutes by default, does not give either.
func (s *Store) commit(key string, rec *Record, p *spool) (stored bool, err error) {
	got, err := s.commitAll([]storeItem{{key: key, rec: rec, p: p}})
	if err != nil {
		return false, err
	}
	return got[0], nil
}

// storeItem is one record to store, with its body (nil for none), and
// the record's JSON when the caller made it already (see seal).
type storeItem struct {
	key  string
	rec  *Record
	p    *spool
	line []byte
}

// seal sets rec's size and digest from the body p (nil for none) and
// returns rec's JSON: a record made once for both the store's line and the
// results message.
func seal(rec *Record, p *spool) ([]byte, error) {
	if p != nil {
		rec.Size = p.n
		rec.SHA256 = hex.EncodeToString(p.hash.Sum(nil))
	}
	return json.Marshal(rec)
}

// commitAll stores each item as commit does, under one take of the
// store's lock and with one write of their lines; it reports which it
// stored. Every spool is closed and its file gone when it returns.
func (s *Store) commitAll(items []storeItem) (stored []bool, err error) {
	placed := make([]bool, len(items))
	defer func() {
		for i, it := range items {
			if it.p != nil && !placed[i] {
				it.p.discard() // not stored, or stored before
			}
		}
	}()
	for i, it := range items {
		if it.line == nil {
			if items[i].line, err = seal(it.rec, it.p); err != nil {
				return nil, err
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rf, unlock, err := s.open()
	if err != nil {
		return nil, err
	}
	defer unlock()
	stored = make([]bool, len(items))
	var lines []byte
	for i, it := range items {
		rec := it.rec
		if last, ok := s.seen[it.key]; ok && last.seq == rec.Seq && last.crawl == rec.Crawl {
			continue
		}
		if it.p != nil {
			// Closed before it is named, so that a body whose bytes
			// did not all reach the file is not stored.
			if it.p.f != nil {
				if err := it.p.f.Close(); err != nil {
					return nil, fmt.Errorf("store: %w", err)
				}
			}
			name := filepath.Join(s.dir, it.key)
			if err := it.p.place(name); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
			placed[i] = true
			if it.p.f == nil {
				if err := it.p.close(true); err != nil {
					os.Remove(name)
					return nil, fmt.Errorf("store: %w", err)
				}
			}
		}
		lines = append(append(lines, it.line...), '\n')
		s.seen[it.key] = seenJob{seq: rec.Seq, crawl: rec.Crawl, status: rec.Status, kind: rec.Kind, modTime: rec.ModTime, etag: rec.ETag, mediaType: rec.MediaType}
		stored[i] = true
	}
	if len(lines) == 0 {
		return stored, nil
	}
	if _, err := rf.Write(lines); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s.off += int64(len(lines))
	return stored, nil
}

// open takes the store's lock and opens results.jsonl for appending, read
// up to its end; unlock closes it and frees the lock. The caller holds s.mu.
func (s *Store) open() (rf *os.File, unlock func(), err error) {
	lf, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	if err := lock(lf); err != nil {
		lf.Close()
		return nil, nil, fmt.Errorf("store lock: %w", err)
	}
	release := func() {
		unlockFile(lf)
		lf.Close()
	}
	rf, err = os.OpenFile(filepath.Join(s.dir, ResultsName), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	if err := s.catchUp(rf); err != nil {
		rf.Close()
		release()
		return nil, nil, err
	}
	return rf, func() { rf.Close(); release() }, nil
}

// last returns what results.jsonl holds of key's last record, written by
// any worker of the store.
func (s *Store) last(key string) (seenJob, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, unlock, err := s.open()
	if err != nil {
		return seenJob{}, false, err
	}
	unlock()
	j, ok := s.seen[key]
	return j, ok, nil
}

// lastAll returns what last returns for each of keys, under one take of
// the store's lock.
func (s *Store) lastAll(keys []string) ([]seenJob, []bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, unlock, err := s.open()
	if err != nil {
		return nil, nil, err
	}
	unlock()
	jobs, known := make([]seenJob, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		jobs[i], known[i] = s.seen[k]
	}
	return jobs, known, nil
}

// catchUp reads the lines appended to results.jsonl since the last look,
// by this process or another. A partial last line (a writer killed while
// writing) is skipped over by the next writer: it ends at the next newline.
func (s *Store) catchUp(rf *os.File) error {
	if _, err := rf.Seek(s.off, io.SeekStart); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	br := bufio.NewReaderSize(rf, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			s.off += int64(len(line))
			var r Record
			if json.Unmarshal(bytes.TrimSpace(line), &r) == nil && r.URL != "" {
				s.seen[Key(r.URL)] = seenJob{seq: r.Seq, crawl: r.Crawl, status: r.Status, kind: r.Kind, modTime: r.ModTime, etag: r.ETag, mediaType: r.MediaType}
			}
			continue
		}
		if len(line) > 0 {
			// A line cut short by a writer that died: end it, so the next
			// line starts clean.
			s.off += int64(len(line))
			if _, err := rf.Write([]byte("\n")); err != nil {
				return fmt.Errorf("store: %w", err)
			}
			s.off++
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
}
