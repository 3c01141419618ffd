package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fetchCmd runs the command in-process.
func fetchCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// The RFC's own examples of all ten schemes, with the CONTRACT §3 keys.
func TestParseJSON(t *testing.T) {
	tests := []struct {
		url  string
		want string
	}{
		{"ftp://ftp.is.co.za/rfc/rfc1808.txt",
			`{"scheme":"ftp","user":null,"password":null,"host":"ftp.is.co.za","port":21,"path":"rfc/rfc1808.txt","ftp":{"cwd":["rfc"],"name":"rfc1808.txt","typecode":""}}`},
		{"ftp://@host.com/",
			`{"scheme":"ftp","user":"","password":null,"host":"host.com","port":21,"path":"","ftp":{"cwd":[],"name":"","typecode":""}}`},
		{"ftp://myname@host.dom/%2Fetc/motd",
			`{"scheme":"ftp","user":"myname","password":null,"host":"host.dom","port":21,"path":"%2Fetc/motd","ftp":{"cwd":["/etc"],"name":"motd","typecode":""}}`},
		{"ftp://myname:@host.dom//etc/motd;type=a",
			`{"scheme":"ftp","user":"myname","password":"","host":"host.dom","port":21,"path":"/etc/motd;type=a","ftp":{"cwd":["","etc"],"name":"motd","typecode":"a"}}`},
		{"http://www.math.uio.no/faq/compression-faq/part1.html",
			`{"scheme":"http","user":null,"password":null,"host":"www.math.uio.no","port":80,"path":"faq/compression-faq/part1.html","http":{"path":"/faq/compression-faq/part1.html","search":null}}`},
		{"http://h:8080/cgi?a=b",
			`{"scheme":"http","user":null,"password":null,"host":"h","port":8080,"path":"cgi?a=b","http":{"path":"/cgi","search":"a=b"}}`},
		{"gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles",
			`{"scheme":"gopher","user":null,"password":null,"host":"spinaltap.micro.umn.edu","port":70,"path":"00/Weather/California/Los%20Angeles","gopher":{"type":"0","selector":"0/Weather/California/Los Angeles","search":null,"plus":null}}`},
		{"gopher://h/7srch%09a%20b%09+",
			`{"scheme":"gopher","user":null,"password":null,"host":"h","port":70,"path":"7srch%09a%20b%09+","gopher":{"type":"7","selector":"srch","search":"a b","plus":"+"}}`},
		{"mailto:mduerst@ifi.unizh.ch",
			`{"scheme":"mailto","user":null,"password":null,"host":"","port":null,"path":"mduerst@ifi.unizh.ch","mailto":{"address":"mduerst@ifi.unizh.ch"}}`},
		{"news:comp.infosystems.www.servers.unix",
			`{"scheme":"news","user":null,"password":null,"host":"","port":null,"path":"comp.infosystems.www.servers.unix","news":{"group":"comp.infosystems.www.servers.unix"}}`},
		{"news:*",
			`{"scheme":"news","user":null,"password":null,"host":"","port":null,"path":"*","news":{"group":"*"}}`},
		{"news:1234@example.com",
			`{"scheme":"news","user":null,"password":null,"host":"","port":null,"path":"1234@example.com","news":{"article":"1234@example.com"}}`},
		{"nntp://news.example.com/comp.lang.go/42",
			`{"scheme":"nntp","user":null,"password":null,"host":"news.example.com","port":119,"path":"comp.lang.go/42","nntp":{"group":"comp.lang.go","article":42}}`},
		{"telnet://melvyl.ucop.edu/",
			`{"scheme":"telnet","user":null,"password":null,"host":"melvyl.ucop.edu","port":23,"path":"","telnet":{}}`},
		{"telnet://guest:pw@h:2323",
			`{"scheme":"telnet","user":"guest","password":"pw","host":"h","port":2323,"path":"","telnet":{}}`},
		{"wais://quake.think.com/directory-of-servers?weather",
			`{"scheme":"wais","user":null,"password":null,"host":"quake.think.com","port":210,"path":"directory-of-servers?weather","wais":{"database":"directory-of-servers","search":"weather","wtype":null,"wpath":null}}`},
		{"wais://h/db/TEXT/0%2012",
			`{"scheme":"wais","user":null,"password":null,"host":"h","port":210,"path":"db/TEXT/0%2012","wais":{"database":"db","search":null,"wtype":"TEXT","wpath":"0 12"}}`},
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt",
			`{"scheme":"file","user":null,"password":null,"host":"vms.host.edu","port":null,"path":"disk$user/my/notes/note12345.txt","file":{"path":"/disk$user/my/notes/note12345.txt"}}`},
		{"prospero://host.dom//pros/name;type=dir",
			`{"scheme":"prospero","user":null,"password":null,"host":"host.dom","port":1525,"path":"/pros/name;type=dir","prospero":{"hsoname":"/pros/name","fields":{"type":"dir"}}}`},
		{"x-unknown://h:9/p",
			`{"scheme":"x-unknown","user":null,"password":null,"host":"h","port":9,"path":"p"}`},
	}
	for _, tt := range tests {
		out, errs, code := fetchCmd(t, "", "parse", "--json", tt.url)
		if code != 0 || strings.TrimSpace(out) != tt.want {
			t.Errorf("fetch parse --json %s\n got %s (exit %d, %s)\nwant %s", tt.url, strings.TrimSpace(out), code, errs, tt.want)
		}
	}
}

func TestParseJSONError(t *testing.T) {
	out, _, code := fetchCmd(t, "", "parse", "--json", "--strict", "http://h/a b", "ftp://h/ok")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 3 || len(lines) != 2 {
		t.Fatalf("exit %d, output %q; want 3 and two lines", code, out)
	}
	var e struct {
		Error  string `json:"error"`
		Offset int    `json:"offset"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Offset != 10 || e.Error == "" {
		t.Errorf("error object %s: %+v %v; want offset 10", lines[0], e, err)
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--no-such-flag", "file:///"}, 2},
		{[]string{"-Z"}, 2},
		{[]string{}, 2},
		{[]string{"-o"}, 2},
		{[]string{"--parallel", "0", "file:///"}, 2},
		{[]string{"-C", "5", "-o", "x", "file:///"}, 2},
		{[]string{"--help"}, 0},
		{[]string{"--version"}, 0},
	}
	for _, tt := range tests {
		if _, errs, code := fetchCmd(t, "", tt.args...); code != tt.code {
			t.Errorf("fetch %q: exit %d, want %d (%s)", tt.args, code, tt.code, errs)
		}
	}
	c, err := parseArgs([]string{"-sSvo", "out", "--max-time=2.5", "-K", "-", "--", "-notflag"})
	if err != nil || !c.silent || !c.showErrors || !c.verbose || c.output != "out" || c.maxTime.Seconds() != 2.5 ||
		len(c.inputFiles) != 1 || len(c.urls) != 1 || c.urls[0] != "-notflag" {
		t.Errorf("parseArgs = %+v, %v", c, err)
	}
}

func TestFetchFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	os.WriteFile(b, []byte("beta\n"), 0o644)

	out, _, code := fetchCmd(t, "", "file://"+a, "file://localhost"+b)
	if code != 0 || out != "alpha\nbeta\n" {
		t.Errorf("two files: %q exit %d", out, code)
	}

	// Parallel transfers reach stdout whole and in command-line order.
	var args []string
	var want strings.Builder
	for i := 0; i < 6; i++ {
		args = append(args, "file://"+a, "file://"+b)
		want.WriteString("alpha\nbeta\n")
	}
	out, _, code = fetchCmd(t, "", append([]string{"--parallel", "4"}, args...)...)
	if code != 0 || out != want.String() {
		t.Errorf("--parallel 4: %q exit %d", out, code)
	}

	// -K: URLs from stdin, comments and blank lines skipped.
	out, _, code = fetchCmd(t, "# list\n\nfile://"+a+"\n  file://"+b+"  \n", "-K", "-")
	if code != 0 || out != "alpha\nbeta\n" {
		t.Errorf("-K -: %q exit %d", out, code)
	}

	// The first failure's code; every URL is still tried; one line each.
	out, errs, code := fetchCmd(t, "", "file://"+dir+"/missing", "file://"+a, "file://elsewhere.example/x")
	if code != 7 || out != "alpha\n" || strings.Count(errs, "\n") != 2 {
		t.Errorf("mixed: out %q exit %d stderr %q; want alpha, 7 and two lines", out, code, errs)
	}
	for _, tt := range []struct {
		url  string
		code int
	}{
		{"file://" + dir + "/a%0D.txt", 11},
		{"ftp://h:25/x", 11},
		{"ftp://h/x;type=q", 3},
		{"http://[::1/x", 3},
		{"file://other.host/etc/motd", 4},
		{"mystery://h/x", 4},
		{"file://" + dir + "/nope", 7},
	} {
		if _, errs, code := fetchCmd(t, "", tt.url); code != tt.code || !strings.Contains(errs, "fetch: ") {
			t.Errorf("fetch %s: exit %d (%q), want %d", tt.url, code, errs, tt.code)
		}
	}
}

func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	os.WriteFile(src, bytes.Repeat([]byte("x"), 100000), 0o644)
	dst := filepath.Join(dir, "out", "copy.bin")
	os.Mkdir(filepath.Dir(dst), 0o755)

	if _, errs, code := fetchCmd(t, "", "-o", dst, "file://"+src); code != 0 {
		t.Fatalf("-o: exit %d %s", code, errs)
	}
	if got, _ := os.ReadFile(dst); len(got) != 100000 {
		t.Errorf("-o wrote %d bytes", len(got))
	}

	// A failed transfer leaves no file and no temporary behind.
	failed := filepath.Join(dir, "out", "failed.bin")
	if _, _, code := fetchCmd(t, "", "-o", failed, "file://"+dir+"/missing"); code != 7 {
		t.Errorf("-o missing: exit %d, want 7", code)
	}
	entries, _ := os.ReadDir(filepath.Dir(dst))
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after a failure the folder holds %q, want only copy.bin", names)
	}

	// -O with --output-dir names the file after the URL's last segment.
	od := t.TempDir()
	if _, errs, code := fetchCmd(t, "", "-O", "--output-dir", od, "file://"+src); code != 0 {
		t.Fatalf("-O: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(od, "src.bin")); err != nil {
		t.Errorf("-O: %v", err)
	}
	if _, _, code := fetchCmd(t, "", "-O", "--output-dir", od, "file://"+dir+"/"); code != 2 {
		t.Errorf("-O on a URL without a file name: exit %d, want 2", code)
	}

	// -C - resumes: the part already there is kept, the rest appended.
	part := filepath.Join(dir, "resume.bin")
	os.WriteFile(part+".part", bytes.Repeat([]byte("x"), 40000), 0o644)
	if _, errs, code := fetchCmd(t, "", "-C", "-", "-o", part, "file://"+src); code != 0 {
		t.Fatalf("-C -: exit %d %s", code, errs)
	}
	if got, _ := os.ReadFile(part); len(got) != 100000 {
		t.Errorf("-C - produced %d bytes, want 100000", len(got))
	}
	if _, err := os.Stat(part + ".part"); err == nil {
		t.Error("-C - left the .part file behind after success")
	}
}

func TestHeadAndDryRun(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(p, []byte("12345"), 0o644)
	out, _, code := fetchCmd(t, "", "-I", "file://"+p)
	if code != 0 || !strings.Contains(out, "kind: file\nsize: 5\n") || !strings.Contains(out, "media-type: text/plain") {
		t.Errorf("-I: %q exit %d", out, code)
	}
	out, _, code = fetchCmd(t, "", "-I", "--json", "file://"+p)
	var obj map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &obj) != nil || obj["size"] != 5.0 || obj["kind"] != "file" {
		t.Errorf("-I --json: %q exit %d", out, code)
	}
	out, _, code = fetchCmd(t, "", "--dry-run", "file://"+p)
	if code != 0 || out != "open "+p+"\n" {
		t.Errorf("--dry-run: %q exit %d", out, code)
	}
}

func TestNetrc(t *testing.T) {
	const rc = `machine a.example login alice password s3cret
macdef init
cd /pub
machine evil.example login mallory

default login anonymous password guest@
machine b.example
	login bob
`
	for _, tt := range []struct{ host, user, pass string }{
		{"a.example", "alice", "s3cret"},
		{"B.EXAMPLE", "bob", ""},
		{"c.example", "anonymous", "guest@"},
		{"evil.example", "anonymous", "guest@"}, // inside a macdef: not an entry
	} {
		u, err := parseNetrc(strings.NewReader(rc), tt.host)
		if err != nil || u == nil || u.Username != tt.user || u.Password != tt.pass {
			t.Errorf("netrc for %s = %+v, %v; want %s/%s", tt.host, u, err, tt.user, tt.pass)
		}
	}
}

// Outputs larger than a spool's memory share spill to disk and still reach
// stdout whole and in order.
func TestParallelLargeOutputs(t *testing.T) {
	dir := t.TempDir()
	var args []string
	var want bytes.Buffer
	for i, c := range []byte("abc") {
		p := filepath.Join(dir, string(c))
		data := bytes.Repeat([]byte{c}, spoolMem+1000*(i+1))
		os.WriteFile(p, data, 0o644)
		args = append(args, "file://"+p)
		want.Write(data)
	}
	out, errs, code := fetchCmd(t, "", append([]string{"--parallel", "3"}, args...)...)
	if code != 0 || out != want.String() {
		t.Errorf("--parallel 3 of large files: %d bytes, exit %d (%s); want %d bytes in order", len(out), code, errs, want.Len())
	}
}
