package http

import (
	"net/http"
	"time"
)

// parseTime parses an HTTP date as http.ParseTime does, the preferred
// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", RFC 9110 §5.6.7) without
// going through time.Parse's layout interpreter.
func parseTime(s string) (time.Time, error) {
	if t, ok := parseIMFFixdate(s); ok {
		return t, nil
	}
	return http.ParseTime(s)
}

// parseIMFFixdate parses s when it is an IMF-fixdate that http.ParseTime
// accepts; ok is false otherwise.
func parseIMFFixdate(s string) (t time.Time, ok bool) {
	// Sun, 06 Nov 1994 08:49:37 GMT
	if len(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
		s[19] != ':' || s[22] != ':' || s[25:] != " GMT" {
		return t, false
	}
	if name(s[:3], "sunmontuewedthufrisat") < 0 {
		return t, false
	}
	m := name(s[8:11], "janfebmaraprmayjunjulaugsepoctnovdec")
	day, ok1 := digits(s[5:7])
	year, ok2 := digits(s[12:16])
	hour, ok3 := digits(s[17:19])
	min, ok4 := digits(s[20:22])
	sec, ok5 := digits(s[23:25])
	if m < 0 || !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || day < 1 || hour > 23 || min > 59 || sec > 59 {
		return t, false
	}
	t = time.Date(year, time.Month(m+1), day, hour, min, sec, 0, time.UTC)
	if t.Day() != day { // beyond the month's last day
		return time.Time{}, false
	}
	return t, true
}

// name returns the index of the three letters s, in any case, among the
// three-letter names run together in names; -1 when not there.
func name(s, names string) int {
	var b [3]byte
	for i := range b {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	for i := 0; i+3 <= len(names); i += 3 {
		if names[i:i+3] == string(b[:]) {
			return i / 3
		}
	}
	return -1
}

// digits returns the value of s, all decimal digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
