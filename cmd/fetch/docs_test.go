package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMECommandLine checks the README's command-line section against
// the repository: the binary it builds lands outside every package folder,
// in a folder git ignores, and every file it links is in the repository
// (a clone has nothing beside it).
func TestREADMECommandLine(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	m := regexp.MustCompile(`go build -o (\S+) \./cmd/fetch`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("the README does not say how to build the command (go build -o FILE ./cmd/fetch)")
	}
	dir := filepath.Join("../..", filepath.Dir(m[1]))
	if fi, err := os.Stat(filepath.Join("../..", m[1])); err == nil && fi.IsDir() {
		dir = filepath.Join("../..", m[1]) // go build -o DIR writes DIR/fetch
	}
	if gofiles, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(gofiles) > 0 || dir == "../.." {
		t.Errorf("go build -o %s writes into %s, a package folder or the repository's root", m[1], dir)
	}
	ignore, _ := os.ReadFile("../../.gitignore")
	if top := strings.SplitN(filepath.ToSlash(filepath.Clean(m[1])), "/", 2)[0]; !strings.Contains(string(ignore), "/"+top+"/") {
		t.Errorf(".gitignore does not ignore /%s/, where the README builds the command", top)
	}
	for _, l := range regexp.MustCompile(`\]\(([^)#]+)[^)]*\)|\x60((?:\.\./|docs/)[^\x60 ]+\.md)\x60`).FindAllStringSubmatch(text, -1) {
		target := l[1] + l[2]
		if strings.Contains(target, "://") {
			continue
		}
		if strings.HasPrefix(filepath.Clean(target), "..") {
			t.Errorf("the README links %s, outside the repository", target)
			continue
		}
		if _, err := os.Stat(filepath.Join("../..", target)); err != nil {
			t.Errorf("the README links %s: %v", target, err)
		}
	}
}

// TestContractNamesOptions checks that docs/CONTRACT.md names every option
// of the table, as --long or as `-x.
func TestContractNamesOptions(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CONTRACT.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range allOptions() {
		if !strings.Contains(string(doc), "--"+o.long) && (o.short == 0 || !strings.Contains(string(doc), "`-"+string(o.short))) {
			t.Errorf("docs/CONTRACT.md does not name --%s", o.long)
		}
	}
}
