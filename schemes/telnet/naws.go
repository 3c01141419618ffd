package telnet

import (
	"bytes"
)

// Telnet commands and the option this file speaks (RFC 854, 855, 1073).
const (
	sb   = 250
	se   = 240
	wont = 252
	naws = 31
)

// DefaultWidth and DefaultHeight are the window size NAWS (RFC 1073)
// reports when no size is set.
const (
	DefaultWidth  = 80
	DefaultHeight = 24
)

// windowSize returns the size to report: w×h when both are set, else
// DefaultWidth×DefaultHeight. The process's own terminal is the caller's
// to measure (the fetch command sets Handler.Width and Height from it).
func windowSize(w, h int) (int, int) {
	if w > 0 && h > 0 {
		return w, h
	}
	return DefaultWidth, DefaultHeight
}

// nawsCommand encodes IAC SB NAWS WIDTH[2] HEIGHT[2] IAC SE, each size a
// 16-bit big-endian number clamped to 65535, with every 255 byte of the
// sizes doubled as RFC 855 requires inside a subnegotiation.
func nawsCommand(w, h int) []byte {
	p := []byte{iac, sb, naws}
	for _, n := range []int{w, h} {
		n = max(0, min(n, 65535))
		for _, b := range []byte{byte(n >> 8), byte(n)} {
			p = append(p, b)
			if b == iac {
				p = append(p, iac)
			}
		}
	}
	return append(p, iac, se)
}

// The telnet library answers DO NAWS with WILL NAWS and then the
// subnegotiation in three writes: IAC SB NAWS, the four bytes FF FF FF FF
// (65535×65535, the 255 bytes not doubled, which RFC 855 forbids), IAC SE.
// A text write can never look like these: the library doubles IAC in text.
var (
	libNAWSStart = []byte{iac, sb, naws}
	libNAWSSizes = []byte{iac, iac, iac, iac}
	libNAWSEnd   = []byte{iac, se}
	libWillNAWS  = []byte{iac, will, naws}
)

// commandScan follows the server's byte stream far enough to see its
// option commands (IAC verb option), skipping doubled IACs and
// subnegotiations (IAC SB ... IAC SE) as the telnet library does.
type commandScan struct {
	state byte // one of the scan states below
	verb  byte // the verb of an IAC verb option being read
}

const (
	scanData  = iota // text
	scanIAC          // after IAC
	scanVerb         // after IAC and WILL, WONT, DO or DONT
	scanSB           // inside a subnegotiation
	scanSBIAC        // after IAC inside a subnegotiation
)

// feed scans p and calls f for each option command completed in it.
func (c *commandScan) feed(p []byte, f func(verb, opt byte)) {
	for _, b := range p {
		switch c.state {
		case scanData:
			if b == iac {
				c.state = scanIAC
			}
		case scanIAC:
			switch {
			case b >= will && b <= dont:
				c.verb, c.state = b, scanVerb
			case b == sb:
				c.state = scanSB
			default: // IAC IAC (a data byte) or a command without an option
				c.state = scanData
			}
		case scanVerb:
			f(c.verb, b)
			c.state = scanData
		case scanSB:
			if b == iac {
				c.state = scanSBIAC
			}
		case scanSBIAC:
			if b == se {
				c.state = scanData
			} else {
				c.state = scanSB
			}
		}
	}
}

// watchNAWS sees the server's commands in p, bytes just read: a DONT NAWS
// once the client has agreed to NAWS withdraws the agreement (RFC 854's
// option rules; the library ignores it), so the client answers WONT NAWS
// and sends no more window sizes until the server asks again with DO.
func (s *Session) watchNAWS(p []byte) {
	if bytes.IndexByte(p, iac) < 0 && s.scan.state == scanData {
		return
	}
	s.scan.feed(p, func(verb, opt byte) {
		if verb != dont || opt != naws {
			return
		}
		s.nawsMu.Lock()
		defer s.nawsMu.Unlock()
		if !s.nawsOn {
			return
		}
		s.nawsOn = false
		s.trace.Send("IAC WONT NAWS")
		s.armWrite()
		s.raw.Write([]byte{iac, wont, naws}) // a failure shows on the connection's next use
	})
}
