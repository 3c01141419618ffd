//go:build integration

package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The telnet server (servers/telnet.sh) is inetutils-telnetd running a
// login program that accepts guest / s3cret and then serves "demo$ ".

func TestTelnetScript(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	in := "guest\ns3cret\necho hello there\nquit\n"
	r := runFetch(t, "", []byte(in), "--max-time", "60", "telnet://guest:s3cret@"+addr+"/")
	wantCode(t, r, 0, "telnet with a script on stdin")
	out := string(r.Stdout)
	for _, want := range []string{"login: ", "Welcome, guest", "hello there", "bye"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(string(r.Stderr), "log in as guest with password s3cret") {
		t.Errorf("stderr lacks the advisory login (RFC 1738 §3.8):\n%s", r.Stderr)
	}
}

func TestTelnetLoginOption(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	r := runFetch(t, "", []byte("echo typed by the script\nquit\n"), "--max-time", "60", "--telnet-login", "-v", "telnet://guest:s3cret@"+addr+"/")
	wantCode(t, r, 0, "telnet --telnet-login")
	out := string(r.Stdout)
	for _, want := range []string{"login: ", "Password: ", "Welcome, guest", "typed by the script", "bye"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	trace := string(r.Stderr)
	if !strings.Contains(trace, "> guest") || !strings.Contains(trace, "> ****") || strings.Contains(trace, "> s3cret") {
		t.Errorf("trace should show the user and **** for the password:\n%s", trace)
	}
}

// TestTelnetAdvisoryOnly checks §3.8: without --telnet-login nothing is
// typed, so the server waits at its login prompt until fetch gives up
// (--max-time: exit 10, or a quiet server after stdin's end: exit 0).
func TestTelnetAdvisoryOnly(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	r := runFetch(t, "", nil, "--max-time", "3", "telnet://guest:s3cret@"+addr+"/")
	if r.Code != 10 && r.Code != 0 {
		t.Fatalf("telnet with nothing to send, --max-time 3: exit %d, want 10 or 0\nstderr: %s", r.Code, r.Stderr)
	}
	if out := string(r.Stdout); !strings.Contains(out, "login: ") || strings.Contains(out, "Password") {
		t.Errorf("output %q: want the login prompt and nothing typed", out)
	}
}

func TestTelnetRefusesControls(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	for _, u := range []string{"telnet://gu%0Dest@" + addr + "/", "telnet://guest:s3%0Acret@" + addr + "/", "telnet://guest:s3%00cret@" + addr + "/"} {
		r := runFetch(t, "", nil, "--telnet-login", u)
		wantCode(t, r, 11, u)
	}
}

func TestTelnetDryRun(t *testing.T) {
	r := runFetch(t, "", nil, "--dry-run", "--telnet-login", "telnet://guest:s3cret@127.0.0.1:2323/")
	wantCode(t, r, 0, "--dry-run --telnet-login")
	if got := string(r.Stdout); !strings.Contains(got, "guest\n") || !strings.Contains(got, "****") || strings.Contains(got, "s3cret") {
		t.Errorf("dry run %q: want the user and **** for the password", got)
	}
}

// tmuxSession is a tmux server of the test's own (its own socket), with one
// window running a plain bash in dir.
type tmuxSession struct {
	t    *testing.T
	sock string
	dir  string
}

func newTmux(t *testing.T) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("FETCH_IT_REQUIRE") == "1" {
			t.Fatal("tmux is not installed, although servers/telnet.sh installs it")
		}
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, sock: "fetch-it-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36), dir: t.TempDir()}
	cmd := exec.Command("tmux", "-L", s.sock, "-f", "/dev/null", "new-session", "-d", "-s", "it", "-x", "132", "-y", "50", "-c", s.dir,
		"env", "PS1=$ ", "TERM=xterm", "bash", "--norc", "--noprofile")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	return s
}

// keys sends tmux key names (send-keys syntax: "Enter", "C-c", "C-]") or
// literal text with literal set.
func (s *tmuxSession) keys(literal bool, keys ...string) {
	s.t.Helper()
	args := []string{"-L", s.sock, "send-keys", "-t", "it"}
	if literal {
		args = append(args, "-l")
	}
	if out, err := exec.Command("tmux", append(args, keys...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

// line types text and Enter.
func (s *tmuxSession) line(text string) {
	s.t.Helper()
	s.keys(true, text)
	s.keys(false, "Enter")
}

func (s *tmuxSession) screen() string {
	out, _ := exec.Command("tmux", "-L", s.sock, "capture-pane", "-p", "-t", "it", "-S", "-200").Output()
	return string(out)
}

// waitFor polls the screen until it holds want n times in all, or fails.
func (s *tmuxSession) waitFor(want string, n int) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(s.screen(), want) < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q (%d times):\n%s", want, n, s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTelnetInteractive drives the CLI on a real terminal (tmux): the
// session runs in raw mode (a single key reaches the server without Enter,
// and Ctrl-C goes to the server rather than killing fetch), Ctrl-] quits,
// a server that hangs up ends the session, and either way the terminal's
// settings are restored exactly.
func TestTelnetInteractive(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	bin := fetchBin(t)
	tm := newTmux(t)
	tm.line("stty -g > before.txt; echo READY")
	tm.waitFor("READY\n", 1)

	run := func(n int) {
		tm.line(bin + " telnet://guest:s3cret@" + addr + "/; echo EXIT=$?; stty -g > after" + strconv.Itoa(n) + ".txt; echo DONE" + strconv.Itoa(n))
		tm.waitFor("login:", n)
		tm.line("guest")
		tm.waitFor("Password:", n)
		tm.line("s3cret")
		tm.waitFor("Welcome, guest", n)
		tm.waitFor("demo$", 1)
	}

	// Session 1: raw mode, Ctrl-C to the server, Ctrl-] to quit.
	run(1)
	tm.line("key")
	tm.keys(true, "x") // no Enter: only a raw-mode terminal sends it now
	tm.waitFor("key=[x]", 1)
	tm.line("sleepy")
	tm.waitFor("sleeping\n", 1)
	tm.keys(false, "C-c")
	tm.waitFor("interrupted", 1)
	tm.line("echo still here")
	tm.waitFor("still here\n", 1)
	tm.keys(false, "C-]")
	tm.waitFor("DONE1", 2) // the command line shows it once, its output once more
	if !strings.Contains(tm.screen(), "EXIT=0") {
		t.Errorf("fetch did not exit 0 after Ctrl-]:\n%s", tm.screen())
	}

	// Session 2: the server hangs up.
	run(2)
	tm.line("quit")
	tm.waitFor("DONE2", 2)
	if strings.Count(tm.screen(), "EXIT=0") != 2 {
		t.Errorf("fetch did not exit 0 when the server closed:\n%s", tm.screen())
	}

	before, err := os.ReadFile(filepath.Join(tm.dir, "before.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"after1.txt", "after2.txt"} {
		after, err := os.ReadFile(filepath.Join(tm.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if string(after) != string(before) {
			t.Errorf("terminal settings not restored (%s):\nbefore %s after  %s", f, before, after)
		}
	}
}

// TestTelnetLoginRefused checks that --telnet-login with a wrong password
// exits 6 when the server answers "Login incorrect".
func TestTelnetLoginRefused(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	r := runFetch(t, "", []byte("quit\n"), "--max-time", "60", "--telnet-login", "telnet://guest:wrong@"+addr+"/")
	wantCode(t, r, 6, "--telnet-login with a wrong password")
	if !strings.Contains(string(r.Stderr), "Login incorrect") {
		t.Errorf("stderr lacks the server's refusal:\n%s", r.Stderr)
	}
}

// TestTelnetOutputFileRefused checks that -o with a telnet URL exits 2
// and leaves no file and no temporary.
func TestTelnetOutputFileRefused(t *testing.T) {
	addr := env(t, "FETCH_IT_TELNET_ADDR")
	dir := t.TempDir()
	r := runFetch(t, dir, []byte("guest\ns3cret\nquit\n"), "--max-time", "60", "-o", "session.txt", "telnet://"+addr+"/")
	wantCode(t, r, 2, "-o with a telnet URL")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the folder holds %d entries, want none", len(entries))
	}
}
