package main

import (
	"fmt"
	"io"
	"iter"
	"math"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rfc1738/fetch/fetch"
)

// multiProgress draws many transfers at once (--parallel, -r) on stderr
// with mpb: one line per transfer in progress (its URL, bytes, size when
// known, rate), and below them a total: URLs done of those read so far,
// bytes, and the average rate. Messages written to stderr meanwhile go
// above the bars. A nil *multiProgress draws nothing: it is what a run gets
// when stderr is not a terminal, with -s, or with one transfer at a time.
type multiProgress struct {
	e      *runEnv
	p      *mpb.Progress
	total  *mpb.Bar
	stderr io.Writer // the real stderr, given back by wait
	start  time.Time
	read   atomic.Int64
	done   atomic.Int64
	bytes  atomic.Int64
}

// newProgress returns the drawing for a run of many transfers, or nil.
func (e *runEnv) newProgress(many bool) *multiProgress {
	if !many || e.cfg.silent || !e.stderrTerminal() {
		return nil
	}
	mp := &multiProgress{e: e, stderr: e.stderr, start: time.Now()}
	mp.p = mpb.New(mpb.WithOutput(e.stderr), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond))
	mp.total = mp.p.New(0, mpb.NopStyle(),
		mpb.BarPriority(math.MaxInt), // drawn last, below the transfers
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return mp.summary() })))
	e.errMu.Lock()
	e.stderr = mp.p // error lines are printed above the bars
	e.errMu.Unlock()
	return mp
}

// summary is the total line.
func (mp *multiProgress) summary() string {
	secs := time.Since(mp.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(mp.bytes.Load()) / secs
	}
	return fmt.Sprintf("total %d/%d  %s  %s/s", mp.done.Load(), mp.read.Load(), human(mp.bytes.Load()), human(int64(rate)))
}

// count passes the URLs through, counting those read.
func (mp *multiProgress) count(urls iter.Seq[string]) iter.Seq[string] {
	if mp == nil {
		return urls
	}
	return func(yield func(string) bool) {
		for u := range urls {
			mp.read.Add(1)
			if !yield(u) {
				return
			}
		}
	}
}

// finished counts one URL done, fetched or failed. -r, which reads no list
// up front, counts each URL as read when it is done.
func (mp *multiProgress) finished(alsoRead bool) {
	if mp == nil {
		return
	}
	if alsoRead {
		mp.read.Add(1)
	}
	mp.done.Add(1)
}

// wrap returns a writer that passes bytes to w (w may be nil: then it
// only counts) while drawing the transfer's line, and the func to call when
// the transfer ends. It returns nil when nothing is drawn.
func (mp *multiProgress) wrap(res *fetch.Resource, w io.Writer) (io.Writer, func()) {
	if mp == nil {
		return nil, nil
	}
	size := res.Size
	if size < 0 {
		size = 0
	}
	name := res.URL.Redacted()
	if len(name) > 60 {
		name = "…" + name[len(name)-59:]
	}
	decors := []decor.Decorator{decor.Any(func(s decor.Statistics) string {
		if res.Size >= 0 {
			return fmt.Sprintf("%s / %s", human(s.Current), human(res.Size))
		}
		return human(s.Current)
	}, decor.WCSyncSpace), decor.AverageSpeed(decor.SizeB1024(0), "% .1f", decor.WCSyncSpace)}
	if res.Size > 0 {
		// The time remaining, at the average rate so far.
		decors = append(decors, decor.Name("ETA"), decor.AverageETA(decor.ET_STYLE_MMSS, decor.WCSyncSpace))
	}
	bar := mp.p.New(size, mpb.BarStyle(), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(name, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decors...))
	pw := writerFunc(func(b []byte) (int, error) {
		n := len(b)
		var err error
		if w != nil {
			n, err = w.Write(b)
		}
		bar.IncrBy(n)
		mp.bytes.Add(int64(n))
		return n, err
	})
	return pw, func() { bar.SetTotal(-1, true) }
}

// wait draws the final total and gives stderr back.
func (mp *multiProgress) wait() {
	if mp == nil {
		return
	}
	mp.total.SetTotal(-1, true)
	mp.p.Wait()
	mp.e.errMu.Lock()
	mp.e.stderr = mp.stderr
	mp.e.errMu.Unlock()
}
