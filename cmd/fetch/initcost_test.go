package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Every run of the command pays for the package initialisation of all it
// links, the crawler and every scheme included, before it looks at its
// arguments: a many-invocation script pays it on every call (issue 29's
// process start). Work that only some runs need, a regular expression
// above all (some 100 allocations each to compile), is done on first use
// (sync.OnceValue), not in a package-level variable's initialiser.
const (
	// maxOwnInitAllocs and maxOwnInitBytes bound the initialisation of
	// each package of this repository the command links (the heaviest
	// today: 16 allocations, 4.5 KB; fetch/crawl's compiled regexp took
	// 98 and 12 KB).
	maxOwnInitAllocs = 32
	maxOwnInitBytes  = 16 << 10
	// maxInitBytes bounds the initialisation of all the packages linked,
	// this repository's and the modules' (about 235 KB today, of which
	// golang.org/x/net/html's entity map is 113 KB): a dependency with
	// an init as heavy as that map more fails the test.
	maxInitBytes = 320 << 10
)

// TestInitCost runs this test binary, which links what the command links,
// with GODEBUG=inittrace=1 and checks the bounds above. The package under
// test is left out: in a test binary its initialisation includes the
// tests' own tables.
func TestInitCost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd, err, stderr.Bytes())
	}
	const self = "github.com/rfc1738/fetch/cmd/fetch"
	total, n := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		var pkg string
		var at, clock float64
		var size, allocs int
		if _, err := fmt.Sscanf(sc.Text(), "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &pkg, &at, &clock, &size, &allocs); err != nil {
			continue
		}
		n++
		if pkg == self || pkg == "main" {
			continue
		}
		total += size
		if strings.HasPrefix(pkg, "github.com/rfc1738/fetch/") && (allocs > maxOwnInitAllocs || size > maxOwnInitBytes) {
			t.Errorf("%s allocates %d bytes in %d allocations at init, above %d bytes or %d allocations: do that work on first use", pkg, size, allocs, maxOwnInitBytes, maxOwnInitAllocs)
		}
	}
	if n < 50 {
		t.Fatalf("read %d init lines of GODEBUG=inittrace=1, want the 100 or so packages linked:\n%s", n, stderr.Bytes())
	}
	if total > maxInitBytes {
		t.Errorf("the packages linked allocate %d bytes at init, above %d", total, maxInitBytes)
	}
	t.Logf("%d packages initialised, %d bytes allocated", n, total)
}
