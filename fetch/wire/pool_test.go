package wire

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type discards struct {
	mu  sync.Mutex
	got []int
}

func (d *discards) add(c int) {
	d.mu.Lock()
	d.got = append(d.got, c)
	d.mu.Unlock()
}

func (d *discards) list() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := slices.Clone(d.got)
	slices.Sort(s)
	return s
}

func TestPool(t *testing.T) {
	var d discards
	p := &Pool[string, int]{MaxIdle: 2, Discard: d.add}
	if _, ok := p.Get("a"); ok {
		t.Fatal("Get from an empty pool")
	}
	p.Put("a", 1)
	p.Put("a", 2)
	p.Put("b", 10)
	p.Put("a", 3) // one too many for "a": 1, the oldest, goes
	if c, ok := p.Get("a"); !ok || c != 3 {
		t.Errorf("Get = %d, %v; want the most recent, 3", c, ok)
	}
	if n := p.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
	p.Close()
	if got := d.list(); !slices.Equal(got, []int{1, 2, 10}) {
		t.Errorf("discarded %v, want [1 2 10]", got)
	}
	if p.Put("a", 4) {
		t.Error("a closed pool kept a connection")
	}
	if got := d.list(); !slices.Contains(got, 4) {
		t.Errorf("Put after Close did not discard: %v", got)
	}
	if _, ok := p.Get("a"); ok {
		t.Error("Get from a closed pool")
	}
}

// TestPoolIdleTime: a connection idle for IdleTime is still kept; one
// idle a moment longer is discarded. The clock is a synctest bubble's.
func TestPoolIdleTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d discards
		p := &Pool[string, int]{IdleTime: time.Second, Discard: d.add}
		p.Put("a", 1)
		time.Sleep(time.Second)
		if c, ok := p.Get("a"); !ok || c != 1 {
			t.Errorf("Get after IdleTime = %d, %v; want the connection, 1", c, ok)
		}
		p.Put("a", 2)
		time.Sleep(time.Second + time.Nanosecond)
		if _, ok := p.Get("a"); ok {
			t.Error("Get returned a connection idle past IdleTime")
		}
		p.Close() // waits for the discard Get started
		if got := d.list(); !slices.Equal(got, []int{2}) {
			t.Errorf("discarded %v, want [2]", got)
		}
		if p.Len() != 0 {
			t.Error("the expired connection is still kept")
		}
	})
}

func TestPoolNone(t *testing.T) {
	var d discards
	p := &Pool[string, int]{MaxIdle: -1, Discard: d.add}
	if p.Put("a", 1) || p.Len() != 0 || !slices.Equal(d.list(), []int{1}) {
		t.Errorf("MaxIdle -1 kept a connection, or did not discard it: %v", d.list())
	}
	var zero Pool[string, int] // no Discard: connections are dropped
	zero.Put("a", 1)
	zero.Put("a", 2)
	zero.Put("a", 3)
	if zero.Len() != 2 {
		t.Errorf("the zero Pool keeps %d, want 2", zero.Len())
	}
	zero.Close()
}

// Concurrent Gets, Puts and a Close leave no discard running after Close
// returns.
func TestPoolConcurrent(t *testing.T) {
	var mu sync.Mutex
	running := 0
	p := &Pool[int, int]{MaxIdle: 1, IdleTime: time.Microsecond, Discard: func(int) {
		mu.Lock()
		running++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
	}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				p.Put(i%3, g*1000+i)
				p.Get((i + 1) % 3)
			}
		}()
	}
	wg.Wait()
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	if running != 0 {
		t.Errorf("%d discards still running after Close", running)
	}
}

func TestPoolDiscardIdle(t *testing.T) {
	var d discards
	p := &Pool[string, int]{Discard: d.add}
	p.Put("a", 1)
	p.Put("a", 2)
	p.Put("b", 10)
	if n := p.DiscardIdle(func(k string) bool { return k == "a" }); n != 2 {
		t.Errorf("DiscardIdle(a) = %d, want 2", n)
	}
	p.Close() // waits for the discards
	if got := d.list(); !slices.Equal(got, []int{1, 2, 10}) {
		t.Errorf("discarded %v, want [1 2 10] (a's by DiscardIdle, b's by Close)", got)
	}
}
