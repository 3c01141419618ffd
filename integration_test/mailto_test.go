//go:build integration

package integration_test

import (
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// findMail returns the message in the sink's maildir whose Subject is
// subject, waiting briefly for the sink to finish writing it.
func findMail(t *testing.T, subject string) *mail.Message {
	t.Helper()
	dir := filepath.Join(env(t, "FETCH_IT_SMTP_MAILDIR"), "new")
	deadline := time.Now().Add(10 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			b, err := os.Open(f)
			if err != nil {
				continue
			}
			m, err := mail.ReadMessage(b)
			if err == nil && m.Header.Get("Subject") == subject {
				t.Cleanup(func() { b.Close() })
				return m
			}
			b.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message with Subject %q in %s", subject, dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestMailtoSend(t *testing.T) {
	relay := env(t, "FETCH_IT_SMTP_ADDR")
	dir := t.TempDir()
	subject := fmt.Sprintf("fetch it %d", time.Now().UnixNano())
	msg := "Subject: " + subject + "\nX-Fetch-Test: yes\n\nHello through a real relay.\n.a line with a leading dot\nBye.\n"
	if err := os.WriteFile(filepath.Join(dir, "msg.txt"), []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, dir, nil, "-v", "--smtp-relay", relay, "-d", "@msg.txt", "mailto:joe%25home@example.com")
	wantCode(t, r, 0, "fetch -d @msg.txt mailto:")
	m := findMail(t, subject)
	if got := m.Header.Get("To"); got != "joe%home@example.com" {
		t.Errorf("To: %q, want the URL's decoded address", got)
	}
	if got := m.Header.Get("X-RcptTo"); got != "joe%home@example.com" {
		t.Errorf("envelope recipient %q", got)
	}
	if _, err := m.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if id := m.Header.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.Contains(id, "@") {
		t.Errorf("Message-ID %q", id)
	}
	if m.Header.Get("From") == "" || m.Header.Get("X-Fetch-Test") != "yes" {
		t.Errorf("header %v", m.Header)
	}
	body := readAll(t, m)
	if want := "Hello through a real relay.\n.a line with a leading dot\nBye.\n"; strings.ReplaceAll(body, "\r\n", "\n") != want {
		t.Errorf("body %q, want %q", body, want)
	}
	if !strings.Contains(string(r.Stderr), "> RCPT TO:<joe%home@example.com>") {
		t.Errorf("-v trace lacks RCPT:\n%s", r.Stderr)
	}
}

func readAll(t *testing.T, m *mail.Message) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := m.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

func TestMailtoStdinAndEnv(t *testing.T) {
	relay := env(t, "FETCH_IT_SMTP_ADDR")
	t.Setenv("FETCH_SMTP", relay)
	subject := fmt.Sprintf("fetch it stdin %d", time.Now().UnixNano())
	msg := "From: Ann Example <ann@example.org>\r\nSubject: " + subject + "\r\nMessage-ID: <kept@example.org>\r\n\r\nfrom stdin\r\n"
	r := runFetch(t, "", []byte(msg), "-d", "-", "mailto:bob@example.com")
	wantCode(t, r, 0, "fetch -d - mailto: with FETCH_SMTP")
	m := findMail(t, subject)
	if got := m.Header.Get("X-MailFrom"); got != "ann@example.org" {
		t.Errorf("envelope sender %q, want the From header's address", got)
	}
	if got := m.Header.Get("Message-ID"); got != "<kept@example.org>" {
		t.Errorf("Message-ID %q, want the message's own", got)
	}
	if got := m.Header.Get("To"); got != "bob@example.com" {
		t.Errorf("To %q", got)
	}
}

func TestMailtoWithoutMessage(t *testing.T) {
	relay := env(t, "FETCH_IT_SMTP_ADDR")
	r := runFetch(t, "", nil, "--smtp-relay", relay, "mailto:bob@example.com")
	wantCode(t, r, 4, "mailto without a message")
	if !strings.Contains(string(r.Stderr), "mailto designates an address, not a data object (RFC 1738 §3.5)") {
		t.Errorf("stderr %q", r.Stderr)
	}
	r = runFetch(t, "", nil, "-I", "mailto:bob%25x@example.com")
	wantCode(t, r, 0, "-I mailto:")
	if !strings.Contains(string(r.Stdout), "bob%x@example.com") {
		t.Errorf("-I output %q lacks the address", r.Stdout)
	}
}

func TestMailtoBadAddress(t *testing.T) {
	relay := env(t, "FETCH_IT_SMTP_ADDR")
	r := runFetch(t, "", nil, "--smtp-relay", relay, "-d", "hi", "mailto:no-domain")
	wantCode(t, r, 3, "mailto:no-domain")
	r = runFetch(t, "", nil, "--smtp-relay", relay, "-d", "hi", "mailto:bob%0D%0ARCPT%20TO:x@example.com")
	wantCode(t, r, 11, "mailto with an encoded CR LF")
}

// TestMailtoDryRun checks that --dry-run shows the SMTP commands the
// message means, sending nothing.
func TestMailtoDryRun(t *testing.T) {
	relay := env(t, "FETCH_IT_SMTP_ADDR")
	msg := "From: ann@example.org\nSubject: never sent\n\nbody\n"
	r := runFetch(t, "", []byte(msg), "--dry-run", "--smtp-relay", relay, "-d", "-", "mailto:bob@example.com")
	wantCode(t, r, 0, "--dry-run -d - mailto:")
	out := string(r.Stdout)
	for _, want := range []string{"MAIL FROM:<ann@example.org>\n", "RCPT TO:<bob@example.com>\n", "DATA\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}
