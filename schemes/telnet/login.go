package telnet

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// login waits for the login prompt and types the user, then, when there is
// a password, waits for the password prompt, types it, and reads the
// server's verdict (see verdict). Each prompt must appear within timeout.
// What was read on the way stays readable: the caller's first Read returns
// the banner and prompts.
func (s *Session) login(creds *url.Userinfo, loginRE, passRE *regexp.Regexp, timeout time.Duration) error {
	var seen []byte
	defer func() {
		s.rmu.Lock()
		s.pending = append(seen, s.pending...)
		s.rmu.Unlock()
	}()
	m, err := s.Expect(timeout, loginRE)
	seen = append(seen, m.Text...)
	if err != nil {
		return err
	}
	if err := s.writeLine(creds.Username, creds.Username); err != nil {
		return err
	}
	if !creds.HasPassword {
		return nil
	}
	m, err = s.Expect(timeout, passRE)
	seen = append(seen, m.Text...)
	if err != nil {
		return err
	}
	if err := s.writeLine(creds.Password, "****"); err != nil {
		return err
	}
	m, err = s.Expect(timeout, append([]*regexp.Regexp{loginFailed(), loginRE}, loggedIn()...)...)
	seen = append(seen, m.Text...)
	switch {
	case err == nil && m.Index <= 1:
		if m.Index == 0 {
			return fetch.Errorf(fetch.Auth, "the login as %q was refused: the server said %q", creds.Username, strings.TrimSpace(m.Groups[0]))
		}
		return fetch.Errorf(fetch.Auth, "the login as %q was refused: the server prompted for the login again", creds.Username)
	case err != nil && fetch.KindOf(err) == fetch.Timeout && s.dead() == nil:
		// The server says nothing after the password: no refusal seen.
		return nil
	}
	return err
}

// loginFailed recognises the refusal of a login, as login(1) and most
// telnet servers word it. It is compiled on first use, not when the
// program starts: most runs never log in.
var loginFailed = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(login incorrect|incorrect (login|password)|(login|authentication) (failed|failure)|access denied|permission denied|invalid (login|password))\b`)
})

// loggedIn recognises the output of a login that was accepted: two lines
// of text (a banner, a message of the day), a shell's prompt, or a
// kilobyte of output. Compiled on first use, as loginFailed.
var loggedIn = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`\S[^\r\n]*[\r\n][\s]*\S[^\r\n]*[\r\n]`),
		regexp.MustCompile(`[$#>%] ?$`),
		regexp.MustCompile(`(?s)^(.{1000}){1}.{24}`),
	}
})
