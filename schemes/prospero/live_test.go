package prospero

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestLive fetches from a real Prospero server when PROSPERO_ADDR
// (host:port) is set, and skips otherwise. PROSPERO_FILE names a file's
// hsoname (default /srv/prospero/README) and PROSPERO_DIR a directory's
// (default /srv/prospero), as served by the recordings' dirsrv setup; with
// PROSPERO_WANT set, the file's bytes must equal it.
func TestLive(t *testing.T) {
	addr := os.Getenv("PROSPERO_ADDR")
	if addr == "" {
		t.Skip("PROSPERO_ADDR is not set: no live Prospero server to test against")
	}
	file := cmp(os.Getenv("PROSPERO_FILE"), "/srv/prospero/README")
	dir := cmp(os.Getenv("PROSPERO_DIR"), "/srv/prospero")
	h := &Handler{}
	_, body, err := get(t, h, "prospero://"+addr+"/"+file, 30*time.Second)
	if err != nil {
		t.Fatalf("file %s: %v", file, err)
	}
	if want := os.Getenv("PROSPERO_WANT"); want != "" && string(body) != want {
		t.Errorf("file %s: %q, want %q", file, body, want)
	}
	_, list, err := get(t, h, "prospero://"+addr+"/"+dir, 30*time.Second)
	if err != nil {
		t.Fatalf("directory %s: %v", dir, err)
	}
	if !strings.HasPrefix(string(list), "prospero://") {
		t.Errorf("directory %s: listing %q", dir, list)
	}
	t.Logf("%s: %d bytes; %s: %d links", file, len(body), dir, strings.Count(string(list), "\n"))
}

func cmp(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
