package url

import (
	"errors"
	"strings"
	"testing"
)

// A lenient Parser maps a host with non-ASCII bytes through MapHost; an
// ASCII host, and a strict parse, never reach it.
func TestMapHost(t *testing.T) {
	var calls []string
	mapHost := func(h string) (string, error) {
		calls = append(calls, h)
		if strings.Contains(h, "bad") {
			return "", errors.New("idna: invalid label")
		}
		return "xn--" + strings.ReplaceAll(h, "ü", "u"), nil
	}
	p := Parser{Lenient: true, MapHost: mapHost}
	for _, tt := range []struct {
		in, host string
		port     int
		bad      bool
	}{
		{in: "http://bücher.test/x", host: "xn--bucher.test"},
		{in: "ftp://user:pw@bücher.test:2121/f", host: "xn--bucher.test", port: 2121},
		{in: "http://plain.test/", host: "plain.test"},
		{in: "http://bücher-bad.test/", bad: true},
	} {
		calls = nil
		u, err := p.Parse(tt.in)
		if tt.bad {
			if err == nil || !strings.Contains(err.Error(), "idna: invalid label") {
				t.Errorf("Parse(%q) = %v, %v; want the mapping's error", tt.in, u, err)
			}
			continue
		}
		if err != nil || u.Host != tt.host || u.Port != tt.port {
			t.Errorf("Parse(%q) = %v, %v; want host %q port %d", tt.in, u, err, tt.host, tt.port)
			continue
		}
		if ascii := !strings.ContainsAny(tt.in, "ü"); ascii != (len(calls) == 0) {
			t.Errorf("Parse(%q) called MapHost with %q", tt.in, calls)
		}
	}
	calls = nil
	if _, err := (Parser{MapHost: mapHost}).Parse("http://bücher.test/"); err == nil || len(calls) != 0 {
		t.Errorf("a strict parse of an international name: %v, MapHost called with %q; want an error and no call", err, calls)
	}
	if _, err := (Parser{Lenient: true}).Parse("http://bücher.test/"); err == nil {
		t.Error("a lenient parse without MapHost took an international name")
	}
}
