package gopher

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Item is one line of a gopher menu (RFC 1436 §3.8, with Gopher+'s fifth
// field): <type><display> TAB <selector> TAB <host> TAB <port> [TAB +|?].
type Item struct {
	Type     byte   // the item type character: '0' text, '1' menu, '7' search, 'i' information, ...
	Display  string // the display string, as sent (may hold any bytes but TAB, CR, LF)
	Selector string // the selector, as sent
	Host     string
	Port     int  // 0 when the line gives none (information lines)
	Plus     bool // a Gopher+ item ("+" or "?" in the fifth field)
	Ask      bool // a Gopher+ item with a +ASK form ("?")
	TLS      bool // reached with gophers: set by a MenuReader whose Base is a gophers URL on the same host and port
}

// ParseItem parses one menu line, with or without its line end. It reports
// false for a line that is not an item: empty, the final ".", a type that
// is not a printable ASCII character, or (except for information and error
// lines, 'i' and '3', which servers often leave short) fewer than four
// fields or a port that is not a number from 0 to 65535.
func ParseItem(line string) (Item, bool) {
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line == "." {
		return Item{}, false
	}
	it := Item{Type: line[0]}
	if it.Type <= ' ' || it.Type >= 0x7f {
		return Item{}, false
	}
	f := strings.Split(line[1:], "\t")
	lax := it.Type == 'i' || it.Type == '3'
	if len(f) < 4 && !lax {
		return Item{}, false
	}
	it.Display = f[0]
	if len(f) > 1 {
		it.Selector = f[1]
	}
	if len(f) > 2 {
		it.Host = f[2]
	}
	if len(f) > 3 {
		p := strings.TrimSpace(f[3])
		n, err := strconv.Atoi(p)
		switch {
		case err == nil && n >= 0 && n <= 65535 && p[0] != '+' && p[0] != '-':
			it.Port = n
		case !lax:
			return Item{}, false
		}
	}
	if len(f) > 4 {
		switch strings.TrimSpace(f[4]) {
		case "+":
			it.Plus = true
		case "?":
			it.Plus, it.Ask = true, true
		}
	}
	return it, true
}

// URL returns the URL the item designates, or "" when it designates none
// (information and error lines, items without a usable host). Items of
// types 8 and T give telnet and tn3270 URLs with the selector as the user
// name; an 'h' item whose selector is "URL:<url>" gives that URL. Gopher+
// items with a +ASK form get the Gopher+ string "?" (§3.4.4).
func (it Item) URL() string {
	if it.Type == 'i' || it.Type == '3' {
		return ""
	}
	if rest, ok := strings.CutPrefix(it.Selector, "URL:"); ok && rest != "" {
		if _, err := url.ParseLenient(rest); err == nil && !strings.ContainsAny(rest, " \t\x00\r\n") {
			return rest
		}
	}
	if it.Host == "" || strings.ContainsAny(it.Host, "/@?#% \t") {
		return ""
	}
	host := it.Host
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	var s string
	switch it.Type {
	case '8', 'T':
		scheme, def := "telnet", 23
		if it.Type == 'T' {
			scheme, def = "tn3270", 0 // a scheme without a registered default port
		}
		s = scheme + "://"
		if it.Selector != "" {
			s += url.EscapeUserinfo(it.Selector) + "@"
		}
		s += host
		if it.Port != 0 && it.Port != def {
			s += ":" + strconv.Itoa(it.Port)
		}
		s += "/"
	default:
		scheme := "gopher"
		if it.TLS {
			scheme = "gophers"
		}
		s = scheme + "://" + host
		if it.Port != 0 && it.Port != 70 {
			s += ":" + strconv.Itoa(it.Port)
		}
		s += "/" + url.Escape(string(it.Type), url.KeepGopher) + url.Escape(it.Selector, url.KeepGopher)
		if it.Ask {
			s += "%09%09?"
		}
	}
	if _, err := url.ParseLenient(s); err != nil {
		return ""
	}
	return s
}

// MenuReader reads the items of a gopher menu one at a time, in flat
// memory: each line is bounded by MaxLine, and a longer line, like any
// malformed one, is skipped and counted, never fatal. A lone "." line ends
// the menu.
type MenuReader struct {
	// Base is the URL the menu was fetched from; items on its host and
	// port get its scheme (gophers). Nil means plain gopher.
	Base *url.URL
	// MaxLine bounds a line in bytes. Zero means 16 KiB.
	MaxLine int

	br      *bufio.Reader
	line    []byte
	skipped int
	done    bool
}

// NewMenuReader returns a MenuReader reading the menu r holds.
func NewMenuReader(r io.Reader) *MenuReader {
	return &MenuReader{br: bufio.NewReaderSize(r, 4096)}
}

// Skipped returns how many malformed or over-long lines were skipped so
// far.
func (m *MenuReader) Skipped() int { return m.skipped }

// Next returns the next item. At the end of the menu it returns io.EOF;
// an error reading r is returned as it is.
func (m *MenuReader) Next() (Item, error) {
	max := m.MaxLine
	if max <= 0 {
		max = 16 << 10
	}
	for !m.done {
		line, long, err := m.readLine(max)
		if err != nil && err != io.EOF {
			return Item{}, err
		}
		if err == io.EOF {
			m.done = true
			if len(line) == 0 && !long {
				break
			}
		}
		if long {
			m.skipped++
			continue
		}
		s := strings.TrimRight(string(line), "\r\n")
		if s == "." {
			m.done = true
			break
		}
		it, ok := ParseItem(s)
		if !ok {
			m.skipped++
			continue
		}
		if b := m.Base; b != nil && b.Scheme == "gophers" && strings.EqualFold(it.Host, b.Host) && it.Port == b.EffectivePort() {
			it.TLS = true
		}
		return it, nil
	}
	return Item{}, io.EOF
}

// readLine reads one line of at most max bytes; a longer one is consumed
// to its end and reported long.
func (m *MenuReader) readLine(max int) (line []byte, long bool, err error) {
	m.line = m.line[:0]
	for {
		frag, err := m.br.ReadSlice('\n')
		if !long {
			if len(m.line)+len(frag) > max+2 {
				long, m.line = true, m.line[:0]
			} else {
				m.line = append(m.line, frag...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return m.line, long, nil
		default:
			return m.line, long, err
		}
	}
}

// WriteMenu renders the gopher menu read from r for reading on a terminal:
// one line per item, "[TYPE] display <url>", information lines indented as
// plain text, error lines marked "[ERR]". Control characters in display
// strings are escaped (see fetch.Sanitize). base is the URL the menu came from (for
// gophers links; may be nil). When lines were skipped, a last line says how
// many. WriteMenu returns the first error reading r or writing w; the
// caller closes r.
func WriteMenu(w io.Writer, r io.Reader, base *url.URL) error {
	m := NewMenuReader(r)
	m.Base = base
	bw := bufio.NewWriter(w)
	var err error
	for {
		var it Item
		it, err = m.Next()
		if err != nil {
			break
		}
		display := strings.TrimRight(sanitize(it.Display), " ")
		switch it.Type {
		case 'i':
			fmt.Fprintf(bw, "      %s\n", display)
			continue
		case '3':
			fmt.Fprintf(bw, "[ERR] %s\n", display)
			continue
		}
		u := it.URL()
		if u == "" {
			u = "no URL"
		}
		fmt.Fprintf(bw, "%-5s %s <%s>\n", Label(it.Type), display, u)
	}
	if err == io.EOF {
		err = nil
	}
	if n := m.Skipped(); n > 0 {
		fmt.Fprintf(bw, "(%d malformed menu lines skipped)\n", n)
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// labels name the item types in WriteMenu's output.
var labels = map[byte]string{
	'0': "TXT", '1': "DIR", '2': "CSO", '3': "ERR", '4': "HQX", '5': "DOS", '6': "UUE",
	'7': "FIND", '8': "TEL", '9': "BIN", '+': "MIRR", 'T': "3270", 'g': "GIF", 'I': "IMG",
	'h': "HTML", 's': "SND", 'd': "DOC", 'p': "PNG", ';': "VID", 'c': "CAL", 'M': "MIME",
}

// Label returns the bracketed short name of an item type, such as "[DIR]"
// for '1', or "[x]" for a type it does not know.
func Label(t byte) string {
	if l, ok := labels[t]; ok {
		return "[" + l + "]"
	}
	return "[" + sanitize(string(t)) + "]"
}

// sanitize escapes the control characters of server text (see
// fetch.Sanitize), so that it cannot drive the terminal it is shown on.
func sanitize(s string) string { return fetch.Sanitize(s) }
