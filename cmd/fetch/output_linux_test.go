package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// procUmask reads the process's umask without changing it.
func procUmask(t *testing.T) os.FileMode {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				t.Fatal(err)
			}
			return os.FileMode(m)
		}
	}
	t.Skip("no Umask in /proc/self/status")
	return 0
}

// -o gives the file the usual mode (0666 less the umask), not a temporary
// file's 0600.
func TestOutputMode(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("x"), 0o644)
	want := 0o666 &^ procUmask(t)
	for _, args := range [][]string{{"-o", "dst"}, {"-C", "-", "-o", "dst2"}} {
		args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
		if _, errs, code := fetchCmd(t, "", append(args, "file://"+src)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		fi, err := os.Stat(args[len(args)-1])
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%v: mode = %v, %v; want %v", args, fi.Mode().Perm(), err, want)
		}
	}
}

// Output files written from many goroutines at once leave the process's
// umask as it was, and every file gets its mode from it.
func TestOutputUmaskConcurrent(t *testing.T) {
	before := procUmask(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				f := &fileOut{final: filepath.Join(dir, strconv.Itoa(g*1000+i))}
				if _, err := f.open(); err != nil {
					t.Error(err)
					return
				}
				if err := f.commit(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if after := procUmask(t); after != before {
		t.Fatalf("umask %03o after concurrent outputs, was %03o", after, before)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		if fi.Mode().Perm() != 0o666&^before {
			t.Fatalf("%s has mode %v, want %v", e.Name(), fi.Mode().Perm(), 0o666&^before)
		}
	}
}

// On Linux the file being written has no name until it is complete: the
// folder shows nothing during the transfer or after a failure, and the
// complete file replaces one of the same name at once.
func TestOutputUnnamed(t *testing.T) {
	names := func(dir string) []string {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name())
		}
		return ns
	}
	// (The link through /proc/self/fd is tested in fetch/unnamed.)
	for _, old := range []string{"", "old content"} {
		dir := t.TempDir()
		dst := filepath.Join(dir, "f.bin")
		var want []string
		if old != "" {
			os.WriteFile(dst, []byte(old), 0o644)
			want = []string{"f.bin"}
		}
		f := &fileOut{final: dst}
		if _, err := f.open(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("new")); err != nil {
			t.Fatal(err)
		}
		if got := names(dir); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("during the transfer the folder holds %q, want %q", got, want)
		}
		if err := f.commit(); err != nil {
			t.Fatal(err)
		}
		if got := names(dir); strings.Join(got, ",") != "f.bin" {
			t.Errorf("after commit the folder holds %q, want only f.bin", got)
		}
		if b, _ := os.ReadFile(dst); string(b) != "new" {
			t.Errorf("f.bin = %q, want %q", b, "new")
		}

		// A failed transfer leaves the folder as it was.
		f = &fileOut{final: filepath.Join(dir, "g.bin")}
		if _, err := f.open(); err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("partial"))
		f.abort()
		if got := names(dir); strings.Join(got, ",") != "f.bin" {
			t.Errorf("after a failure the folder holds %q, want only f.bin", got)
		}
	}
}

// -o naming a device or a named pipe writes into it, as it is: it is not
// replaced by a regular file (as root, "-o /dev/null" once replaced the
// device). With -O the name is looked at only when it exists, and a device
// or pipe there gets the bytes at the end.
func TestOutputSpecial(t *testing.T) {
	for _, opt := range []string{"-o", "-O"} {
		t.Run(opt, func(t *testing.T) {
			dir := t.TempDir()
			srcDir := t.TempDir()
			write := func(name string) string {
				p := filepath.Join(srcDir, name)
				os.WriteFile(p, []byte("bytes of "+name), 0o644)
				return p
			}
			args := func(name string) []string {
				if opt == "-o" {
					return []string{"-o", filepath.Join(dir, name), "file://" + write("src")}
				}
				return []string{"-O", "--output-dir", dir, "file://" + write(name)}
			}
			want := map[string]string{}
			if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
				t.Logf("no device made (%v): checking the pipe only", err)
			} else {
				want["null"] = ""
			}
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			want["fifo"] = "bytes of "
			if opt == "-o" {
				want["fifo"] += "src"
			} else {
				want["fifo"] += "fifo"
			}
			got := make(chan string, 1)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					got <- err.Error()
					return
				}
				b, _ := io.ReadAll(f)
				f.Close()
				got <- string(b)
			}()
			for name := range want {
				if _, errs, code := fetchCmd(t, "", args(name)...); code != 0 {
					t.Fatalf("%s %s: exit %d: %s", opt, name, code, errs)
				}
				fi, err := os.Lstat(filepath.Join(dir, name))
				if err != nil || fi.Mode().IsRegular() {
					t.Errorf("%s %s: now %v, %v; want it as it was", opt, name, fi.Mode(), err)
				}
			}
			select {
			case s := <-got:
				if s != want["fifo"] {
					t.Errorf("the pipe's reader got %q, want %q", s, want["fifo"])
				}
			case <-time.After(10 * time.Second):
				t.Error("nothing was written into the pipe")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != len(want) {
				t.Errorf("the folder holds %d entries, want %d as before", len(ents), len(want))
			}
		})
	}
}

// A small file is written through its bare descriptor, with no *os.File
// made for it; a ReadFrom after writes goes on where they ended, and a
// failed write is the output's, naming the file.
func TestOutputBareDescriptor(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "f.bin")
	f := &fileOut{final: dst}
	if _, err := f.open(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if !f.fdOpen || f.tmp != nil {
		t.Fatalf("after a write: fdOpen %v, *os.File %v; want the bare descriptor alone", f.fdOpen, f.tmp)
	}
	if n, err := f.ReadFrom(strings.NewReader("def")); n != 3 || err != nil {
		t.Fatalf("ReadFrom = %d, %v", n, err)
	}
	if err := f.commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "abcdef" {
		t.Errorf("file = %q, want abcdef", b)
	}

	f = &fileOut{final: filepath.Join(dir, "g.bin")}
	if _, err := f.open(); err != nil {
		t.Fatal(err)
	}
	syscall.Close(f.fd) // the write below fails
	_, err := f.Write([]byte("x"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "write" || pe.Path != f.final || !writeSide(err) {
		t.Errorf("Write on a closed descriptor = %v; want a write error naming %s", err, f.final)
	}
	f.fdOpen = false // closed above
	f.abort()
}
