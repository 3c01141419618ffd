package telnet

import (
	"regexp"
	"time"

	"github.com/rfc1738/fetch/url"
)

// login waits for the login prompt and types the user, then, when there is
// a password, waits for the password prompt and types it. Each prompt must
// appear within timeout (zero: 60 seconds). What was read on the way stays
// readable: the caller's first Read returns the banner and prompts.
func (s *Session) login(creds *url.Userinfo, loginRE, passRE *regexp.Regexp, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
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
	return s.writeLine(creds.Password, "****")
}
