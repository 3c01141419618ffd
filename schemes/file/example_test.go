package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/file"
	"github.com/rfc1738/fetch/url"
)

// A directory's entries, with sizes; a directory's URL ends in "/".
func ExampleHandler_List() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)

	u, _ := url.Parse("file://" + filepath.ToSlash(dir) + "/")
	l, err := (&file.Handler{}).List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	var lines []string
	for {
		e, err := l.Next()
		if err != nil {
			break
		}
		rel := e.URL.String()[len(u.String()):]
		lines = append(lines, fmt.Sprintf("%s %d %s", e.Kind, e.Size, rel))
	}
	sort.Strings(lines) // List gives the directory's own order
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// directory -1 sub/
	// file 6 notes.txt
}
