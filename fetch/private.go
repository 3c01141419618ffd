package fetch

import "net/netip"

// thisNetwork is 0.0.0.0/8 (RFC 1122 §3.2.1.3): "this host on this
// network", which Linux connects to the local host.
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// isPrivate reports whether a is an address DenyPrivate refuses: loopback,
// private (RFC 1918, fc00::/7), link-local (169.254.0.0/16, fe80::/10),
// unspecified, 0.0.0.0/8 or multicast. An IPv4-mapped IPv6 address is
// judged as the IPv4 address it maps.
func isPrivate(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() ||
		a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		thisNetwork.Contains(a)
}
