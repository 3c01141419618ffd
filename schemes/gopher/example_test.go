package gopher_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/gopher"
	"github.com/rfc1738/fetch/url"
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

// The items of a menu as fetch.Entry values, the same for every scheme
// that lists: information lines are left out, "URL:" selectors give the
// URL they hold.
func ExampleHandler_List() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		bufio.NewReader(c).ReadString('\n') // the selector line
		io.WriteString(c, menu[:len(menu)-3]+"hThe web site\tURL:http://www.example.org/\tgopher.example\t70\r\n.\r\n")
	}()

	u, _ := url.Parse("gopher://" + ln.Addr().String() + "/1/")
	l, err := (&gopher.Handler{}).List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	for {
		e, err := l.Next()
		if err != nil {
			break
		}
		fmt.Printf("%-5s %s <%s>\n", e.Kind, e.Name, e.URL)
	}
	fmt.Println("skipped:", l.Skipped())
	// Output:
	// file  About this server <gopher://gopher.example/0/about.txt>
	// menu  Archive <gopher://gopher.example:7070/1/archive>
	// list  Search the archive <gopher://gopher.example/7/search>
	// file  The web site <http://www.example.org/>
	// skipped: 1
}
