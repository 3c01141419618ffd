package crawl

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The disk frontier is a journal, DIR/frontier.log, beside the memory
// frontier's structures: every link added is appended to it ('A'), with
// every link done ('D', the link again with the validators it was fetched
// with) and the end of a crawl ('F'). It is written with write(2) as the
// crawl goes, one write at least for each link done, so that a kill of
// the process loses nothing but the links taken and not done; it is read
// once, from the start, when the frontier is opened: the keys added are
// the seen set again, the links added and not done the queue again. A
// record torn by a kill in the middle of a write is where the journal
// ends: it is cut there.
//
// This replaced a bbolt file: a B+tree in a memory-mapped file counts
// every page the crawl touched in the process's resident memory (153 MB
// for a million links), while the journal is only ever appended to or
// read through a small buffer, and the seen set and the queue are the
// memory frontier's, bounded (16 bytes a key; the waiting links spilled
// to temporary segment files). What it gives up is a lookup by key on
// disk, which a crawl does not need: a link's validators travel with it
// in the queue.
//
// A record is its body's length (a uvarint), the body (its type, then a
// link encoded by appendLink), and the body's CRC-32 (IEEE), big-endian.
const (
	recAdd      = 'A'
	recDone     = 'D'
	recFinished = 'F'

	journalName = "frontier.log"
	maxRecord   = 1 << 20 // a longer record is a torn or foreign one
)

// diskFrontier is the Frontier of OpenDiskFrontier.
type diskFrontier struct {
	mu      sync.Mutex
	mem     *memFrontier
	lock    *os.File
	log     *os.File
	w       *bufio.Writer
	rec     []byte              // a record being made
	pending map[string]*memLink // taken and not done, with their validators
	err     error               // the first write that failed: the journal stops there
}

// OpenDiskFrontier opens (or creates) the frontier kept in the folder dir
// (the journal dir/frontier.log): a crawl run with it and stopped, by an
// error or a kill, goes on where it stopped when run again with it, the
// links it had taken and not finished taken again (at most Parallel of
// them fetched twice). A crawl that ran to its end leaves the frontier
// finished: opened again, it starts a new round over every URL it knows,
// each fetched conditionally (If-Modified-Since and If-None-Match from
// what the last round stored; see Validators), and new links found
// join it.
//
// Memory stays bounded however many links the crawl meets, as
// NewMemoryFrontier's: 16 bytes a key, the waiting links beyond a few
// MiB in temporary segment files. The journal grows with every link added
// and done (some 200 bytes each); a new round writes it anew. Changes are
// written, not synced, as they happen: a kill of the process loses
// nothing, a crash of the machine may lose the last changes. The folder
// is locked while open (on Windows and the BSDs, Linux and macOS); Close
// releases it.
func OpenDiskFrontier(dir string) (Frontier, error) {
	f, err := openDiskFrontier(dir)
	if err != nil {
		return nil, fmt.Errorf("crawl state %s: %w", dir, err)
	}
	return f, nil
}

func openDiskFrontier(dir string) (*diskFrontier, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := olderState(dir); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	f := &diskFrontier{lock: lock, pending: map[string]*memLink{},
		mem: newMemFrontier(chunkBytes, residentBytes, segmentBytes, "")}
	if err := f.replay(filepath.Join(dir, journalName)); err != nil {
		f.mem.Close()
		if f.log != nil {
			f.log.Close()
		}
		lock.Close()
		return nil, err
	}
	f.w = bufio.NewWriterSize(f.log, 64<<10)
	return f, nil
}

// ErrOlderState is the error of OpenDiskFrontier on a folder that holds
// the state of an earlier version of this package (frontier.db, a bbolt
// file) and no journal: it is not read, and a crawl started over in its
// place would fetch everything again.
var ErrOlderState = errors.New("the folder holds an earlier version's crawl state (frontier.db), which this version does not read: remove it to start over, or use another folder")

// olderState returns ErrOlderState when dir holds frontier.db and no
// journal.
func olderState(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, journalName)); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "frontier.db")); err == nil {
		return ErrOlderState
	}
	return nil
}

// records reads the records of a journal from r, calling each with its
// type and link, and returns the offset where the valid records end.
func records(r io.Reader, each func(typ byte, m *memLink) error) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var end int64
	var body []byte
	for {
		n, err := binary.ReadUvarint(br)
		if err != nil || n == 0 || n > maxRecord {
			return end, nil // the end, or a torn record
		}
		if uint64(cap(body)) < n+4 {
			body = make([]byte, n+4)
		}
		body = body[:n+4]
		if _, err := io.ReadFull(br, body); err != nil {
			return end, nil
		}
		if crc32.ChecksumIEEE(body[:n]) != binary.BigEndian.Uint32(body[n:]) {
			return end, nil
		}
		var m memLink
		if n > 1 {
			var rest []byte
			if m, rest, err = readLink(body[1:n]); err != nil || len(rest) != 0 {
				return end, nil
			}
		}
		if err := each(body[0], &m); err != nil {
			return end, err
		}
		end += int64(len(binary.AppendUvarint(nil, n))) + int64(n) + 4
	}
}

// replay reads the journal at path into the memory frontier, and leaves
// f.log open for appending after its last valid record. A journal that
// ends with a finished crawl is written anew: one 'A' record for each
// link done in it, queued again with its validators.
func (f *diskFrontier) replay(path string) error {
	log, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.log = log
	done := newSeenSet()
	finished := false
	end, err := records(log, func(typ byte, m *memLink) error {
		finished = typ == recFinished
		if typ == recDone {
			done.add(hashKey(m.key))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := log.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if finished {
		return f.newRound(path)
	}
	// The keys done are seen; the links added and not done wait again,
	// their keys joining the seen set (the same set: done no more).
	f.mem.seen = done
	_, err = records(io.LimitReader(log, end), func(typ byte, m *memLink) error {
		if typ != recAdd || !f.mem.seen.add(hashKey(m.key)) {
			return nil
		}
		return f.queue(m)
	})
	if err != nil {
		return err
	}
	if err := log.Truncate(end); err != nil {
		return err
	}
	_, err = log.Seek(end, io.SeekStart)
	return err
}

// newRound writes the journal of a new round: the links done in the last,
// each added again with its validators, and queued.
func (f *diskFrontier) newRound(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), journalName+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, removes nothing
	w := bufio.NewWriterSize(tmp, 64<<10)
	_, err = records(f.log, func(typ byte, m *memLink) error {
		if typ != recDone || !f.mem.seen.add(hashKey(m.key)) {
			return nil
		}
		f.rec = appendRecord(f.rec[:0], recAdd, m)
		if _, err := w.Write(f.rec); err != nil {
			return err
		}
		return f.queue(m)
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		// Closed first: Windows renames no file over an open one.
		f.log.Close()
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		tmp.Close()
		return err
	}
	f.log = tmp
	_, err = tmp.Seek(0, io.SeekEnd)
	return err
}

// queue puts m in the memory frontier's queue, under its URL's host.
func (f *diskFrontier) queue(m *memLink) error {
	l, err := unpack(*m)
	if err != nil {
		return nil // its text parsed once: not expected
	}
	return f.mem.push(queueKey(l.URL), m)
}

// appendRecord appends the record of typ and m (nil for none) to b.
func appendRecord(b []byte, typ byte, m *memLink) []byte {
	body := []byte{typ}
	if m != nil {
		body = appendLink(body, m)
	}
	b = binary.AppendUvarint(b, uint64(len(body)))
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(body))
}

// write appends a record to the journal, and hands it to the system when
// flush is set (a record after which a kill must find it).
func (f *diskFrontier) write(typ byte, m *memLink, flush bool) error {
	if f.err != nil {
		return f.err
	}
	f.rec = appendRecord(f.rec[:0], typ, m)
	_, err := f.w.Write(f.rec)
	if err == nil && flush {
		err = f.w.Flush()
	}
	f.err = err
	return err
}

func (f *diskFrontier) Add(ctx context.Context, links ...Link) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, l := range links {
		if !f.mem.seen.add(hashKey(l.Key)) {
			continue
		}
		m := f.mem.pack(l)
		if err := f.write(recAdd, &m, false); err != nil {
			return n, err
		}
		if err := f.mem.push(queueKey(l.URL), &m); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func (f *diskFrontier) Next(ctx context.Context) (Link, bool, error) {
	if err := ctx.Err(); err != nil {
		return Link{}, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		m, ok, err := f.mem.pop()
		if !ok || err != nil {
			return Link{}, false, err
		}
		l, err := unpack(m)
		if err != nil {
			continue
		}
		f.pending[m.key] = &m
		return l, true, nil
	}
}

// Done journals the link of key as done, with the validators it has now.
func (f *diskFrontier) Done(ctx context.Context, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.pending[key]
	if m == nil {
		return nil
	}
	delete(f.pending, key)
	return f.write(recDone, m, true)
}

// Finish records that the crawl ran to its end: opened again, the
// frontier starts a new round.
func (f *diskFrontier) Finish(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.write(recFinished, nil, true)
}

func (f *diskFrontier) Validators(ctx context.Context, key string) (string, time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.pending[key]
	switch {
	case m == nil:
		return "", time.Time{}, nil
	case m.mod == 0:
		return m.etag, time.Time{}, nil
	}
	return m.etag, time.Unix(0, m.mod).UTC(), nil
}

// SetValidators stores them with the link of key, taken and not done: its
// 'D' record carries them to the next round.
func (f *diskFrontier) SetValidators(ctx context.Context, key, etag string, modified time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := f.pending[key]; m != nil {
		m.etag, m.mod = etag, 0
		if !modified.IsZero() {
			m.mod = modified.UnixNano()
		}
	}
	return nil
}

// Close writes what the journal holds, and releases the folder.
func (f *diskFrontier) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.log == nil {
		return nil
	}
	err := f.err
	if err == nil {
		err = f.w.Flush()
	}
	err = errors.Join(err, f.log.Close(), f.mem.Close(), f.lock.Close())
	f.log = nil
	return err
}

var (
	_ Frontier   = (*diskFrontier)(nil)
	_ Finisher   = (*diskFrontier)(nil)
	_ Validators = (*diskFrontier)(nil)
)
