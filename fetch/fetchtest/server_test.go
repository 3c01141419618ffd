package fetchtest

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"testing"
)

func TestServeAndTLS(t *testing.T) {
	serverTLS, clientTLS := TLS(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", serverTLS)
	if err != nil {
		t.Fatal(err)
	}
	addr := ServeListener(t, ln, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "echo "+line)
	})
	c, err := tls.Dial("tcp", addr, clientTLS)
	if err != nil {
		t.Fatalf("TLS dial with the trusted configuration: %v", err)
	}
	defer c.Close()
	io.WriteString(c, "hi\n")
	got, _ := bufio.NewReader(c).ReadString('\n')
	if got != "echo hi\n" {
		t.Errorf("got %q, want %q", got, "echo hi\n")
	}
}

// A connection the client never closes is closed when the test ends, so
// the server's goroutine returns.
func TestServeClosesOpenConnections(t *testing.T) {
	var c net.Conn
	t.Run("inner", func(t *testing.T) {
		addr := Serve(t, func(c net.Conn) { io.Copy(io.Discard, c) })
		var err error
		c, err = net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
	})
	defer c.Close()
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the connection is still open after the test ended")
	}
}
