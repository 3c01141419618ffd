package queue

import (
	"strings"
	"testing"
)

// A lease key is short whatever the host, and two hosts have two keys.
func TestHostKeyBounded(t *testing.T) {
	long := strings.Repeat("a", 3000) + ".example:80"
	if k := hostKey(long); len(k) > 40 {
		t.Errorf("hostKey of a %d-byte host is %d bytes", len(long), len(k))
	}
	if hostKey("a.example:80") == hostKey("b.example:80") {
		t.Error("two hosts share a lease key")
	}
	if hostKey("A.Example:80") != hostKey("a.example:80") {
		t.Error("a host's case makes another key")
	}
}

func TestExclusiveCreate(t *testing.T) {
	for v, want := range map[string]bool{"2.9.10": false, "2.10.24": false, "2.11.0": true, "2.15.2": true, "v3.0.0": true, "": false} {
		if got := exclusiveCreate(v); got != want {
			t.Errorf("exclusiveCreate(%q) = %v", v, got)
		}
	}
}
