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
	switch lower3(s[:3]) {
	case 'm'<<16 | 'o'<<8 | 'n', 't'<<16 | 'u'<<8 | 'e', 'w'<<16 | 'e'<<8 | 'd', 't'<<16 | 'h'<<8 | 'u',
		'f'<<16 | 'r'<<8 | 'i', 's'<<16 | 'a'<<8 | 't', 's'<<16 | 'u'<<8 | 'n':
	default:
		return t, false
	}
	m := month(lower3(s[8:11]))
	day, ok1 := digits(s[5:7])
	year, ok2 := digits(s[12:16])
	hour, ok3 := digits(s[17:19])
	min, ok4 := digits(s[20:22])
	sec, ok5 := digits(s[23:25])
	if m == 0 || !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || day < 1 || day > daysIn(m, year) || hour > 23 || min > 59 || sec > 59 {
		return t, false
	}
	secs := unixDays(year, m, day)*86400 + int64(hour*3600+min*60+sec)
	return time.Unix(secs, 0).UTC(), true
}

// lower3 packs three letters, in lower case, into an int.
func lower3(s string) int {
	return int(s[0]|0x20)<<16 | int(s[1]|0x20)<<8 | int(s[2]|0x20)
}

// month returns the number of a month's three letters packed by lower3,
// 0 when they name none.
func month(m int) int {
	switch m {
	case 'j'<<16 | 'a'<<8 | 'n':
		return 1
	case 'f'<<16 | 'e'<<8 | 'b':
		return 2
	case 'm'<<16 | 'a'<<8 | 'r':
		return 3
	case 'a'<<16 | 'p'<<8 | 'r':
		return 4
	case 'm'<<16 | 'a'<<8 | 'y':
		return 5
	case 'j'<<16 | 'u'<<8 | 'n':
		return 6
	case 'j'<<16 | 'u'<<8 | 'l':
		return 7
	case 'a'<<16 | 'u'<<8 | 'g':
		return 8
	case 's'<<16 | 'e'<<8 | 'p':
		return 9
	case 'o'<<16 | 'c'<<8 | 't':
		return 10
	case 'n'<<16 | 'o'<<8 | 'v':
		return 11
	case 'd'<<16 | 'e'<<8 | 'c':
		return 12
	}
	return 0
}

// daysIn returns the number of days of month m (1 to 12) of a year.
func daysIn(m, year int) int {
	switch m {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// unixDays returns the days from 1970-01-01 to a date of the proleptic
// Gregorian calendar, year 0 to 9999 (H. Hinnant's days_from_civil).
func unixDays(year, m, day int) int64 {
	y := year
	if m <= 2 {
		y--
	}
	era := (y+400)/400 - 1 // y >= -1
	yoe := y - era*400
	mp := (m + 9) % 12 // March is 0
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
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
