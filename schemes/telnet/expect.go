package telnet

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// MaxExpect bounds the text Expect matches against: once more has been
// read, only the last MaxExpect bytes are kept and searched.
const MaxExpect = 64 << 10

// Match is what Expect found.
type Match struct {
	// Index is the position in the argument list of the pattern that
	// matched.
	Index int
	// Text is the output read by the call, up to and including the match
	// (at most the last MaxExpect bytes). On failure it holds what was read.
	Text string
	// Groups holds the match and its submatches, as
	// regexp.FindStringSubmatch returns them.
	Groups []string
}

// Expect reads the session's output until one of patterns matches the text
// read since the call began, and returns which one and the text. Output
// after the match is left for the next Read or Expect. A timeout of zero
// means no limit but the session's own read deadline and context.
//
// It fails with an error of Kind Timeout when no pattern matched in time,
// and of Kind Incomplete (wrapping io.EOF) when the server closed the
// session first.
func (s *Session) Expect(timeout time.Duration, patterns ...*regexp.Regexp) (Match, error) {
	if len(patterns) == 0 {
		return Match{Index: -1}, fetch.Errorf(fetch.Usage, "Expect needs at least one pattern")
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if timeout > 0 {
		d := time.Now().Add(timeout)
		s.dlMu.Lock()
		user := s.rdl
		s.dlMu.Unlock()
		if user.IsZero() || d.Before(user) {
			s.setReadDeadline(d)
			defer func() {
				s.dlMu.Lock()
				user := s.rdl
				s.dlMu.Unlock()
				s.setReadDeadline(user)
			}()
		}
	}
	var text []byte
	buf := make([]byte, 4096)
	for {
		n, err := s.read(buf)
		if n > 0 {
			text = append(text, buf[:n]...)
			for i, re := range patterns {
				loc := re.FindSubmatchIndex(text)
				if loc == nil {
					continue
				}
				end := loc[1]
				s.pending = append(append([]byte(nil), text[end:]...), s.pending...)
				m := Match{Index: i, Text: string(text[:end])}
				for j := 0; j+1 < len(loc); j += 2 {
					if loc[j] >= 0 {
						m.Groups = append(m.Groups, string(text[loc[j]:loc[j+1]]))
					} else {
						m.Groups = append(m.Groups, "")
					}
				}
				return m, nil
			}
			if len(text) > MaxExpect {
				text = append(text[:0], text[len(text)-MaxExpect:]...)
			}
		}
		if err != nil {
			m := Match{Index: -1, Text: string(text)}
			switch {
			case errors.Is(err, io.EOF):
				return m, fetch.Errorf(fetch.Incomplete, "the session ended before %s appeared: %w", names(patterns), io.EOF)
			case fetch.KindOf(err) == fetch.Timeout && s.dead() == nil:
				return m, fetch.Errorf(fetch.Timeout, "%s did not appear in time: %w", names(patterns), err)
			}
			return m, err
		}
	}
}

// ExpectString is Expect for literal strings.
func (s *Session) ExpectString(timeout time.Duration, strs ...string) (Match, error) {
	res := make([]*regexp.Regexp, len(strs))
	for i, str := range strs {
		res[i] = regexp.MustCompile(regexp.QuoteMeta(str))
	}
	return s.Expect(timeout, res...)
}

// names lists the patterns for an error message.
func names(patterns []*regexp.Regexp) string {
	q := make([]string, len(patterns))
	for i, re := range patterns {
		q[i] = "/" + re.String() + "/"
	}
	return strings.Join(q, " or ")
}
