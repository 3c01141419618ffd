package fetch

import "testing"

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"550 No such file", "550 No such file"},
		{"", ""},
		{"530 \x1b]0;PWNED\x07 \x1b[2J", `530 \x1b]0;PWNED\x07 \x1b[2J`},
		{"a\r\nb\tc\x00", `a\x0d\x0ab\x09c\x00`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"Grüße, 日本", "Grüße, 日本"},
		{`back\slash`, `back\slash`},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
