package crawl

import (
	"bytes"
	"io"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// prefetch reads a body of a known size of up to syncMax bytes whole and
// closes it, which gives its connection back (and has a Sink record it);
// res.Body then reads the bytes from the buffer it returns, to give back
// to bodyBufs once the page is visited. It returns nil for a body it
// leaves as it is: one of an unknown or a larger size, or a listing the
// crawl renders. A body that fails, or ends short, is an error of the
// attempt, as when read in Visit.
func prefetch(res *fetch.Resource) (*[]byte, error) {
	if res.Size < 0 || res.Size > syncMax || listed(res.Body) != nil {
		return nil, nil
	}
	buf := bodyBufs.Get().(*[]byte)
	b := (*buf)[:res.Size]
	n, err := io.ReadFull(res.Body, b)
	if err == nil {
		// Its end, which frees the connection.
		var one [1]byte
		var m int
		for range 8 {
			if m, err = res.Body.Read(one[:]); m > 0 || err != nil {
				break
			}
		}
		if m > 0 {
			// More than its size said: read as it comes, as it is.
			rc := res.Body
			res.Body = readCloser{io.MultiReader(bytes.NewReader(b), bytes.NewReader(one[:m]), rc), rc}
			bodyBufs.Put(buf)
			return nil, nil
		}
		if err == io.EOF {
			err = nil
		}
	} else if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = fetch.Errorf(fetch.Incomplete, "got %d of %d bytes", n, res.Size)
	}
	if cerr := res.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		bodyBufs.Put(buf)
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(b))
	return buf, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// pagePool visits pages apart from the batch's workers, on up to max
// goroutines of its own, kept while the crawl runs (a goroutine a page
// would grow a new stack for each).
type pagePool struct {
	max     int
	mu      sync.Mutex
	n       int // goroutines started
	work    chan func()
	wg      sync.WaitGroup
	closing bool
}

// later hands visit to an idle goroutine of the pool, or to a new one
// while there are fewer than max. It returns false when all are busy:
// the caller visits the page itself.
func (pp *pagePool) later(visit func()) bool {
	pp.mu.Lock()
	if pp.closing || pp.max <= 0 {
		pp.mu.Unlock()
		return false
	}
	if pp.work == nil {
		pp.work = make(chan func())
	}
	work := pp.work
	select {
	case work <- visit:
		pp.mu.Unlock()
		return true
	default:
	}
	if pp.n >= pp.max {
		pp.mu.Unlock()
		return false
	}
	pp.n++
	pp.wg.Add(1)
	pp.mu.Unlock()
	go func() {
		defer pp.wg.Done()
		visit()
		for f := range work {
			f()
		}
	}()
	return true
}

// close waits for the pages being visited, and ends the pool's
// goroutines. No page may be handed to it after.
func (pp *pagePool) close() {
	pp.mu.Lock()
	pp.closing = true
	if pp.work != nil {
		close(pp.work)
	}
	pp.mu.Unlock()
	pp.wg.Wait()
}
