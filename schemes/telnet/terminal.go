package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/rfc1738/fetch/fetch"
)

// EscapeKey is the key that ends Interact: Ctrl-], as in telnet(1).
const EscapeKey = 0x1d

// DefaultLinger is how long Pipe waits for more output once its input is
// exhausted, when given a linger of zero.
const DefaultLinger = 2 * time.Second

// errEscape reports that the user pressed the escape key.
var errEscape = errors.New("escape key")

// Interact runs session s on the terminal in: it puts the terminal in raw
// mode, sends every key to the server (Ctrl-C included, as telnet(1) does)
// and copies the server's output to out, until the user presses EscapeKey
// (Ctrl-]), the server closes the connection, or ctx is done. When s is a
// Session (or a fetch.Client's Body of one), the server that asked for the
// window size (NAWS) is told it at the start and each time resized
// receives (nil: never). On every one of these paths, and on a panic, the
// terminal's mode is restored before Interact returns. Interact closes s
// when it is an io.Closer (a fetch Resource's Body is).
//
// The process's signals are the caller's: a program ends ctx on SIGINT,
// SIGTERM and SIGHUP (signal.NotifyContext), so that a signal ends the
// session with the terminal restored, and sends on resized on SIGWINCH,
// as the fetch command does; the library catches none itself.
//
// It returns nil after the escape key or a clean close by the server, the
// context's error when ctx is done, and an error of Kind Usage when in is
// not a terminal.
func Interact(ctx context.Context, s io.ReadWriter, in *os.File, out io.Writer, resized <-chan os.Signal) error {
	defer closeSession(s)
	fd := int(in.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return fetch.Errorf(fetch.Usage, "interactive session: standard input is not a terminal: %w", err)
	}
	defer term.Restore(fd, old)
	// The window's size, now and whenever it changes (NAWS, RFC 1073).
	ws := windowSetter(s)
	tellSize := func() {
		if w, h, err := term.GetSize(fd); ws != nil && err == nil && w > 0 && h > 0 {
			ws.SetWindowSize(w, h) // a failure shows on the connection's next use
		}
	}
	tellSize()

	keys, release := interruptible(in)
	defer release()
	fmt.Fprint(out, "Escape character is '^]'.\r\n")

	fromServer := make(chan error, 1)
	go func() { fromServer <- copyOutput(out, s) }()
	fromKeys := make(chan error, 1)
	go func() { fromKeys <- sendKeys(s, keys) }()

	for {
		select {
		case err := <-fromServer:
			if err == nil {
				fmt.Fprint(out, "\r\nConnection closed by foreign host.\r\n")
			}
			return err
		case err := <-fromKeys:
			if err != nil && ctx.Err() != nil {
				return ended(ctx, s, fromServer)
			}
			if errors.Is(err, errEscape) || err == nil {
				fmt.Fprint(out, "\r\nConnection closed.\r\n")
				return nil
			}
			return err
		case <-ctx.Done():
			return ended(ctx, s, fromServer)
		case <-resized:
			tellSize()
		}
	}
}

// windowSetter finds the SetWindowSize of s (a *Session), under the
// wrappers that name their Body's with Unwrap (a fetch.Client's), or nil.
func windowSetter(s io.ReadWriter) interface{ SetWindowSize(w, h int) error } {
	var r any = s
	for range 8 {
		if ws, ok := r.(interface{ SetWindowSize(w, h int) error }); ok {
			return ws
		}
		u, ok := r.(interface{ Unwrap() io.ReadCloser })
		if !ok {
			return nil
		}
		r = u.Unwrap()
	}
	return nil
}

// sendKeys copies keys to the session until EscapeKey (errEscape), the end
// of the keys (nil) or a failure.
func sendKeys(s io.Writer, keys io.Reader) error {
	buf := make([]byte, 256)
	for {
		n, err := keys.Read(buf)
		if n > 0 {
			p := buf[:n]
			i := bytes.IndexByte(p, EscapeKey)
			if i >= 0 {
				p = p[:i]
			}
			if len(p) > 0 {
				if _, werr := s.Write(p); werr != nil {
					return werr
				}
			}
			if i >= 0 {
				return errEscape
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// copyOutput copies the session's output to out until the server closes
// (nil) or a failure.
func copyOutput(out io.Writer, s io.Reader) error {
	_, err := io.Copy(out, s)
	return err
}

// Pipe runs session s without a terminal: it sends in to the server and
// copies the server's output to out until the server closes the connection
// (nil), ctx is done (its error), or, once in is exhausted, the server has
// sent nothing for linger (nil; zero means DefaultLinger), which leaves
// the server time to answer the last line sent. Pipe closes s when it is an
// io.Closer.
func Pipe(ctx context.Context, s io.ReadWriter, in io.Reader, out io.Writer, linger time.Duration) error {
	defer closeSession(s)
	if linger <= 0 {
		linger = DefaultLinger
	}
	if f, ok := in.(*os.File); ok {
		r, release := interruptible(f)
		defer release()
		in = r
	}
	output := make(chan struct{}, 1)
	fromServer := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, readNotify{s, output})
		fromServer <- err
	}()
	fromIn := make(chan error, 1)
	go func() {
		_, err := io.Copy(s, in)
		fromIn <- err
	}()
	var quiet <-chan time.Time // armed once in is exhausted
	var timer *time.Timer
	for {
		select {
		case err := <-fromServer:
			return err
		case err := <-fromIn:
			if err != nil && ctx.Err() != nil {
				return ended(ctx, s, fromServer)
			}
			if err != nil {
				return err
			}
			timer = time.NewTimer(linger)
			defer timer.Stop()
			quiet = timer.C
			fromIn = nil
		case <-output:
			if timer != nil {
				timer.Reset(linger)
			}
		case <-quiet:
			return nil
		case <-ctx.Done():
			return ended(ctx, s, fromServer)
		}
	}
}

// readNotify signals on c after each read that returned bytes.
type readNotify struct {
	r io.Reader
	c chan struct{}
}

func (r readNotify) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		select {
		case r.c <- struct{}{}:
		default:
		}
	}
	return n, err
}

// endWait bounds how long ended waits for the session's reader.
const endWait = 5 * time.Second

// ended ends session s once ctx is done: it closes s and returns the error
// its reader got (reported on fromServer) when that is the context's cause,
// as it is for a session of this package opened with ctx: read through a
// fetch.Client's Body, that error names the URL. Else it returns the cause.
func ended(ctx context.Context, s io.ReadWriter, fromServer <-chan error) error {
	cause := context.Cause(ctx)
	closeSession(s)
	t := time.NewTimer(endWait)
	defer t.Stop()
	select {
	case err := <-fromServer:
		if errors.Is(err, cause) {
			return err
		}
	case <-t.C:
	}
	return fetch.Classify(cause)
}

// closeSession closes s when it can be closed, which ends the goroutine
// still reading from it.
func closeSession(s io.ReadWriter) {
	if c, ok := s.(io.Closer); ok {
		c.Close()
	}
}
