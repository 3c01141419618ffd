package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"
)

// startFTP serves root over FTP (goftp.io/server) to anonymous, on
// 127.0.0.1, until the test ends.
func startFTP(t *testing.T, root string) string {
	t.Helper()
	drv, err := file.NewDriver(root)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewServer(&server.Options{
		Driver:   drv,
		Auth:     &server.SimpleAuth{Name: "bob", Password: "pw"},
		Perm:     server.NewSimplePerm("bob", "bob"),
		Hostname: "127.0.0.1",
		Logger:   &server.DiscardLogger{},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String()
}

// TestFTPMenuToFile: --menu of an FTP directory names its directories
// with a final "/", written to -o FILE as to stdout (issue 28: with -o
// it rendered the name list, which names directories as files).
func TestFTPMenuToFile(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "pub", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "pub", "a.txt"), []byte("a\n"), 0o644)
	u := "ftp://bob:pw@" + startFTP(t, root) + "/pub/"
	dst := filepath.Join(t.TempDir(), "menu")
	out, errs, code := fetchCmd(t, "", "-s", "-S", "--menu", u)
	if code != 0 {
		t.Fatalf("--menu: exit %d, %s", code, errs)
	}
	if _, errs, code := fetchCmd(t, "", "-s", "-S", "--menu", "-o", dst, u); code != 0 {
		t.Fatalf("--menu -o: exit %d, %s", code, errs)
	}
	got, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != out {
		t.Errorf("--menu -o wrote\n%s\nstdout had\n%s", got, out)
	}
	if !strings.Contains(string(got), "sub <ftp://bob@") || !strings.Contains(string(got), "/pub/sub/>") {
		t.Errorf("--menu -o: no directory URL ending in /:\n%s", got)
	}
}
