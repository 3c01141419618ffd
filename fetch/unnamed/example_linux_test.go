package unnamed_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rfc1738/fetch/fetch/unnamed"
)

// A file is written without a name, then named when it is complete.
func Example() {
	dir, _ := os.MkdirTemp("", "unnamed")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "page.html")
	fd, ok := unnamed.Create(dir)
	if !ok {
		fmt.Println("<p>done</p>") // a named temporary file would be used
		return
	}
	unnamed.Write(fd, name, []byte("<p>done</p>"))
	if err := unnamed.Link(fd, name); err != nil {
		fmt.Println(err)
	}
	unnamed.Close(fd, name)
	b, _ := os.ReadFile(name)
	fmt.Println(string(b))
	// Output: <p>done</p>
}
