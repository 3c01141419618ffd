package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// progressBar draws a one-line progress bar on stderr, at most five times a
// second. It appears only when stderr is a terminal and -s is not given.
type progressBar struct {
	w     io.Writer
	mu    *sync.Mutex
	name  string
	size  int64
	n     int64
	start time.Time
	last  time.Time
}

// progress returns a bar for res, or nil when none should be drawn.
func (e *runEnv) progress(res *fetch.Resource) *progressBar {
	if e.cfg.silent || !e.stderrTerminal() || e.cfg.parallel > 1 {
		return nil
	}
	return &progressBar{w: e.stderr, mu: &e.errMu, name: res.URL.Redacted(), size: res.Size, start: time.Now()}
}

// wrap returns a writer that advances the bar as bytes pass to w.
func (p *progressBar) wrap(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		n, err := w.Write(b)
		p.n += int64(n)
		if now := time.Now(); now.Sub(p.last) > 200*time.Millisecond {
			p.last = now
			p.draw(false)
		}
		return n, err
	})
}

func (p *progressBar) done() { p.draw(true) }

func (p *progressBar) draw(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	secs := time.Since(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(p.n) / secs
	}
	if p.size > 0 {
		pct := float64(p.n) * 100 / float64(p.size)
		fmt.Fprintf(p.w, "\r%10s / %-10s %5.1f%%  %10s/s  %s ", human(p.n), human(p.size), pct, human(int64(rate)),
			timeLeft(p.n, p.size, time.Since(p.start), final))
	} else {
		fmt.Fprintf(p.w, "\r%10s  %10s/s ", human(p.n), human(int64(rate)))
	}
	if final {
		fmt.Fprintln(p.w)
	}
}

// timeLeft is the bar's estimate of the time remaining, "ETA 1:02:03"
// (hours only when there are some) at the average rate so far, "ETA --:--"
// before there is a rate; at the end, the time the transfer took.
func timeLeft(n, size int64, elapsed time.Duration, final bool) string {
	if final {
		return "in " + clock(elapsed)
	}
	if n <= 0 || elapsed <= 0 || n >= size {
		return "ETA --:--"
	}
	left := time.Duration(float64(elapsed) * float64(size-n) / float64(n))
	return "ETA " + clock(left)
}

// clock formats d as M:SS, or H:MM:SS from an hour.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= unit
		if f < unit {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return fmt.Sprintf("%.1f PiB", f/unit)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
