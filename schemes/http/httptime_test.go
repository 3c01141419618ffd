package http

import (
	"net/http"
	"testing"
)

var httpDates = []string{
	"Sun, 06 Nov 1994 08:49:37 GMT",
	"Mon, 23 Nov 2026 19:39:08 GMT",
	"SAT, 29 Feb 2020 23:59:59 GMT",
	"wed, 01 jan 2025 00:00:00 GMT",
	"Sun, 29 Feb 2021 08:49:37 GMT", // no such day
	"Sun, 31 Apr 2021 08:49:37 GMT",
	"Sun, 00 Nov 1994 08:49:37 GMT",
	"Sun, 06 Nov 1994 24:49:37 GMT",
	"Sun, 06 Nov 1994 08:60:37 GMT",
	"Sun, 06 Nov 1994 08:49:60 GMT",
	"Sun, 06 Nov 1994 08:49:37 UTC",
	"Sun, 06 Nov 1994 08:49:37 gmt",
	"Xyz, 06 Nov 1994 08:49:37 GMT",
	"Sun, 06 Nox 1994 08:49:37 GMT",
	"Sun, 06 Non 1994 08:49:37 GMT",
	"Sun, 6 Nov 1994 08:49:37 GMT",
	"Sun,  6 Nov 1994 08:49:37 GMT",
	"Sun, 06 Nov 1994 8:49:37 GMT",
	"Sun, 06 Nov 94 08:49:37 GMT",
	"Sun, 0a Nov 1994 08:49:37 GMT",
	"Sunday, 06-Nov-94 08:49:37 GMT",
	"Sun Nov  6 08:49:37 1994",
	"Sat, 01 Jan 0000 00:00:00 GMT",
	"Tue, 29 Feb 0000 12:00:00 GMT",
	"Mon, 01 Mar 0000 00:00:00 GMT",
	"Fri, 31 Dec 9999 23:59:59 GMT",
	"Thu, 01 Jan 1970 00:00:00 GMT",
	"Wed, 31 Dec 1969 23:59:59 GMT",
	"Thu, 29 Feb 1900 00:00:00 GMT",
	"Tue, 29 Feb 2000 00:00:00 GMT",
	"Mon, 31 Jan 2000 00:00:00 GMT",
	"Sun, 30 Jun 2024 00:00:00 GMT",
	"Sun, 31 Jun 2024 00:00:00 GMT",
	"Sun, 15 Aug 2024 00:00:00 GMT",
	"Sun, 15 Sep 2024 00:00:00 GMT",
	"Sun, 15 Oct 2024 00:00:00 GMT",
	"Sun, 15 Dec 2024 00:00:00 GMT",
	"Sun, 15 May 2024 00:00:00 GMT",
	"Sun, 15 Jul 2024 00:00:00 GMT",
	"Sun, 15 Mar 2024 00:00:00 GMT",
	"Sun, 15 Apr 2024 00:00:00 GMT",
	"Sun, 15 Jun 2024 00:00:00 GMT",
	"Fri, 15 Nov 2024 00:00:00 GMT",
	"Sun, 15 N\x8fv 2024 00:00:00 GMT",
	"S\xf5n, 15 Nov 2024 00:00:00 GMT",
	"Thu, 15 Feb 2024 00:00:00 GMT",
	"Tue, 15 Nov 2024 00:00:00 GMT",
	"",
}

// parseTime gives what http.ParseTime gives.
func TestParseTime(t *testing.T) {
	for _, s := range httpDates {
		checkParseTime(t, s)
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range httpDates {
		f.Add(s)
	}
	f.Fuzz(checkParseTime)
}

func checkParseTime(t *testing.T, s string) {
	got, err := parseTime(s)
	want, werr := http.ParseTime(s)
	if (err != nil) != (werr != nil) || !got.Equal(want) || got.Location().String() != want.Location().String() {
		t.Errorf("parseTime(%q) = %v, %v; http.ParseTime gives %v, %v", s, got, err, want, werr)
	}
}
