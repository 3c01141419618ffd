package fetch

import "testing"

// TestSanitizeJSON: DEL and the C1 controls become \u escapes;
// other text, non-ASCII included, is left as it is.
func TestSanitizeJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{"{\"a\":\"\u009b\"}", `{"a":"\u009b"}`},
		{"{\"a\":\"\u0080x\u009f\"}", `{"a":"\u0080x\u009f"}`},
		{"{\"a\":\"\x7f\"}", `{"a":"\u007f"}`},
		{"{\"a\":\"\u00a0é\u0100\"}", "{\"a\":\"\u00a0é\u0100\"}"}, // not controls
	} {
		if got := string(SanitizeJSON([]byte(tc.in))); got != tc.want {
			t.Errorf("SanitizeJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
