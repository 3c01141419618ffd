package fetch

import (
	"net"
	"net/netip"
	"time"
)

// netOpts are the Client's connection settings a request carries: its
// proxy, address family, address overrides and Happy Eyeballs delay. A
// nil *netOpts is the zero settings.
type netOpts struct {
	proxy     ProxyFunc
	direct    bool // see Request.Direct
	ipVersion int
	resolve   map[string][]netip.Addr
	connectTo map[string]string
	delay     time.Duration
}

// netOpts returns the settings of c that requests carry, or nil when all
// are zero (the common case costs no allocation).
func (c *Client) netOpts() *netOpts {
	if c.Proxy == nil && c.IPVersion == 0 && len(c.Resolve) == 0 && len(c.ConnectTo) == 0 && c.FallbackDelay == 0 {
		return nil
	}
	return &netOpts{proxy: c.Proxy, ipVersion: c.IPVersion, resolve: c.Resolve, connectTo: c.ConnectTo, delay: c.FallbackDelay}
}

// target returns the address to connect to for addr (host:port):
// ConnectTo's entry for "host:port", else "host:", else ":port", else
// ":", else addr itself. An entry's empty host or port keeps addr's.
func (n *netOpts) target(addr string) string {
	if n == nil || len(n.connectTo) == 0 {
		return addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	for _, k := range []string{net.JoinHostPort(host, port), host + ":", ":" + port, ":"} {
		to, ok := n.connectTo[k]
		if !ok {
			continue
		}
		h2, p2, err := net.SplitHostPort(to)
		if err != nil {
			return addr
		}
		if h2 == "" {
			h2 = host
		}
		if p2 == "" {
			p2 = port
		}
		return net.JoinHostPort(h2, p2)
	}
	return addr
}

// resolved returns Resolve's addresses for host and port ("host:port",
// else "host:*"), or nil.
func (n *netOpts) resolved(host, port string) []netip.Addr {
	if n == nil || len(n.resolve) == 0 {
		return nil
	}
	if ips, ok := n.resolve[net.JoinHostPort(host, port)]; ok {
		return ips
	}
	return n.resolve[host+":*"]
}

// family narrows a "tcp" or "udp" network to IPVersion's family.
func (n *netOpts) family(network string) string {
	if n == nil {
		return network
	}
	switch {
	case n.ipVersion == 4 && (network == "tcp" || network == "udp"):
		return network + "4"
	case n.ipVersion == 6 && (network == "tcp" || network == "udp"):
		return network + "6"
	}
	return network
}

// fallbackDelay is the Happy Eyeballs delay; negative means none.
func (n *netOpts) fallbackDelay() time.Duration {
	if n == nil || n.delay == 0 {
		return DefaultFallbackDelay
	}
	return n.delay
}

// onlyFamily keeps the addresses of network's family ("tcp4": IPv4,
// "tcp6": IPv6, others: all), failing when none is left.
func onlyFamily(network, host string, ips []netip.Addr) ([]netip.Addr, error) {
	want4 := network == "tcp4" || network == "udp4"
	want6 := network == "tcp6" || network == "udp6"
	if !want4 && !want6 {
		return ips, nil
	}
	var out []netip.Addr
	for _, a := range ips {
		if a.Unmap().Is4() == want4 {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		fam := "IPv4"
		if want6 {
			fam = "IPv6"
		}
		return nil, &net.DNSError{Err: "no " + fam + " address", Name: host, IsNotFound: true}
	}
	return out, nil
}
