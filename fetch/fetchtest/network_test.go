package fetchtest

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
)

func TestNetwork(t *testing.T) {
	addr := Serve(t, func(c net.Conn) { io.WriteString(c, "hi") })
	n := &Network{
		Hosts:  map[string]string{"www.example.test": "192.0.2.10"},
		Routes: map[string]string{"192.0.2.10:70": addr},
	}
	ctx := context.Background()
	ips, err := n.LookupNetIP(ctx, "ip", "www.example.test")
	if err != nil || len(ips) != 1 || ips[0].String() != "192.0.2.10" {
		t.Fatalf("LookupNetIP = %v, %v", ips, err)
	}
	var dnsErr *net.DNSError
	if _, err := n.LookupNetIP(ctx, "ip", "nowhere.test"); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("unknown name: %v, want not found", err)
	}
	c, err := n.DialContext(ctx, "tcp", "192.0.2.10:70")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	if string(b) != "hi" {
		t.Errorf("read %q through the route, want %q", b, "hi")
	}
	if _, err := n.DialContext(ctx, "tcp", "192.0.2.10:71"); err == nil {
		t.Error("a dial with no route succeeded")
	}
	if got := n.Dialed(); len(got) != 2 || got[0] != "192.0.2.10:70" || got[1] != "192.0.2.10:71" {
		t.Errorf("Dialed = %q", got)
	}
}
