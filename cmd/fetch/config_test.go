package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfLine(t *testing.T) {
	byLong, byShort := optionIndex()
	for _, tt := range []struct {
		in          string
		opt, value  string
		url         string
		skip, fails bool
	}{
		{in: "# comment", skip: true},
		{in: "   ", skip: true},
		{in: "silent", opt: "silent"},
		{in: "--silent", opt: "silent"},
		{in: "-s", opt: "silent"},
		{in: `user-agent = "a b \"c\""`, opt: "user-agent", value: `a b "c"`},
		{in: "user-agent: x", opt: "user-agent", value: "x"},
		{in: "--retry 3", opt: "retry", value: "3"},
		{in: "-o out.html", opt: "output", value: "out.html"},
		{in: `url = "http://127.0.0.1/a b"`, opt: "url", value: "http://127.0.0.1/a b", url: "http://127.0.0.1/a b"},
		{in: "http://127.0.0.1/x", url: "http://127.0.0.1/x"},
		{in: "news:comp.lang.go", url: "news:comp.lang.go"},
		{in: "silent = yes", fails: true},
		{in: "--retry", fails: true},
		{in: "--no-such-thing 1", fails: true},
		{in: `user-agent = "open`, fails: true},
		{in: "user-agent = two words", fails: true},
	} {
		l, ok, err := parseConfLine(tt.in, byLong, byShort)
		switch {
		case tt.fails:
			if err == nil {
				t.Errorf("%q: no error", tt.in)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case ok == tt.skip:
			t.Errorf("%q: ok = %v", tt.in, ok)
		case tt.skip:
		case l.url != tt.url || tt.opt != "" && (l.opt == nil || l.opt.long != tt.opt || l.value != tt.value):
			t.Errorf("%q: %+v", tt.in, l)
		}
	}
}

// ~/.fetchrc and --config hold default options (the command line's win;
// -q skips ~/.fetchrc); a -K file in curl's syntax gives options, URLs and
// each URL's output file.
func TestConfigFiles(t *testing.T) {
	srv, got := headerServer(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.WriteFile(filepath.Join(home, ".fetchrc"), []byte("# defaults\nuser-agent = \"rc agent\"\n--header \"X-Rc: 1\"\n"), 0o644)
	ua := func() string { h := <-got; return h.Get("User-Agent") + "|" + h.Get("X-Rc") + "|" + h.Get("X-Conf") }
	if _, errs, code := fetchCmd(t, "", srv.URL+"/"); code != 0 || ua() != "rc agent|1|" {
		t.Errorf("~/.fetchrc: exit %d (%s)", code, errs)
	}
	if _, _, code := fetchCmd(t, "", "-A", "cli", srv.URL+"/"); code != 0 || ua() != "cli|1|" {
		t.Error("the command line does not win over ~/.fetchrc")
	}
	if _, _, code := fetchCmd(t, "", "-q", srv.URL+"/"); code != 0 || ua() != "fetch/"+version+"||" {
		t.Error("-q reads ~/.fetchrc")
	}
	conf := filepath.Join(home, "conf")
	os.WriteFile(conf, []byte("header = \"X-Conf: yes\"\n"), 0o644)
	if _, _, code := fetchCmd(t, "", "--config", conf, srv.URL+"/"); code != 0 || ua() != "rc agent|1|yes" {
		t.Error("--config not read")
	}
	// Options of ~/.fetchrc that a scheme ignores are no error there.
	f := filepath.Join(home, "f.txt")
	os.WriteFile(f, []byte("file\n"), 0o644)
	if out, errs, code := fetchCmd(t, "", "file://"+f); code != 0 || out != "file\n" {
		t.Errorf("a file: URL under ~/.fetchrc's -A: exit %d (%s)", code, errs)
	}
	os.WriteFile(conf, []byte("no-such-option\n--bogus 1\n"), 0o644)
	if _, errs, code := fetchCmd(t, "", "--config", conf, srv.URL+"/"); code != 2 || !strings.Contains(errs, conf+":2") {
		t.Errorf("--config with a bad line: exit %d (%s), want 2 naming the line", code, errs)
	}
	if _, _, code := fetchCmd(t, "", "--config", filepath.Join(home, "missing"), srv.URL+"/"); code != 2 {
		t.Errorf("--config missing: exit %d, want 2", code)
	}

	kfile := filepath.Join(home, "list")
	dir := t.TempDir()
	os.WriteFile(kfile, []byte(strings.Join([]string{
		"# a curl -K file",
		`header = "X-Conf: k"`,
		`url = "` + srv.URL + `/a"`,
		`output = "` + filepath.Join(dir, "a.out") + `"`,
		srv.URL + "/b",
		"-o " + filepath.Join(dir, "b.out"),
		srv.URL + "/c",
	}, "\n")+"\n"), 0o644)
	out, errs, code := fetchCmd(t, "", "-q", "-K", kfile)
	if code != 0 || out != "ok\n" {
		t.Errorf("-K curl file: exit %d, %q (%s)", code, out, errs)
	}
	for _, n := range []string{"a.out", "b.out"} {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != "ok\n" {
			t.Errorf("-K output %s: %q, %v", n, b, err)
		}
	}
	for range 3 {
		if h := <-got; h.Get("X-Conf") != "k" {
			t.Errorf("-K header: %q", h.Get("X-Conf"))
		}
	}
	os.WriteFile(kfile, []byte(srv.URL+"/a\nsilent\n"), 0o644)
	if _, errs, code := fetchCmd(t, "", "-q", "-K", kfile); code != 2 || !strings.Contains(errs, "come before the URLs") {
		t.Errorf("-K option after a URL: exit %d (%s), want 2", code, errs)
	}
}
