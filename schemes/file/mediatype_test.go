package file

import (
	"mime"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestCommonTypesAgree checks that the table answers as package mime does
// on this system, for each extension the system knows.
func TestCommonTypesAgree(t *testing.T) {
	for ext, want := range commonTypes {
		if got := mime.TypeByExtension(ext); got != "" && got != want {
			t.Errorf("commonTypes[%q] = %q, but mime.TypeByExtension says %q", ext, want, got)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"/a/notes.txt", "text/plain; charset=utf-8"},
		{"/a/README", ""},
		{"/a.d/README", ""},
		{"/a/x.JSON", mime.TypeByExtension(".JSON")},
		{"/a/x.iso", mime.TypeByExtension(".iso")},
	} {
		if got := guessType(tc.name); got != tc.want {
			t.Errorf("guessType(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestGuessTypeCheap checks, in a process of its own (package mime loads
// its database once per process), that guessing a common type does not
// load the system's MIME database, which takes about 1 MiB.
func TestGuessTypeCheap(t *testing.T) {
	const env = "FETCH_FILE_GUESS_CHILD"
	if os.Getenv(env) == "1" {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, n := range []string{"a.txt", "b.html", "c.json", "README"} {
			guessType(n)
		}
		runtime.ReadMemStats(&after)
		os.Stdout.WriteString("allocated " + strconv.FormatUint(after.TotalAlloc-before.TotalAlloc, 10) + "\n")
		return
	}
	if testing.Short() {
		t.Skip("runs a process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuessTypeCheap$")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd, err, out)
	}
	n, found := uint64(0), false
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "allocated "); ok {
			n, err = strconv.ParseUint(v, 10, 64)
			found = err == nil
			break
		}
	}
	if !found {
		t.Fatalf("the child said nothing of what it allocated:\n%s", out)
	}
	// The database, where there is one, takes hundreds of KB (1 MiB on
	// Debian); the table nothing.
	if n > 16<<10 {
		t.Errorf("guessing common types allocated %d bytes: the system's MIME database was loaded", n)
	}
}
