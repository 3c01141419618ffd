package fetch

import "net/netip"

// Address blocks that no public server has (RFC 6890's special-purpose
// registries), beyond what netip's predicates cover.
var (
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")      // "this host on this network" (RFC 1122): Linux reaches the local host
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10")  // carrier-grade NAT (RFC 6598): inside a provider's network
	ietfProto   = netip.MustParsePrefix("192.0.0.0/24")   // IETF protocol assignments (RFC 6890)
	broadcast   = netip.MustParseAddr("255.255.255.255")  // limited broadcast
	reserved4   = netip.MustParsePrefix("240.0.0.0/4")    // reserved (RFC 1112)
	siteLocal   = netip.MustParsePrefix("fec0::/10")      // deprecated site-local (RFC 3879), still routed inside some sites
	nat64       = netip.MustParsePrefix("64:ff9b::/96")   // NAT64 well-known prefix (RFC 6052): the IPv4 address in its last 32 bits
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48") // NAT64 local-use prefix (RFC 8215)
	sixToFour   = netip.MustParsePrefix("2002::/16")      // 6to4 (RFC 3056): the IPv4 address in bits 16-47
	compatible  = netip.MustParsePrefix("::/96")          // IPv4-compatible (RFC 4291 §2.5.5.1, deprecated): ::a.b.c.d
	teredo      = netip.MustParsePrefix("2001::/32")      // Teredo (RFC 4380): the client's IPv4 address, inverted, in the last 32 bits
	discardOnly = netip.MustParsePrefix("100::/64")       // discard-only (RFC 6666)
)

// isPrivate reports whether a is an address DenyPrivate refuses and the
// hop rule keeps a public server from sending us to: loopback, private
// (RFC 1918, fc00::/7), link-local, unspecified, multicast, 0.0.0.0/8,
// carrier-grade NAT space, the IETF and reserved IPv4 blocks and the
// broadcast address, site-local and discard-only IPv6. An IPv6 address
// that carries an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64,
// 6to4, Teredo) is private when that IPv4 address is: a host that
// translates or tunnels it reaches the IPv4 address.
//
// It is the one classifier of the module: the dial-time policy, the hop
// rule and the crawler all judge addresses by it.
func isPrivate(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		if v4, ok := embeddedIPv4(a); ok {
			return isPrivate(v4)
		}
	}
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() ||
		a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		thisNetwork.Contains(a) || sharedSpace.Contains(a) || ietfProto.Contains(a) ||
		reserved4.Contains(a) || a == broadcast || siteLocal.Contains(a) || discardOnly.Contains(a)
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries by one of
// the translation or tunnelling schemes, if it is of one.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case a.IsUnspecified() || a.IsLoopback(): // ::, ::1 are in ::/96 but are themselves
		return netip.Addr{}, false
	case compatible.Contains(a), nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case nat64Local.Contains(a):
		// RFC 6052 §2.2 with a /48 prefix: the IPv4 address is in bits
		// 48-63 and 72-87 (bits 64-71 are zero).
		return netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case teredo.Contains(a):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}
