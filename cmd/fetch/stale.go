package main

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// cleanedDirs holds the folders whose stale temporary files this process
// has already looked for: once per folder per run is enough.
var cleanedDirs sync.Map

// removeStaleParts removes, once per run, the temporary files of killed
// runs from dir ("" is the current folder): names of the form
// ".NAME.<pid>.<8 hex digits>.part" whose process no longer exists. Files
// of live processes, of this process, and every other name are left alone.
// A process id reused since the kill keeps its file until that process too
// has gone. FILE.part, kept for -C -, is never one of them.
func removeStaleParts(dir string) {
	// A look first: LoadOrStore would copy dir to the heap on every call.
	if _, done := cleanedDirs.Load(dir); done {
		return
	}
	if _, done := cleanedDirs.LoadOrStore(dir, true); done {
		return
	}
	d := dir
	if d == "" {
		d = "."
	}
	f, err := os.Open(d)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	self := os.Getpid()
	for _, name := range names {
		pid, ok := staleOwner(name)
		if !ok || pid == self || processAlive(pid) {
			continue
		}
		os.Remove(dir + name)
	}
}

// staleOwner returns the process id in a temporary file's name
// ".NAME.<pid>.<8 hex digits>.part", and whether name has that form.
func staleOwner(name string) (int, bool) {
	rest, ok := strings.CutSuffix(name, ".part")
	if !ok || !strings.HasPrefix(rest, ".") {
		return 0, false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 || len(rest)-i-1 != 8 {
		return 0, false
	}
	if _, err := strconv.ParseUint(rest[i+1:], 16, 32); err != nil {
		return 0, false
	}
	rest = rest[:i]
	j := strings.LastIndexByte(rest, '.')
	if j <= 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(rest[j+1:])
	if err != nil || pid <= 0 || rest[j+1] == '+' {
		return 0, false
	}
	return pid, true
}
