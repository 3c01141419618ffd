package ftp

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// recorder is a goftp Logger that keeps the commands the server received.
type recorder struct {
	mu   sync.Mutex
	cmds []string
}

func (r *recorder) Print(string, any)             {}
func (r *recorder) Printf(string, string, ...any) {}
func (r *recorder) PrintResponse(string, int, string) {
}
func (r *recorder) PrintCommand(_ string, cmd, params string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if params != "" {
		cmd += " " + params
	}
	r.cmds = append(r.cmds, cmd)
}

// take returns the commands received since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cmds
	r.cmds = nil
	return c
}

// startGoftp serves root with goftp.io/server/v2, an FTP server written
// independently of this client, to user bob (password pw).
func startGoftp(t *testing.T, root string) (addr string, rec *recorder) {
	t.Helper()
	drv, err := file.NewDriver(root)
	if err != nil {
		t.Fatal(err)
	}
	rec = &recorder{}
	srv, err := server.NewServer(&server.Options{
		Driver:   drv,
		Auth:     &server.SimpleAuth{Name: "bob", Password: "pw"},
		Perm:     server.NewSimplePerm("bob", "bob"),
		Hostname: "127.0.0.1",
		Logger:   rec,
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
	return ln.Addr().String(), rec
}

func TestGoftpServer(t *testing.T) {
	root := t.TempDir()
	big := bytes.Repeat([]byte("goftp interop "), 10000)
	for p, b := range map[string][]byte{
		"pub/a.bin":         big,
		"pub/sub dir/n.txt": []byte("spaced\n"),
		"pub/sub dir/m.txt": []byte("other\n"),
		"top.bin":           []byte("top"),
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr, rec := startGoftp(t, root)
	base := "ftp://bob:pw@" + addr

	t.Run("Sequence", func(t *testing.T) {
		h := &Handler{}
		steps := []struct {
			url  string
			body string
			want []string
		}{
			{base + "/pub/sub%20dir/n.txt", "spaced\n",
				[]string{"USER bob", "PASS pw", "PWD", "CWD pub", "CWD sub dir", "TYPE A", "EPSV", "RETR n.txt"}},
			{base + "/pub/sub%20dir/m.txt", "other\n", []string{"EPSV", "RETR m.txt"}},
			{base + "/top.bin", "top", []string{"CWD /", "TYPE I", "SIZE top.bin", "EPSV", "RETR top.bin"}},
			{base + "/pub/", "a.bin\nsub dir\n", []string{"CWD pub", "TYPE A", "EPSV", "NLST"}},
			{base + "/%2Fpub/a.bin;type=i", string(big), []string{"CWD /", "CWD /pub", "TYPE I", "SIZE a.bin", "EPSV", "RETR a.bin"}},
		}
		for _, s := range steps {
			_, body, err := get(t, h, req(t, s.url))
			if err != nil {
				t.Fatalf("fetch %s: %v", s.url, err)
			}
			if string(body) != s.body {
				t.Errorf("fetch %s: body %q, want %q", s.url, body, s.body)
			}
			if got := rec.take(); !slices.Equal(got, s.want) {
				t.Errorf("fetch %s: commands %q\nwant %q", s.url, got, s.want)
			}
		}
		// goftp refuses an empty CWD (553), but it is sent as the RFC says.
		if _, _, err := get(t, h, req(t, base+"//top.bin")); err == nil {
			t.Errorf("an empty CWD succeeded on goftp")
		}
		if got := rec.take(); !slices.Contains(got, "CWD ") && !slices.Contains(got, "CWD") {
			t.Errorf("no empty CWD sent: %q", got)
		}
		h.Close()
	})

	t.Run("ResumeAndHead", func(t *testing.T) {
		h := &Handler{}
		defer h.Close()
		r := req(t, base+"/pub/a.bin")
		r.Offset = 1000
		res, body, err := get(t, h, r)
		if err != nil || !bytes.Equal(body, big[1000:]) || res.Offset != 1000 {
			t.Fatalf("resume: %d bytes, %v", len(body), err)
		}
		r = req(t, base+"/pub/a.bin")
		r.Head = true
		if res, _, err := get(t, h, r); err != nil || res.Size != int64(len(big)) || res.ModTime.IsZero() {
			t.Errorf("head: %v, %+v", err, res)
		}
		r = req(t, base+"/pub/none.bin")
		r.Head = true
		if _, _, err := get(t, h, r); !errors.Is(err, fetch.NotFound) {
			t.Errorf("head of a missing file: %v, want NotFound", err)
		}
		if _, _, err := get(t, h, req(t, base+"/pub/none.bin")); !errors.Is(err, fetch.NotFound) {
			t.Errorf("missing file: %v, want NotFound", err)
		}
		if _, _, err := get(t, h, req(t, "ftp://bob:nope@"+addr+"/top.bin")); !errors.Is(err, fetch.Auth) {
			t.Errorf("wrong password: %v, want Auth", err)
		}
		rec.take()
	})

	t.Run("Conformance", func(t *testing.T) {
		h := &Handler{}
		defer h.Close()
		fetchtest.Run(t, h, fetchtest.Cases{
			Existing: base + "/pub/a.bin",
			Want:     big,
			Missing:  base + "/pub/missing.bin",
			Secret:   "ftp://bob:not-the-password@" + addr + "/top.bin",
			Password: "not-the-password",
		})
		rec.take()
	})
}
