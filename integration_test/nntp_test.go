//go:build integration

package integration_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// The articles servers/nntp.sh feeds to INN's local.test, in order.
const (
	nntpFirstBody = "This is the first article.\n.A line that begins with a dot.\n..Two dots.\n.\n" +
		"See http://www.example.org/page and ftp://ftp.example.org/pub/file.txt\n"
	nntpSecondBody = "Second body.\n"
)

func nntpDotsBody() string {
	var b strings.Builder
	for i := range 200 {
		b.WriteString(".line " + itoaIT(i) + "\n")
	}
	return b.String() + "...\n.\n"
}

func itoaIT(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// splitArticle splits an article into header and body at the first blank
// line, failing the test when there is none or a CR survived.
func splitArticle(t *testing.T, art []byte) (string, string) {
	t.Helper()
	if strings.Contains(string(art), "\r") {
		t.Errorf("article holds a CR: lines must end in \\n")
	}
	h, b, ok := strings.Cut(string(art), "\n\n")
	if !ok {
		t.Fatalf("article has no blank line after its header:\n%s", art)
	}
	return h + "\n", b
}

func TestNNTPArticleByNumber(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	for _, tt := range []struct {
		n, id, body string
	}{
		{"1", "first@fetch.test", nntpFirstBody},
		{"2", "second@fetch.test", nntpSecondBody},
		{"3", "dots@fetch.test", nntpDotsBody()},
	} {
		r := runFetch(t, "", nil, "nntp://"+addr+"/local.test/"+tt.n)
		wantCode(t, r, 0, "article "+tt.n)
		h, b := splitArticle(t, r.Stdout)
		if !strings.Contains(h, "\nMessage-ID: <"+tt.id+">\n") || !strings.HasPrefix(h, "Path: ") {
			t.Errorf("article %s header:\n%s", tt.n, h)
		}
		if b != tt.body {
			t.Errorf("article %s body = %q, want %q", tt.n, b, tt.body)
		}
	}
}

func TestNNTPNewsMessageID(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	r := runFetch(t, "", nil, "--nntp-server", addr, "news:first@fetch.test")
	wantCode(t, r, 0, "news:first@fetch.test")
	if _, b := splitArticle(t, r.Stdout); b != nntpFirstBody {
		t.Errorf("body = %q, want %q", b, nntpFirstBody)
	}
	// The conventional variable works as well as the option.
	t.Setenv("NNTPSERVER", addr)
	r = runFetch(t, "", nil, "news:dots@fetch.test")
	wantCode(t, r, 0, "news:dots@fetch.test with NNTPSERVER")
	if _, b := splitArticle(t, r.Stdout); b != nntpDotsBody() {
		t.Errorf("body = %q, want %q", b, nntpDotsBody())
	}
}

func TestNNTPOverview(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	for _, args := range [][]string{
		{"nntp://" + addr + "/local.test"},
		{"--nntp-server", addr, "news:local.test"},
	} {
		r := runFetch(t, "", nil, args...)
		wantCode(t, r, 0, strings.Join(args, " "))
		lines := strings.Split(strings.TrimSuffix(string(r.Stdout), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s: %d overview lines, want 3:\n%s", args, len(lines), r.Stdout)
		}
		for i, id := range []string{"first@fetch.test", "second@fetch.test", "dots@fetch.test"} {
			f := strings.Split(lines[i], "\t")
			if len(f) < 5 || f[0] != itoaIT(i+1) || f[4] != "<"+id+">" {
				t.Errorf("overview line %d = %q, want number %d and <%s>", i, lines[i], i+1, id)
			}
		}
	}
	r := runFetch(t, "", nil, "--nntp-server", addr, "news:local.empty")
	wantCode(t, r, 0, "news:local.empty")
	if len(r.Stdout) != 0 {
		t.Errorf("overview of an empty group = %q, want nothing", r.Stdout)
	}
}

func TestNNTPGroupList(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	r := runFetch(t, "", nil, "--nntp-server", addr, "news:*")
	wantCode(t, r, 0, "news:*")
	groups := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(r.Stdout), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) != 4 {
			t.Fatalf("LIST ACTIVE line %q: want group high low status", l)
		}
		groups[f[0]] = l
	}
	if f := strings.Fields(groups["local.test"]); len(f) != 4 || strings.TrimLeft(f[1], "0") != "3" {
		t.Errorf("local.test in the group list: %q, want high water mark 3", groups["local.test"])
	}
	if groups["local.empty"] == "" {
		t.Errorf("local.empty missing from the group list:\n%s", r.Stdout)
	}

	r = runFetch(t, "", nil, "--nntp-server", addr, "--nntp-descriptions", "news:local.*")
	wantCode(t, r, 0, "news:local.* with descriptions")
	if !strings.Contains(string(r.Stdout), "local.test\tArticles for the fetch integration tests.\n") {
		t.Errorf("descriptions:\n%s", r.Stdout)
	}
	if strings.Contains(string(r.Stdout), "junk") {
		t.Errorf("news:local.* lists groups outside local.*:\n%s", r.Stdout)
	}
}

func TestNNTPMissing(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	for _, args := range [][]string{
		{"nntp://" + addr + "/local.test/99"},
		{"nntp://" + addr + "/no.such.group/1"},
		{"--nntp-server", addr, "news:nosuch@fetch.test"},
		{"--nntp-server", addr, "news:no.such.group"},
	} {
		r := runFetch(t, "", nil, args...)
		wantCode(t, r, 7, strings.Join(args, " "))
		if len(r.Stdout) != 0 {
			t.Errorf("%s: stdout %q, want nothing", args, r.Stdout)
		}
	}
}

func TestNNTPNoServer(t *testing.T) {
	t.Setenv("NNTPSERVER", "")
	r := runFetch(t, "", nil, "news:first@fetch.test")
	if r.Code == 0 || !strings.Contains(string(r.Stderr), "NNTPSERVER") {
		t.Errorf("news: without a server: exit %d, stderr %q; want a failure naming NNTPSERVER", r.Code, r.Stderr)
	}
}

func TestNNTPSeveralArticlesOneConnection(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	r := runFetch(t, "", nil, "-v", "nntp://"+addr+"/local.test/1", "nntp://"+addr+"/local.test/2", "--nntp-server", addr, "news:dots@fetch.test")
	wantCode(t, r, 0, "three articles")
	if n := strings.Count(string(r.Stdout), "\nMessage-ID: <"); n != 3 {
		t.Errorf("%d articles in the output, want 3", n)
	}
	if n := strings.Count(string(r.Stderr), "connected to "); n != 1 {
		t.Errorf("%d connections for three articles of one server, want 1:\n%s", n, r.Stderr)
	}
	if n := strings.Count(string(r.Stderr), "> GROUP local.test"); n != 1 {
		t.Errorf("GROUP sent %d times, want once:\n%s", n, r.Stderr)
	}
}

func TestNNTPHeadAndDryRun(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	r := runFetch(t, "", nil, "-I", "nntp://"+addr+"/local.test/1")
	wantCode(t, r, 0, "-I")
	if !strings.Contains(string(r.Stdout), "article") {
		t.Errorf("-I output names no article kind:\n%s", r.Stdout)
	}
	r = runFetch(t, "", nil, "--dry-run", "nntp://u:secretpw@"+addr+"/local.test/2", "news:first@fetch.test")
	wantCode(t, r, 0, "--dry-run")
	out := string(r.Stdout)
	for _, want := range []string{"GROUP local.test", "ARTICLE 2", "ARTICLE <first@fetch.test>"} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+string(r.Stderr), "secretpw") {
		t.Errorf("--dry-run shows the password:\n%s%s", out, r.Stderr)
	}
}

func TestNNTPRefusesCRLF(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	r := runFetch(t, "", nil, "nntp://"+addr+"/local.test%0D%0AQUIT/1")
	wantCode(t, r, 11, "CR LF in the group")
}

func TestNNTPAuth(t *testing.T) {
	addr := env(t, "FETCH_IT_NNTP_ADDR")
	host, _, _ := strings.Cut(addr, ":")
	const want = "\n\nOnly for tester.\n"

	r := runFetch(t, "", nil, "nntp://"+addr+"/local.secret/1")
	wantCode(t, r, 6, "local.secret without credentials")

	r = runFetch(t, "", nil, "-v", "nntp://tester:tester-pw@"+addr+"/local.secret/1")
	wantCode(t, r, 0, "local.secret with URL credentials")
	if !strings.HasSuffix(string(r.Stdout), want) {
		t.Errorf("article:\n%s", r.Stdout)
	}
	if !strings.Contains(string(r.Stderr), "AUTHINFO PASS ****") || strings.Contains(string(r.Stderr), "tester-pw") {
		t.Errorf("trace does not mask the password:\n%s", r.Stderr)
	}

	r = runFetch(t, "", nil, "nntp://tester:wrong-pw@"+addr+"/local.secret/1")
	wantCode(t, r, 6, "local.secret with a wrong password")
	if strings.Contains(string(r.Stderr), "wrong-pw") {
		t.Errorf("error shows the password: %s", r.Stderr)
	}

	r = runFetch(t, "", nil, "-u", "tester:tester-pw", "--nntp-server", addr, "news:secret@fetch.test")
	wantCode(t, r, 0, "news: with -u")
	if !strings.HasSuffix(string(r.Stdout), want) {
		t.Errorf("article:\n%s", r.Stdout)
	}

	dir := t.TempDir()
	netrc := dir + "/netrc"
	if err := os.WriteFile(netrc, []byte("machine "+host+" login tester password tester-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NETRC", netrc)
	r = runFetch(t, "", nil, "--netrc", "nntp://"+addr+"/local.secret/1")
	wantCode(t, r, 0, "local.secret with --netrc")
}

// TestNNTPTruncated drives the binary against a server (in this test) that
// closes the connection in the middle of an article: exit 9, and -o leaves
// no file.
func TestNNTPTruncated(t *testing.T) {
	env(t, "FETCH_IT_NNTP_ADDR") // runs with the other news tests
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				fmt.Fprintf(c, "200 cut-off server\r\n")
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					switch strings.ToUpper(strings.Fields(line + " x")[0]) {
					case "ARTICLE":
						fmt.Fprintf(c, "220 1 <cut@fetch.test>\r\nSubject: cut\r\n\r\nthe first line\r\nand half of the sec")
						return
					case "QUIT":
						fmt.Fprintf(c, "205 bye\r\n")
						return
					default:
						fmt.Fprintf(c, "500 what?\r\n")
					}
				}
			}()
		}
	}()
	addr := ln.Addr().String()
	r := runFetch(t, "", nil, "--nntp-server", addr, "news:cut@fetch.test")
	wantCode(t, r, 9, "an article cut short")
	dir := t.TempDir()
	r = runFetch(t, dir, nil, "-o", "art.txt", "--nntp-server", addr, "news:cut@fetch.test")
	wantCode(t, r, 9, "an article cut short, with -o")
	if _, err := os.Stat(dir + "/art.txt"); err == nil {
		t.Errorf("-o left a file after a truncated transfer")
	}
}
