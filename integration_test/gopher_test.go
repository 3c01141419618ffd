//go:build integration

package integration_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gopherBase returns "gopher://127.0.0.1:PORT" of the gophernicus started
// by servers/gopher.sh, and its port.
func gopherBase(t *testing.T) (string, string) {
	addr := env(t, "FETCH_IT_GOPHER_ADDR")
	_, port, _ := strings.Cut(addr, ":")
	return "gopher://" + addr, port
}

// gopherFile returns the bytes of a file the server serves.
func gopherFile(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join(env(t, "FETCH_IT_GOPHER_ROOT"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gopherMenu is the top menu as gophernicus sends it, without its final
// "." line (RFC 1436's terminator, which fetch removes).
func gopherMenu(port string) string {
	return "iWelcome to the fetch integration server\t\tnull.host\t1\r\n" +
		"0A text item\t/text.txt\t127.0.0.1\t" + port + "\r\n" +
		"9A binary item\t/bin.dat\t127.0.0.1\t" + port + "\r\n" +
		"1A directory\t/sub/\t127.0.0.1\t" + port + "\r\n" +
		"7Search\t/cgi-bin/search\t127.0.0.1\t" + port + "\r\n"
}

func TestGopherMenu(t *testing.T) {
	base, port := gopherBase(t)
	for _, u := range []string{base, base + "/", base + "/1", base + "/1%09%09+"} {
		r := runFetch(t, "", nil, u)
		wantCode(t, r, 0, "menu "+u)
		if string(r.Stdout) != gopherMenu(port) {
			t.Errorf("fetch %s = %q, want %q", u, r.Stdout, gopherMenu(port))
		}
	}
	r := runFetch(t, "", nil, "-I", base+"/")
	wantCode(t, r, 0, "-I menu")
	if !bytes.Contains(r.Stdout, []byte("kind: menu")) {
		t.Errorf("-I of a menu:\n%s", r.Stdout)
	}
}

// TestGopherText fetches a text item whose lines begin with "." and which
// gophernicus ends by closing (no "." line): the bytes arrive as sent,
// which is the file with its line ends made CRLF by the server.
func TestGopherText(t *testing.T) {
	base, _ := gopherBase(t)
	want := bytes.ReplaceAll(gopherFile(t, "text.txt"), []byte("\n"), []byte("\r\n"))
	r := runFetch(t, "", nil, base+"/0/text.txt")
	wantCode(t, r, 0, "text item")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("text = %q, want %q", r.Stdout, want)
	}
	if curl, err := exec.LookPath("curl"); err == nil {
		out, err := exec.Command(curl, "-s", base+"/0/text.txt").Output()
		if err == nil && !bytes.Equal(out, r.Stdout) {
			t.Errorf("fetch and curl differ: %q vs %q", r.Stdout, out)
		}
	}
	dir := t.TempDir()
	r = runFetch(t, dir, nil, "-o", "t.txt", base+"/0/text.txt")
	wantCode(t, r, 0, "text item -o")
	if got, _ := os.ReadFile(filepath.Join(dir, "t.txt")); !bytes.Equal(got, want) {
		t.Errorf("-o file = %q, want %q", got, want)
	}
}

func TestGopherBinary(t *testing.T) {
	base, _ := gopherBase(t)
	want := gopherFile(t, "bin.dat")
	r := runFetch(t, "", nil, base+"/9/bin.dat")
	wantCode(t, r, 0, "binary item")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("binary: got %d bytes, want %d (equal: false)", len(r.Stdout), len(want))
	}
}

func TestGopherSearch(t *testing.T) {
	base, port := gopherBase(t)
	r := runFetch(t, "", nil, base+"/7/cgi-bin/search%09hello%20gopher")
	wantCode(t, r, 0, "search")
	want := "iYou searched for: hello gopher\t\tnull.host\t1\r\n0Result\t/text.txt\t127.0.0.1\t" + port + "\r\n"
	if string(r.Stdout) != want {
		t.Errorf("search = %q, want %q", r.Stdout, want)
	}
	// No words and no terminal: a usage error, nothing sent.
	r = runFetch(t, "", []byte{}, base+"/7/cgi-bin/search")
	if r.Code == 0 {
		t.Errorf("search without words and without a terminal: exit 0, want a failure")
	}
}

// TestGopherMenuRender renders the real server's menu with --menu and
// follows every URL it shows.
func TestGopherMenuRender(t *testing.T) {
	base, port := gopherBase(t)
	r := runFetch(t, "", nil, "--menu", base+"/")
	wantCode(t, r, 0, "--menu")
	if string(r.Stdout) == gopherMenu(port) {
		t.Skip("the CLI's --menu does not render gopher menus yet (cmd/fetch should call gopher.WriteMenu)")
	}
	out := string(r.Stdout)
	for _, want := range []string{
		"      Welcome to the fetch integration server\n",
		"[TXT] A text item <" + base + "/0/text.txt>\n",
		"[BIN] A binary item <" + base + "/9/bin.dat>\n",
		"[DIR] A directory <" + base + "/1/sub/>\n",
		"[FIND] Search <" + base + "/7/cgi-bin/search>\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--menu output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		i, j := strings.LastIndexByte(line, '<'), strings.LastIndexByte(line, '>')
		if i < 0 || j < i || strings.Contains(line, "[FIND]") {
			continue
		}
		u := line[i+1 : j]
		if r := runFetch(t, "", nil, u); r.Code != 0 || len(r.Stdout) == 0 {
			t.Errorf("fetch %s from the menu: exit %d, %d bytes\n%s", u, r.Code, len(r.Stdout), r.Stderr)
		}
	}
}

func TestGopherDryRunAndSafety(t *testing.T) {
	base, _ := gopherBase(t)
	r := runFetch(t, "", nil, "--dry-run", base+"/7/cgi-bin/search%09a%20b")
	wantCode(t, r, 0, "--dry-run")
	if string(r.Stdout) != "/cgi-bin/search\ta b\n" {
		t.Errorf("--dry-run = %q", r.Stdout)
	}
	r = runFetch(t, "", nil, base+"/0/text.txt%0D%0Aevil")
	wantCode(t, r, 11, "CRLF in a selector")
	r = runFetch(t, "", nil, "-v", base+"/0/text.txt")
	if !bytes.Contains(r.Stderr, []byte("> /text.txt")) {
		t.Errorf("-v does not show the selector line:\n%s", r.Stderr)
	}
}

// gopherPlus returns "gopher://127.0.0.1:PORT" of the pygopherd started by
// servers/gopher.sh (Gopher+, and gophers on the same port).
func gopherPlus(t *testing.T) string { return "gopher://" + env(t, "FETCH_IT_GOPHERP_ADDR") }

func TestGopherPlusViews(t *testing.T) {
	base := gopherPlus(t)
	want, err := os.ReadFile(filepath.Join(env(t, "FETCH_IT_GOPHERP_ROOT"), "plus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The default view: a "+N" reply, N bytes exactly.
	r := runFetch(t, "", nil, base+"/0/plus.txt%09%09+")
	wantCode(t, r, 0, "Gopher+ default view")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("default view = %q, want %q", r.Stdout, want)
	}
	r = runFetch(t, "", nil, "-I", base+"/0/plus.txt%09%09+")
	wantCode(t, r, 0, "-I Gopher+")
	if !bytes.Contains(r.Stdout, []byte(fmt.Sprintf("size: %d", len(want)))) {
		t.Errorf("-I of a Gopher+ item shows no size %d:\n%s", len(want), r.Stdout)
	}
	// The same item in plain gopher: a text item the server ends by closing.
	r = runFetch(t, "", nil, base+"/0/plus.txt")
	wantCode(t, r, 0, "plain gopher from a Gopher+ server")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("plain item = %q, want %q", r.Stdout, want)
	}
	// Attributes of one item, and of every item of a menu.
	r = runFetch(t, "", nil, base+"/0/plus.txt%09%09!")
	wantCode(t, r, 0, "attributes")
	if !bytes.Contains(r.Stdout, []byte("+ABSTRACT:\r\n An abstract of plus.txt\r\n")) || !bytes.HasPrefix(r.Stdout, []byte("+INFO: 0plus")) {
		t.Errorf("attributes:\n%s", r.Stdout)
	}
	r = runFetch(t, "", nil, base+"/1/%09%09$")
	wantCode(t, r, 0, "menu attributes")
	if bytes.Count(r.Stdout, []byte("+INFO: ")) < 3 || !bytes.Contains(r.Stdout, []byte("+ASK:\r\n Ask: Your name?\tAnon\r\n")) {
		t.Errorf("menu attributes hold %d +INFO blocks, want one per item (3) and more, and the form's +ASK:\n%s", bytes.Count(r.Stdout, []byte("+INFO: ")), r.Stdout)
	}
	// A menu of Gopher+ items.
	r = runFetch(t, "", nil, base+"/1/%09%09+")
	wantCode(t, r, 0, "Gopher+ menu")
	if !bytes.Contains(r.Stdout, []byte("0plus\t/plus.txt\t127.0.0.1\t")) {
		t.Errorf("Gopher+ menu:\n%s", r.Stdout)
	}
}

func TestGopherNotFound(t *testing.T) {
	base := gopherPlus(t)
	for _, u := range []string{base + "/0/nothere", base + "/9/nothere", base + "/0/nothere%09%09+", base + "/0/nothere%09%09!"} {
		r := runFetch(t, "", nil, u)
		wantCode(t, r, 7, "missing item "+u)
		if !bytes.Contains(r.Stderr, []byte("does not exist")) {
			t.Errorf("%s: stderr lacks the server's text:\n%s", u, r.Stderr)
		}
	}
}

func TestGophers(t *testing.T) {
	addr := env(t, "FETCH_IT_GOPHERP_ADDR")
	ca := env(t, "FETCH_IT_GOPHERP_CA")
	want, err := os.ReadFile(filepath.Join(env(t, "FETCH_IT_GOPHERP_ROOT"), "data.bin"))
	if err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, "", nil, "--cacert", ca, "gophers://"+addr+"/9/data.bin")
	wantCode(t, r, 0, "gophers binary")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("gophers binary: %d bytes, want %d, equal false", len(r.Stdout), len(want))
	}
	r = runFetch(t, "", nil, "gophers://"+addr+"/9/data.bin")
	wantCode(t, r, 5, "gophers with an unknown certificate")
}

func TestGopherForm(t *testing.T) {
	base := gopherPlus(t)
	r := runFetch(t, "", nil, "-v", "--gopher-answer", "Ann", "--gopher-answer", "blue", base+"/0/form.txt%09%09?")
	wantCode(t, r, 0, "+ASK form")
	for _, want := range []string{"> /form.txt<TAB>!\n", "> /form.txt<TAB>+<TAB>1\n", "> +-1\n", "> Ann\n", "> blue\n", "> .\n"} {
		if !bytes.Contains(r.Stderr, []byte(want)) {
			t.Errorf("trace lacks %q:\n%s", want, r.Stderr)
		}
	}
	// Without answers and without a terminal to ask: a usage error.
	r = runFetch(t, "", []byte{}, base+"/0/form.txt%09%09?")
	if r.Code == 0 {
		t.Errorf("form without answers: exit 0")
	}
}

// TestGopherLooksLikeError fetches files whose first line reads like an
// error item (type 3, three TABs): they are data, delivered whole, while a
// real missing item is still not found.
func TestGopherLooksLikeError(t *testing.T) {
	base, _ := gopherBase(t)
	for _, name := range []string{"rfc.tsv", "bin3.dat"} {
		want := gopherFile(t, "looks3/"+name)
		if name == "rfc.tsv" {
			// Gophernicus sends a file it takes for text with CRLF line ends.
			want = bytes.ReplaceAll(want, []byte("\n"), []byte("\r\n"))
		}
		r := runFetch(t, "", nil, base+"/9/looks3/"+name)
		wantCode(t, r, 0, "type 9 "+name)
		if !bytes.Equal(r.Stdout, want) {
			t.Errorf("type 9 %s: %q, want %q", name, r.Stdout, want)
		}
		r = runFetch(t, "", nil, base+"/0/looks3/"+name)
		wantCode(t, r, 0, "type 0 "+name)
		if !bytes.HasPrefix(r.Stdout, []byte("3\t")) || len(r.Stdout) < len(want) {
			t.Errorf("type 0 %s: %q, want the file", name, r.Stdout)
		}
	}
	// pygopherd's missing item is a real error item (gophernicus answers a
	// missing file with a bare text line that no client can tell from data).
	plus := gopherPlus(t)
	for _, u := range []string{plus + "/0/looks3/missing.tsv", plus + "/9/looks3/missing.dat"} {
		r := runFetch(t, "", nil, u)
		wantCode(t, r, 7, "missing item "+u)
		if !bytes.Contains(r.Stderr, []byte("does not exist")) {
			t.Errorf("%s: stderr lacks the server's text:\n%s", u, r.Stderr)
		}
	}
}
