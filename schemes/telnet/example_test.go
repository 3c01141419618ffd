package telnet_test

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/telnet"
	"github.com/rfc1738/fetch/url"
)

// A program drives a text service: it logs in at the prompts, waits for
// the shell's prompt, runs one command and reads its output up to the
// next prompt.
func ExampleSession_Expect() {
	u, err := url.Parse("telnet://guest:s3cret@bbs.example.org/")
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := &telnet.Handler{Login: true} // type the URL's user and password at the prompts
	s, err := h.Open(ctx, &fetch.Request{URL: u})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	prompt := regexp.MustCompile(`\$ $`)
	if _, err := s.Expect(10*time.Second, prompt); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(s, "uptime\n")
	m, err := s.Expect(10*time.Second, prompt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(m.Text)
}
