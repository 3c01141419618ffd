package fetchtest

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
)

// Network is a network of a test's own, for fetch.Client's Resolver and
// DialContext hooks: host names resolve to the addresses the test chooses
// (TEST-NET or private ones, say), and a dial to such an address and port
// goes to a listener on this machine. Nothing leaves 127.0.0.1, yet the
// Client's policy judges the addresses the test named.
//
//	n := &fetchtest.Network{
//		Hosts:  map[string]string{"www.example.test": "192.0.2.10"},
//		Routes: map[string]string{"192.0.2.10:80": srv.Listener.Addr().String()},
//	}
//	c := &fetch.Client{Resolver: n, DialContext: n.DialContext}
type Network struct {
	// Hosts maps a host name to the IP address it resolves to.
	Hosts map[string]string
	// Routes maps "ip:port" to the address of the listener that answers
	// there. A dial to any other address fails as unreachable.
	Routes map[string]string

	mu     sync.Mutex
	dialed []string
}

// LookupNetIP resolves host by Hosts; an unknown name is not found.
func (n *Network) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, ok := n.Hosts[host]; ok {
		return []netip.Addr{netip.MustParseAddr(ip)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// DialContext connects to the listener Routes names for addr, and records
// addr.
func (n *Network) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dialed = append(n.dialed, addr)
	n.mu.Unlock()
	to, ok := n.Routes[addr]
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("no route (test network)")}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

// Dialed returns the addresses dialed so far, in order.
func (n *Network) Dialed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dialed...)
}
