package main

import (
	"fmt"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// resumer lets a retry after a cut transfer go on where the cut attempt
// stopped (HTTP Range, FTP REST: fetch.Request.Offset) instead of starting
// again at byte 0, as curl's --retry does: a file's temporary is kept open
// between the attempts, and stdout's count of bytes is remembered, since
// they cannot be taken back. The last failure of a URL drops what was kept.
type resumer struct {
	mu    sync.Mutex
	files map[int]*partial // by URL index
	out   map[int]int64    // bytes of URL i that reached stdout
}

// partial is a file kept from a cut attempt, off bytes long.
type partial struct {
	f   *fileOut
	off int64
}

// offset is where the next attempt at URL i starts: the end of what a cut
// attempt left, or 0.
func (m *resumer) offset(i int) int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.files[i]; p != nil {
		return p.off
	}
	return m.out[i]
}

// take returns URL i's kept file, forgetting it; nil when none.
func (m *resumer) take(i int) *fileOut {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.files[i]
	delete(m.files, i)
	if p == nil {
		return nil
	}
	return p.f
}

// keeper returns the function that keeps URL i's file after a cut
// attempt, rather than it being discarded.
func (m *resumer) keeper(i int) func(f *fileOut, off int64) bool {
	if m == nil {
		return nil
	}
	return func(f *fileOut, off int64) bool {
		if f.special || off <= 0 {
			return false // a device cannot be rewound; nothing to go on from
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		m.files[i] = &partial{f: f, off: off}
		f.kept, f.off = true, off // startAt(off) goes on; startAt(0) starts again
		return true
	}
}

// wrote records that URL i's bytes reached stdout up to off.
func (m *resumer) wrote(i int, off int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.out[i] = off
	m.mu.Unlock()
}

// done forgets URL i, discarding a kept file: its last word was said.
func (m *resumer) done(i int) {
	if f := m.take(i); f != nil {
		f.kept = false
		f.abort()
	}
	if m != nil {
		m.mu.Lock()
		delete(m.out, i)
		m.mu.Unlock()
	}
}

// checkStdout refuses a resource that does not go on where the bytes
// already on stdout end: they cannot be taken back.
func (m *resumer) checkStdout(i int, res *fetch.Resource) error {
	at := m.offset(i)
	if at == 0 || res.Offset == at {
		return nil
	}
	return fetch.NoRetry(&fetch.Error{Op: "fetch", URL: res.URL.Redacted(), Kind: fetch.Incomplete,
		Err: fmt.Errorf("the transfer was cut after %d bytes went to stdout, and the server would not resume there", at)})
}
