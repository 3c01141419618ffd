package main

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestManPage: docs/fetch.1 is what fetch man prints (regenerate it with
// go run ./cmd/fetch man > docs/fetch.1), it names every option, and
// groff reads it without a warning.
func TestManPage(t *testing.T) {
	var b bytes.Buffer
	writeMan(&b)
	saved, err := os.ReadFile("../../docs/fetch.1")
	if err != nil || !bytes.Equal(saved, b.Bytes()) {
		t.Errorf("docs/fetch.1 is not what fetch man prints (%v): run go run ./cmd/fetch man > docs/fetch.1", err)
	}
	for _, o := range allOptions() {
		if !strings.Contains(b.String(), `\fB\-\-`+roffDashes(o.long)+`\fR`) {
			t.Errorf("the man page lacks --%s", o.long)
		}
	}
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("no groff to check the page with")
	}
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = bytes.NewReader(b.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff: %v: %s", err, out)
	}
}

// Every option is in exactly one group of --help and the man page.
func TestOptionGroups(t *testing.T) {
	var grouped []string
	for _, g := range optionGroups() {
		for _, o := range g.opts {
			grouped = append(grouped, o.long)
		}
	}
	var all []string
	for _, o := range allOptions() {
		all = append(all, o.long)
	}
	slices.Sort(grouped)
	slices.Sort(all)
	if !slices.Equal(grouped, all) {
		t.Errorf("the groups hold %q,\nthe table %q", grouped, all)
	}
	var help bytes.Buffer
	writeHelp(&help)
	for _, o := range allOptions() {
		if !strings.Contains(help.String(), "--"+o.long) {
			t.Errorf("--help lacks --%s", o.long)
		}
	}
}

// The completion scripts name every option; bash reads its script.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, errs, code := fetchCmd(t, "", "completion", sh)
		if code != 0 {
			t.Fatalf("completion %s: exit %d (%s)", sh, code, errs)
		}
		for _, o := range allOptions() {
			if !strings.Contains(out, "--"+o.long) && !strings.Contains(out, "-l "+o.long+" ") {
				t.Errorf("completion %s lacks --%s", sh, o.long)
			}
		}
		if _, err := exec.LookPath(sh); err == nil {
			cmd := exec.Command(sh, "-n")
			if sh == "fish" {
				cmd = exec.Command(sh, "--no-execute")
			}
			cmd.Stdin = strings.NewReader(out)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v: %s", sh, err, msg)
			}
		}
	}
	if _, _, code := fetchCmd(t, "", "completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
}
