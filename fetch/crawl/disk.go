package crawl

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// The store of the disk frontier is bbolt (go.etcd.io/bbolt), chosen over
// pebble: it is pure Go, one file, one small package (its only dependency
// is golang.org/x/sys, which fetch has already), and every change is an
// ACID transaction, so the state a kill leaves is one whole transaction or
// the one before. A frontier's load is many small reads and writes of
// short records, for which a B+tree in one memory-mapped file does well;
// pebble's LSM tree, compactions and dozens of files pay off for write
// volumes a crawl of one machine does not reach, and its module graph is
// far larger.
//
// Its buckets: "seen" (key → the link, every key ever added), "queue"
// (one bucket per host, sequence number → key), "pending" (keys taken and
// not done), "valid" (key → validators for a recrawl), "meta" ("finished"
// once a crawl ran to its end).
var (
	bSeen    = []byte("seen")
	bQueue   = []byte("queue")
	bPending = []byte("pending")
	bValid   = []byte("valid")
	bMeta    = []byte("meta")
	kDone    = []byte("finished")
)

// diskFrontier is the Frontier on disk.
type diskFrontier struct {
	db *bolt.DB

	mu   sync.Mutex
	ring [][]byte // hosts with queued links, taken in turn
	next int
}

// OpenDiskFrontier opens (or creates) the frontier kept in the folder dir
// (the file dir/frontier.db): a crawl run with it and stopped, by an
// error or a kill, goes on where it stopped when run again with it, the
// links it had taken and not finished taken again (at most Parallel of
// them fetched twice). A crawl that ran to its end leaves the frontier
// finished: opened again, it starts a new round over every URL it knows,
// each fetched conditionally (If-Modified-Since and If-None-Match from
// what the last round stored; see Validators), and new links found
// join it.
//
// Memory stays small however many links the crawl meets: they are on
// disk. Changes are not synced to the disk one by one (a kill of the
// process loses nothing, a crash of the machine may lose the last
// changes, not the file). The file is locked while open; Close releases
// it.
func OpenDiskFrontier(dir string) (Frontier, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	db, err := bolt.Open(filepath.Join(dir, "frontier.db"), 0o644, &bolt.Options{Timeout: time.Second, NoFreelistSync: true})
	if err != nil {
		return nil, fmt.Errorf("crawl state %s: %w", dir, err)
	}
	db.NoSync = true
	f := &diskFrontier{db: db}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bSeen, bQueue, bPending, bValid, bMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if tx.Bucket(bMeta).Get(kDone) != nil {
			// A new round over every URL known.
			if err := tx.Bucket(bMeta).Delete(kDone); err != nil {
				return err
			}
			err := tx.Bucket(bSeen).ForEach(func(k, v []byte) error {
				l, err := decodeLink(v)
				if err != nil {
					return nil // not ours to judge: left out
				}
				return enqueue(tx, queueKey(l.URL), k)
			})
			if err != nil {
				return err
			}
		}
		// Links taken and not done when the last run ended are queued
		// again, first.
		p := tx.Bucket(bPending)
		var keys [][]byte
		p.ForEach(func(k, v []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil })
		for _, k := range keys {
			v := tx.Bucket(bSeen).Get(k)
			if l, err := decodeLink(v); err == nil {
				if err := enqueue(tx, queueKey(l.URL), k); err != nil {
					return err
				}
			}
			if err := p.Delete(k); err != nil {
				return err
			}
		}
		return tx.Bucket(bQueue).ForEach(func(h, v []byte) error {
			if q := tx.Bucket(bQueue).Bucket(h); v == nil && q != nil {
				if k, _ := q.Cursor().First(); k == nil {
					return nil
				}
				f.ring = append(f.ring, append([]byte(nil), h...))
			}
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("crawl state %s: %w", dir, err)
	}
	return f, nil
}

// enqueue appends key to host's queue.
func enqueue(tx *bolt.Tx, host string, key []byte) error {
	q, err := tx.Bucket(bQueue).CreateBucketIfNotExists([]byte(host))
	if err != nil {
		return err
	}
	n, err := q.NextSequence()
	if err != nil {
		return err
	}
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], n)
	return q.Put(seq[:], key)
}

// linkRecord is a Link as stored.
type linkRecord struct {
	URL      string `json:"u"`
	Referrer string `json:"r,omitempty"`
	Depth    int    `json:"d,omitempty"`
	Tag      string `json:"t,omitempty"`
	Rel      string `json:"rel,omitempty"`
	Kind     int    `json:"k,omitempty"`
	Listed   bool   `json:"l,omitempty"`
	Public   bool   `json:"p,omitempty"`
}

func encodeLink(l Link) ([]byte, error) {
	r := linkRecord{URL: l.URL.String(), Depth: l.Depth, Tag: l.Tag, Rel: l.Rel, Kind: int(l.Kind), Listed: l.Listed, Public: l.Public}
	if l.Referrer != nil {
		r.Referrer = l.Referrer.String()
	}
	return json.Marshal(r)
}

func decodeLink(v []byte) (Link, error) {
	var r linkRecord
	if v == nil {
		return Link{}, errors.New("no link")
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return Link{}, err
	}
	u, err := url.ParseLenient(r.URL)
	if err != nil {
		return Link{}, err
	}
	l := Link{URL: u, Depth: r.Depth, Tag: r.Tag, Rel: r.Rel, Kind: fetch.ResourceKind(r.Kind), Listed: r.Listed, Public: r.Public}
	if r.Referrer != "" {
		l.Referrer, _ = url.ParseLenient(r.Referrer)
	}
	return l, nil
}

func (f *diskFrontier) Add(ctx context.Context, links ...Link) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	var hosts []string
	err := f.db.Update(func(tx *bolt.Tx) error {
		n, hosts = 0, hosts[:0]
		seen := tx.Bucket(bSeen)
		for _, l := range links {
			k := []byte(l.Key)
			if seen.Get(k) != nil {
				continue
			}
			v, err := encodeLink(l)
			if err != nil {
				return err
			}
			if err := seen.Put(k, v); err != nil {
				return err
			}
			h := queueKey(l.URL)
			if err := enqueue(tx, h, k); err != nil {
				return err
			}
			hosts = append(hosts, h)
			n++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	for _, h := range hosts {
		if !f.inRing(h) {
			f.ring = append(f.ring, []byte(h))
		}
	}
	f.mu.Unlock()
	return n, nil
}

func (f *diskFrontier) inRing(h string) bool {
	for _, r := range f.ring {
		if string(r) == h {
			return true
		}
	}
	return false
}

func (f *diskFrontier) Next(ctx context.Context) (Link, bool, error) {
	if err := ctx.Err(); err != nil {
		return Link{}, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.ring) > 0 {
		if f.next >= len(f.ring) {
			f.next = 0
		}
		h := f.ring[f.next]
		var l Link
		found, empty := false, false
		err := f.db.Update(func(tx *bolt.Tx) error {
			q := tx.Bucket(bQueue).Bucket(h)
			if q == nil {
				empty = true
				return nil
			}
			c := q.Cursor()
			for sk, key := c.First(); sk != nil; sk, key = c.First() {
				key = append([]byte(nil), key...)
				if err := c.Delete(); err != nil {
					return err
				}
				v := tx.Bucket(bSeen).Get(key)
				dl, err := decodeLink(v)
				if err != nil {
					continue
				}
				dl.Key = string(key)
				l, found = dl, true
				if err := tx.Bucket(bPending).Put(key, []byte{1}); err != nil {
					return err
				}
				break
			}
			if k, _ := c.First(); k == nil {
				empty = true
			}
			return nil
		})
		if err != nil {
			return Link{}, false, err
		}
		if empty {
			f.ring = append(f.ring[:f.next], f.ring[f.next+1:]...)
		} else {
			f.next++
		}
		if found {
			return l, true, nil
		}
	}
	return Link{}, false, nil
}

func (f *diskFrontier) Done(ctx context.Context, key string) error {
	return f.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bPending).Delete([]byte(key))
	})
}

// Finish records that the crawl ran to its end: opened again, the
// frontier starts a new round.
func (f *diskFrontier) Finish(ctx context.Context) error {
	return f.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bMeta).Put(kDone, []byte{1})
	})
}

type validators struct {
	ETag     string    `json:"e,omitempty"`
	Modified time.Time `json:"m,omitzero"`
}

func (f *diskFrontier) Validators(ctx context.Context, key string) (string, time.Time, error) {
	var v validators
	err := f.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bValid).Get([]byte(key))
		if b == nil {
			return nil
		}
		return json.Unmarshal(b, &v)
	})
	return v.ETag, v.Modified, err
}

func (f *diskFrontier) SetValidators(ctx context.Context, key, etag string, modified time.Time) error {
	b, err := json.Marshal(validators{ETag: etag, Modified: modified})
	if err != nil {
		return err
	}
	return f.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bValid).Put([]byte(key), b)
	})
}

func (f *diskFrontier) Close() error { return f.db.Close() }

var (
	_ Frontier   = (*diskFrontier)(nil)
	_ Finisher   = (*diskFrontier)(nil)
	_ Validators = (*diskFrontier)(nil)
)
