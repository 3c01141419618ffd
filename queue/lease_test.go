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
