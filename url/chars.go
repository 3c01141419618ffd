package url

import "strings"

// Character classes of RFC 1738 §2.2 and §5, as a table indexed by byte.
const (
	cAlpha = 1 << iota
	cDigit
	cSafe        // $ - _ . +
	cExtra       // ! * ' ( ) ,
	cReserved    // ; / ? : @ & =
	cNational    // { } | \ ^ ~ [ ] `
	cPunctuation // < > # % "
	cHex
	cScheme     // alpha | digit | "+" | "-" | "."
	cHostLoose  // alpha | digit | "-" | "." | "_": what a lenient parser takes in a host name
	cSpace      // ASCII white space, trimmed by a lenient parser
	cLoginDelim // / @ ? #: the bytes the login scan stops at
	cXchar      // unreserved | reserved: what may stand unencoded
)

const cUnreserved = cAlpha | cDigit | cSafe | cExtra

var class [256]uint16

func init() {
	for c := 'a'; c <= 'z'; c++ {
		class[c] |= cAlpha
	}
	for c := 'A'; c <= 'Z'; c++ {
		class[c] |= cAlpha
	}
	for c := '0'; c <= '9'; c++ {
		class[c] |= cDigit | cHex
	}
	for _, c := range "abcdefABCDEF" {
		class[c] |= cHex
	}
	for _, c := range "$-_.+" {
		class[c] |= cSafe
	}
	for _, c := range "!*'()," {
		class[c] |= cExtra
	}
	for _, c := range ";/?:@&=" {
		class[c] |= cReserved
	}
	for _, c := range "{}|\\^~[]`" {
		class[c] |= cNational
	}
	for _, c := range "<>#%\"" {
		class[c] |= cPunctuation
	}
	for c := 0; c < 256; c++ {
		if class[c]&(cAlpha|cDigit) != 0 {
			class[c] |= cScheme | cHostLoose
		}
	}
	for _, c := range "+-." {
		class[c] |= cScheme
	}
	for _, c := range "-._" {
		class[c] |= cHostLoose
	}
	for c := 0; c < 256; c++ {
		if class[c]&(cUnreserved|cReserved) != 0 {
			class[c] |= cXchar
		}
	}
	for _, c := range "/@?#" {
		class[c] |= cLoginDelim
	}
	for _, c := range " \t\r\n\f\v" {
		class[c] |= cSpace
	}
}

func isAlpha(c byte) bool      { return class[c]&cAlpha != 0 }
func isDigit(c byte) bool      { return class[c]&cDigit != 0 }
func isHex(c byte) bool        { return class[c]&cHex != 0 }
func isUnreserved(c byte) bool { return class[c]&cUnreserved != 0 }
func isSpace(c byte) bool      { return class[c]&cSpace != 0 }
func isControl(c byte) bool    { return c < 0x20 || c == 0x7f }

// isXchar reports whether c may appear unencoded anywhere in a URL:
// xchar = unreserved | reserved | escape (the '%' of an escape is checked apart).
func isXchar(c byte) bool { return class[c]&(cUnreserved|cReserved) != 0 }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

const upperhex = "0123456789ABCDEF"

// writeEscape writes c as an escape, %XX with upper-case hex digits.
func writeEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(upperhex[c>>4])
	b.WriteByte(upperhex[c&15])
}
