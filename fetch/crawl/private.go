package crawl

import (
	"net/netip"
	"strings"
)

type netipAddr = netip.Addr

// parseAddr parses an IP literal host, with or without IPv6 brackets.
func parseAddr(host string) (netip.Addr, error) {
	return netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// isPrivate reports whether a is an address fetch.Policy.DenyPrivate
// refuses: loopback, private, link-local, unspecified, 0.0.0.0/8 or
// multicast.
func isPrivate(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.Is4() && a.As4()[0] == 0
}
