package crawl

import (
	"context"
	"errors"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// The memory frontier's bounds: a host's queue gathers new links in a
// tail of up to chunkBytes (encoded) and is read from a head of as much;
// what lies between is spilled to segment files. When the heads and tails
// of all hosts hold more than residentBytes, the tail of the host added
// to, and the head of the host taken from, are spilled too, so that many
// hosts with a few links each stay bounded as one host with many do.
const (
	chunkBytes    = 64 << 10
	residentBytes = 4 << 20
	segmentBytes  = 64 << 20
)

// memFrontier is the Frontier in memory, with the links that wait beyond
// its bounds spilled to temporary files.
type memFrontier struct {
	mu       sync.Mutex
	seen     *seenSet
	hosts    map[string]*memHost
	ring     []*memHost // hosts with waiting links, taken in turn
	next     int
	pending  map[string]struct{}
	spill    spillStore
	resident int // bytes in the heads and tails of hosts
	chunk    int // chunkBytes, or less in tests
	budget   int // residentBytes, or less in tests
	closed   bool

	lastRef     *url.URL // the last referrer packed, and its text
	lastRefText string
}

// memHost is the queue of one host: links are taken from head (from hpos
// on), then from the chunks spilled in order, then from tail, where they
// are added. head and tail hold links encoded by appendLink.
type memHost struct {
	key    string
	head   []byte
	hpos   int
	chunks []chunk
	tail   []byte
	inRing bool
}

func (h *memHost) empty() bool {
	return h.hpos == len(h.head) && len(h.chunks) == 0 && len(h.tail) == 0
}

// memLink is a waiting Link, compact: its URLs as text (the URL only when
// it is not its key, the referrer's text shared by the links of one
// page), parsed again when taken.
type memLink struct {
	key, url, ref, tag, rel string
	etag                    string // validators, in a persistent frontier
	mod                     int64  // Unix nanoseconds; 0 for none
	depth                   int32
	kind                    fetch.ResourceKind
	listed, public          bool
}

// NewMemoryFrontier returns a Frontier kept in memory, bounded however
// many links a crawl meets: each key it ever added costs 16 bytes (a
// 128-bit hash; two keys share one with a probability of about n²/2¹²⁹
// for n keys, 1.5·10⁻²⁷ for a million), and the links waiting beyond a
// few MiB go to temporary files (in os.TempDir, removed by Close; where
// the system allows it, removed at once while open, so that not even a
// killed process leaves them). Its state ends with the process: for a
// crawl that goes on after a kill, use OpenDiskFrontier.
func NewMemoryFrontier() Frontier {
	return newMemFrontier(chunkBytes, residentBytes, segmentBytes, "")
}

func newMemFrontier(chunk, budget int, segMax int64, dir string) *memFrontier {
	return &memFrontier{seen: newSeenSet(), hosts: map[string]*memHost{}, pending: map[string]struct{}{},
		chunk: chunk, budget: budget, spill: spillStore{dir: dir, segMax: segMax}}
}

var errClosed = errors.New("crawl: frontier closed")

// pack makes the memLink of l.
func (f *memFrontier) pack(l Link) memLink {
	m := memLink{key: l.Key, tag: l.Tag, rel: l.Rel, depth: int32(l.Depth), kind: l.Kind, listed: l.Listed, public: l.Public}
	if s := l.URL.String(); s != l.Key {
		m.url = s
	}
	if l.Referrer != nil {
		if l.Referrer != f.lastRef {
			f.lastRef, f.lastRefText = l.Referrer, l.Referrer.String()
		}
		m.ref = f.lastRefText
	}
	return m
}

// unpack makes the Link of m again.
func unpack(m memLink) (Link, error) {
	s := m.url
	if s == "" {
		s = m.key
	}
	u, err := url.ParseLenient(s)
	if err != nil {
		return Link{}, err
	}
	l := Link{URL: u, Key: m.key, Depth: int(m.depth), Tag: m.tag, Rel: m.rel, Kind: m.kind, Listed: m.listed, Public: m.public}
	if m.ref != "" {
		l.Referrer, _ = url.ParseLenient(m.ref)
	}
	return l, nil
}

func (f *memFrontier) Add(ctx context.Context, links ...Link) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	n := 0
	for _, l := range links {
		if !f.seen.add(hashKey(l.Key)) {
			continue
		}
		m := f.pack(l)
		if err := f.push(queueKey(l.URL), &m); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// push queues m under the host hk.
func (f *memFrontier) push(hk string, m *memLink) error {
	h := f.hosts[hk]
	if h == nil {
		h = &memHost{key: hk}
		f.hosts[hk] = h
	}
	was := len(h.tail)
	if h.tail == nil {
		h.tail = make([]byte, 0, min(f.chunk, 512))
	}
	h.tail = appendLink(h.tail, m)
	f.resident += len(h.tail) - was
	if !h.inRing {
		h.inRing = true
		f.ring = append(f.ring, h)
	}
	if len(h.tail) >= f.chunk || f.resident > f.budget {
		return f.spillTail(h)
	}
	return nil
}

// spillTail ends h's tail: it becomes the head when nothing waits before
// it and memory allows, else it is written to a segment.
func (f *memFrontier) spillTail(h *memHost) error {
	if h.hpos == len(h.head) && len(h.chunks) == 0 && f.resident <= f.budget {
		f.resident -= len(h.head)
		h.head, h.hpos, h.tail = h.tail, 0, nil
		return nil
	}
	c, err := f.spill.write(h.tail)
	if err != nil {
		return err
	}
	h.chunks = append(h.chunks, c)
	f.resident -= len(h.tail)
	h.tail = nil
	return nil
}

// take decodes the next link of h.
func (f *memFrontier) take(h *memHost) (memLink, error) {
	if h.hpos == len(h.head) {
		f.resident -= len(h.head)
		h.head, h.hpos = nil, 0
		if len(h.chunks) > 0 {
			b, err := f.spill.read(h.chunks[0])
			h.chunks[0] = chunk{}
			h.chunks = h.chunks[1:]
			if err != nil {
				return memLink{}, err
			}
			h.head = b
			f.resident += len(b)
		} else {
			h.head, h.tail = h.tail, nil // counted already
		}
	}
	m, rest, err := readLink(h.head[h.hpos:])
	if err != nil {
		return m, err
	}
	h.hpos = len(h.head) - len(rest)
	if h.hpos == len(h.head) {
		f.resident -= len(h.head)
		h.head, h.hpos = nil, 0
	} else if f.resident > f.budget {
		// Over the bound: the rest of the head waits on disk, first.
		c, err := f.spill.write(h.head[h.hpos:])
		if err != nil {
			return m, err
		}
		h.chunks = append([]chunk{c}, h.chunks...)
		f.resident -= len(h.head)
		h.head, h.hpos = nil, 0
	}
	return m, nil
}

func (f *memFrontier) Next(ctx context.Context) (Link, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return Link{}, false, errClosed
	}
	for {
		m, ok, err := f.pop()
		if !ok || err != nil {
			return Link{}, false, err
		}
		l, err := unpack(m)
		if err != nil {
			continue // its text parsed once: not expected
		}
		f.pending[l.Key] = struct{}{}
		return l, true, nil
	}
}

// pop takes the next waiting link, hosts in turn.
func (f *memFrontier) pop() (memLink, bool, error) {
	if len(f.ring) == 0 {
		return memLink{}, false, nil
	}
	if f.next >= len(f.ring) {
		f.next = 0
	}
	h := f.ring[f.next]
	m, err := f.take(h)
	if err != nil {
		return memLink{}, false, err
	}
	if h.empty() {
		h.inRing = false
		f.ring = append(f.ring[:f.next], f.ring[f.next+1:]...)
		delete(f.hosts, h.key)
	} else {
		f.next++
	}
	return m, true, nil
}

func (f *memFrontier) Done(ctx context.Context, key string) error {
	f.mu.Lock()
	delete(f.pending, key)
	f.mu.Unlock()
	return nil
}

// Close removes the frontier's temporary files.
func (f *memFrontier) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.hosts, f.ring = nil, nil
	return f.spill.closeAll()
}
