package telnet

import (
	"os"

	"golang.org/x/term"
)

// Telnet commands and the option this file speaks (RFC 854, 855, 1073).
const (
	sb   = 250
	se   = 240
	naws = 31
)

// DefaultWidth and DefaultHeight are the window size NAWS (RFC 1073)
// reports when no size is set and standard output is not a terminal.
const (
	DefaultWidth  = 80
	DefaultHeight = 24
)

// windowSize returns the size to report: w×h when both are set, else the
// terminal's on standard output or input, else DefaultWidth×DefaultHeight.
func windowSize(w, h int) (int, int) {
	if w > 0 && h > 0 {
		return w, h
	}
	for _, f := range []*os.File{os.Stdout, os.Stdin} {
		if tw, th, err := term.GetSize(int(f.Fd())); err == nil && tw > 0 && th > 0 {
			return tw, th
		}
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
