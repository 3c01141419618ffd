package ftp

import (
	"strings"
	"testing"
)

func TestEntryURL(t *testing.T) {
	tests := []struct{ dir, name, want string }{
		{"ftp://h/pub/", "a.txt", "ftp://h/pub/a.txt"},
		{"ftp://h/", "a b.txt", "ftp://h/a%20b.txt"},
		{"ftp://h", "x", "ftp://h/x"},
		{"ftp://h/pub;type=d", "pub/a.txt", "ftp://h/pub/a.txt"},
		{"ftp://h/pub;type=d", "a.txt", "ftp://h/pub/a.txt"},
		{"ftp://h/%2Fetc/;type=d", "motd", "ftp://h/%2Fetc/motd"},
		{"ftp://h/pub/", "/abs/x", "ftp://h/%2Fabs/x"},
		{"ftp://bob:secret@h:2121/d/", "f;1", "ftp://bob@h:2121/d/f%3B1"},
		{"ftps://h/a%2Fb/", "c", "ftps://h/a%2Fb/c"},
	}
	for _, tt := range tests {
		u := parse(t, tt.dir)
		if got := EntryURL(u, tt.name); got != tt.want {
			t.Errorf("EntryURL(%s, %q) = %s, want %s", tt.dir, tt.name, got, tt.want)
		}
		// The entry URL parses, and its name is the entry's last segment.
		e := parse(t, EntryURL(u, tt.name))
		if got, want := e.FTP().Name, tt.name[strings.LastIndexByte(tt.name, '/')+1:]; got != want {
			t.Errorf("EntryURL(%s, %q) names %q, want %q", tt.dir, tt.name, got, want)
		}
	}
}

func TestWriteListing(t *testing.T) {
	var b strings.Builder
	in := "a.txt\nsub dir\nbad\x1bname\n" + strings.Repeat("x", maxEntry+10) + "\n"
	if err := WriteListing(&b, strings.NewReader(in), parse(t, "ftp://h/pub/")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	want := []string{"a.txt <ftp://h/pub/a.txt>", "sub dir <ftp://h/pub/sub%20dir>", "bad?name <ftp://h/pub/bad%1Bname>"}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if len(lines[3]) > 2*maxEntry+100 {
		t.Errorf("a long name was not cut: %d bytes", len(lines[3]))
	}
}
