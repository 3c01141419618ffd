package fetchtest

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// lineHandler is a toy scheme: it sends the URL's path as one line and
// the server answers with the body, then closes; "-" first means not found.
// Its Body is the connection, so Close drops it at once.
type lineHandler struct{}

func (lineHandler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	c, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
	if err != nil {
		return nil, err
	}
	stop := c.Watch(ctx)
	if _, err := io.WriteString(c, req.URL.Path+"\r\n"); err != nil {
		c.Close()
		return nil, fetch.Classify(err)
	}
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	if err != nil {
		c.Close()
		return nil, fetch.Classify(err)
	}
	if first[0] == '-' {
		c.Close()
		return nil, fetch.Errorf(fetch.NotFound, "no such thing")
	}
	return &fetch.Resource{Size: -1, Body: &connBody{Reader: br, c: c, stop: stop}}, nil
}

type connBody struct {
	io.Reader
	c    *wire.Conn
	stop func() bool
}

func (b *connBody) Close() error {
	b.stop()
	return b.c.Close()
}

func TestRunStalled(t *testing.T) {
	want := strings.Repeat("0123456789abcdef", 8<<10)
	addr := Serve(t, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		switch strings.TrimSpace(line) {
		case "data":
			io.WriteString(c, want)
		case "stall":
			io.WriteString(c, "the start, and then nothing")
			io.Copy(io.Discard, c) // until the client drops the connection
		default:
			io.WriteString(c, "-\r\n")
		}
	})
	Run(t, lineHandler{}, Cases{
		Existing: "ftp://" + addr + "/data",
		Want:     []byte(want),
		Missing:  "ftp://" + addr + "/missing",
		Stalled:  "ftp://" + addr + "/stall",
	})
}
