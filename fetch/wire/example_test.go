package wire_test

import (
	"fmt"

	"github.com/rfc1738/fetch/fetch/wire"
)

// A Pool keeps idle connections by key for handlers that reuse them.
func ExamplePool() {
	p := &wire.Pool[string, string]{MaxIdle: 1, Discard: func(c string) { fmt.Println("closing", c) }}
	p.Put("ftp.example.org:21 anonymous", "conn 1")
	c, ok := p.Get("ftp.example.org:21 anonymous")
	fmt.Println(c, ok)
	p.Put("ftp.example.org:21 anonymous", "conn 1")
	p.Close()
	// Output:
	// conn 1 true
	// closing conn 1
}
