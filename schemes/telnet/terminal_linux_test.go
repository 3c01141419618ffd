//go:build linux

package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rfc1738/fetch/fetch"
)

// pty is a pseudo-terminal pair: the test types into master, and Interact
// reads slave as its terminal.
type pty struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer // what the terminal showed (read from master)
	done          chan struct{}
}

func openPTY(t *testing.T) *pty {
	t.Helper()
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	sfd, err := unix.Open(fmt.Sprintf("/dev/pts/%d", n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &pty{master: os.NewFile(uintptr(mfd), "ptmx"), slave: os.NewFile(uintptr(sfd), "pts"), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 1024)
		for {
			n, err := p.master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		p.slave.Close()
		<-p.done // the master reads EIO once the slave is gone
		p.master.Close()
	})
	return p
}

func (p *pty) termios(t *testing.T) *unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(p.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio
}

// waitRaw waits until the terminal is in raw mode (canonical input off).
func (p *pty) waitRaw(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.termios(t).Lflag&unix.ICANON != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the terminal never went into raw mode")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitShown waits until the terminal has shown every one of wants.
func (p *pty) waitShown(t *testing.T, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, missing := p.shown(), ""
		for _, w := range wants {
			if !strings.Contains(s, w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the terminal never showed %q; it showed %q", missing, s)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *pty) shown() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func sameTermios(a, b *unix.Termios) bool {
	return a.Iflag == b.Iflag && a.Oflag == b.Oflag && a.Cflag == b.Cflag && a.Lflag == b.Lflag && a.Cc == b.Cc
}

// interact runs Interact on the pty against a session with addr, and
// returns a channel for its result.
func interact(t *testing.T, ctx context.Context, p *pty, addr string) <-chan error {
	t.Helper()
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	errc := make(chan error, 1)
	go func() { errc <- Interact(ctx, s, p.slave, p.slave, nil) }()
	return errc
}

func wait(t *testing.T, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Interact did not return")
		return nil
	}
}

func TestInteractEscape(t *testing.T) {
	p := openPTY(t)
	before := p.termios(t)
	lines := make(chan string, 4)
	addr, _ := serve(t, func(sp *peer) {
		sp.send(cIAC, cWILL, oECHO, cIAC, cWILL, oSGA)
		sp.sendf("hello from the server\r\n")
		for {
			line, err := sp.readLine()
			if err != nil {
				return
			}
			lines <- line
		}
	})
	errc := interact(t, context.Background(), p, addr)
	p.waitRaw(t)
	// Enter in raw mode is a bare CR: it must reach the server as CR LF.
	p.master.Write([]byte("ls\r"))
	if got := <-lines; got != "ls\r\n" {
		t.Errorf("server got %q, want %q", got, "ls\r\n")
	}
	// The greeting is shown before Ctrl-] ends the session: output not
	// yet shown when it does is dropped, and on a busy machine the
	// greeting may still be on its way to the terminal.
	p.waitShown(t, "hello from the server")
	p.master.Write([]byte("x\x1dnot sent"))
	if err := wait(t, errc); err != nil {
		t.Errorf("Interact after Ctrl-]: %v, want nil", err)
	}
	if after := p.termios(t); !sameTermios(before, after) {
		t.Errorf("terminal not restored after Ctrl-]:\nbefore %+v\nafter  %+v", before, after)
	}
	p.waitShown(t, "Connection closed.")
}

func TestInteractServerCloses(t *testing.T) {
	p := openPTY(t)
	before := p.termios(t)
	addr, _ := serve(t, func(sp *peer) { sp.sendf("bye\r\n") })
	errc := interact(t, context.Background(), p, addr)
	if err := wait(t, errc); err != nil {
		t.Errorf("Interact after the server closed: %v, want nil", err)
	}
	if after := p.termios(t); !sameTermios(before, after) {
		t.Errorf("terminal not restored after the server closed")
	}
	p.waitShown(t, "bye\r\n", "Connection closed by foreign host.")
}

func TestInteractCancel(t *testing.T) {
	p := openPTY(t)
	before := p.termios(t)
	addr, _ := serve(t, drain)
	ctx, cancel := context.WithCancel(context.Background())
	errc := interact(t, ctx, p, addr)
	p.waitRaw(t)
	cancel()
	if err := wait(t, errc); !errors.Is(err, context.Canceled) {
		t.Errorf("Interact after cancel: %v, want context.Canceled", err)
	}
	if after := p.termios(t); !sameTermios(before, after) {
		t.Errorf("terminal not restored after cancel")
	}
}

// TestInteractSignal: the library catches no signal; a program that ends
// ctx on SIGHUP (signal.NotifyContext, as the fetch command does) gets the
// session ended and the terminal restored.
func TestInteractSignal(t *testing.T) {
	p := openPTY(t)
	before := p.termios(t)
	addr, _ := serve(t, drain)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP)
	defer stop()
	errc := interact(t, ctx, p, addr)
	p.waitRaw(t)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	if err := wait(t, errc); !errors.Is(err, context.Canceled) {
		t.Errorf("Interact after SIGHUP: %v, want an error wrapping context.Canceled", err)
	}
	if after := p.termios(t); !sameTermios(before, after) {
		t.Errorf("terminal not restored after SIGHUP")
	}
}

func TestInteractNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	addr, _ := serve(t, drain)
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	if err := Interact(context.Background(), s, f, io.Discard, nil); !errors.Is(err, fetch.Usage) {
		t.Errorf("Interact on a file: %v, want Kind Usage", err)
	}
}

// TestPipeStdinStaysOpen checks that Pipe returns when the server closes
// even though its input (an os.File pipe) never ends, and leaves no
// goroutine blocked reading it (TestMain checks for leaks).
func TestPipeStdinStaysOpen(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	addr, _ := serve(t, func(sp *peer) {
		line, _ := sp.readLine()
		sp.sendf("got %s", line)
	})
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	w.Write([]byte("one line\n"))
	var out bytes.Buffer
	if err := Pipe(context.Background(), s, r, &out, time.Minute); err != nil {
		t.Fatalf("Pipe: %v", err)
	}
	if out.String() != "got one line\r\n" {
		t.Errorf("output %q", out.String())
	}
}

// TestInteractResize: a session opened through a fetch.Client (whose Body
// wraps the Session) tells the server the terminal's size at the start
// and again each time it is told the window changed (the fetch command
// tells it on SIGWINCH; issue 28: the wrapper hid SetWindowSize, and no
// change was sent).
func TestInteractResize(t *testing.T) {
	p := openPTY(t)
	setSize := func(w, h int) {
		if err := unix.IoctlSetWinsize(int(p.slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(w), Row: uint16(h)}); err != nil {
			t.Fatal(err)
		}
	}
	setSize(100, 30)
	peers := make(chan *peer, 1)
	addr, _ := serve(t, func(sp *peer) {
		peers <- sp
		sp.send(cIAC, cDO, oNAWS)
		for { // reading records the client's commands
			if _, err := sp.readByte(); err != nil {
				return
			}
		}
	})
	c := &fetch.Client{}
	c.Register("telnet", &Handler{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, &fetch.Request{URL: parse(t, "telnet://"+addr)})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	resized := make(chan os.Signal, 1)
	go func() { errc <- Interact(ctx, res.Body.(io.ReadWriter), p.slave, p.slave, resized) }()
	sp := <-peers
	waitSubs := func(want ...[]byte) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := sp.subnegotiations()
			if len(got) >= len(want) {
				for i := range want {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("subnegotiations % x, want % x", got, want)
					}
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("subnegotiations % x, want % x", got, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitSubs([]byte{oNAWS, 0, 100, 0, 30})
	setSize(120, 40)
	resized <- syscall.SIGWINCH
	waitSubs([]byte{oNAWS, 0, 100, 0, 30}, []byte{oNAWS, 0, 120, 0, 40})
	p.master.Write([]byte{EscapeKey})
	if err := wait(t, errc); err != nil {
		t.Errorf("Interact after Ctrl-]: %v", err)
	}
}
