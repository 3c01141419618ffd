package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
)

// isTerminal reports whether stdin is a terminal. It asks the system once
// a run, not once a URL.
func (e *runEnv) isTerminal() bool {
	e.ttyOnce.Do(func() {
		f, ok := e.stdin.(*os.File)
		e.tty = ok && term.IsTerminal(int(f.Fd()))
	})
	return e.tty
}

// stderrTerminal reports whether stderr is a terminal (for the progress bar).
func (e *runEnv) stderrTerminal() bool {
	f, ok := e.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// prompter returns the fetch.Request.Prompt hook: a question on the
// terminal, answered on it, secrets without echo. It is nil when stdin is
// not a terminal, so handlers know no one can answer.
func (e *runEnv) prompter() func(label string, secret bool) (string, error) {
	if !e.isTerminal() {
		return nil
	}
	return func(label string, secret bool) (string, error) {
		e.errMu.Lock()
		defer e.errMu.Unlock()
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return "", err
		}
		defer tty.Close()
		fmt.Fprintf(tty, "%s: ", label)
		if secret {
			b, err := term.ReadPassword(int(tty.Fd()))
			fmt.Fprintln(tty)
			return string(b), err
		}
		line, err := bufio.NewReader(tty).ReadString('\n')
		if err != nil && line == "" {
			return "", err
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
}

// terminalSize returns the size of the terminal on standard output, else
// on standard input, else zeros (the telnet handler's default).
func terminalSize() (w, h int) {
	for _, f := range []*os.File{os.Stdout, os.Stdin} {
		if tw, th, err := term.GetSize(int(f.Fd())); err == nil && tw > 0 && th > 0 {
			return tw, th
		}
	}
	return 0, 0
}
