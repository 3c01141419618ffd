package gopher_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rfc1738/fetch/schemes/gopher"
)

const menu = "iWelcome\t\tnull.host\t1\r\n" +
	"0About this server\t/about.txt\tgopher.example\t70\r\n" +
	"1Archive\t/archive\tgopher.example\t7070\r\n" +
	"7Search the archive\t/search\tgopher.example\t70\r\n" +
	"not a menu line\r\n" +
	".\r\n"

// A crawler's link extractor: every item with its URL.
func ExampleMenuReader() {
	m := gopher.NewMenuReader(strings.NewReader(menu))
	for {
		it, err := m.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if u := it.URL(); u != "" {
			fmt.Printf("%c %s\n", it.Type, u)
		}
	}
	fmt.Println("skipped:", m.Skipped())
	// Output:
	// 0 gopher://gopher.example/0/about.txt
	// 1 gopher://gopher.example:7070/1/archive
	// 7 gopher://gopher.example/7/search
	// skipped: 1
}

// What "fetch --menu" shows.
func ExampleWriteMenu() {
	gopher.WriteMenu(os.Stdout, strings.NewReader(menu), nil)
	// Output:
	//       Welcome
	// [TXT] About this server <gopher://gopher.example/0/about.txt>
	// [DIR] Archive <gopher://gopher.example:7070/1/archive>
	// [FIND] Search the archive <gopher://gopher.example/7/search>
	// (1 malformed menu lines skipped)
}
