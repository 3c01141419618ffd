// Package prospero implements the prospero scheme of RFC 1738 §3.11: a
// client of the Prospero Directory Service, protocol version 5, carried over
// ARDP (the Asynchronous Reliable Delivery Protocol, version 0) on UDP,
// port 1525.
//
// A URL prospero://host:port/hsoname;field=value names one object by its
// host-specific object name (an absolute name gives a double slash:
// prospero://host//srv/README). Handler asks the server for the object's
// attributes (GET-OBJECT-INFO #ALL, with the OBJECT-VERSION field as the
// version, else 0) and then delivers:
//
//   - a file with the PROSPERO-CONTENTS access method: its bytes, fetched
//     with GET-OBJECT-INFO CONTENTS and unquoted as the packets arrive;
//   - a file with the AFTP access method: a referral to the ftp:// URL it
//     names (the Resource's Redirect), which the fetch.Client follows
//     through its FTP handler;
//   - a directory (an object without access methods, as dirsrv serves
//     them): its links, one prospero:// URL a line, in the server's order.
//     dirsrv names itself in its links ("LOCALHOST(21525)"); a link to
//     LOCALHOST from a server reached over the loopback is given the
//     address the request used.
//
// FAILURE NOT-FOUND and NONE-FOUND are fetch.NotFound; FAILURE
// NOT-AUTHORIZED is fetch.Other, "the server refused access": the client
// sends no credentials (its identity is UNAUTHENTICATED), so no login or
// authentication failed. ERROR and malformed replies are fetch.Protocol,
// and a server that stays silent is fetch.Timeout; a reply read whole (the
// attributes) must come within the idle timeout in all, not per packet. A
// TAB in the object name or version is refused (fetch.Refused), as CR, LF
// and NUL are: it would reach the request line, if quoted. A
// FORWARDED reply is a referral too: the Resource's Redirect is the
// prospero URL it names, and the Client follows it, within its hop limit.
//
// A directory's links are prospero URLs ending in "/" when they are
// directories (the name goes to the server without it), and WriteMenu
// renders them for reading, one "name <url>" a line.
//
// ARDP is in header.go (the variable, truncatable header) and ardp.go
// (reassembly by sequence number, ACKs, retransmission with backoff, wait
// notices, the 16-packet window); rtt.go is the re-send timer. The line
// protocol and its ' quoting are in quote.go. The wire format follows
// recordings of the Prospero Alpha.5.2a dirsrv, replayed by this
// package's tests.
//
// # Against the real server
//
// Issue 28 records a check against Prospero dirsrv Alpha.5.2a rebuilt from
// source (no Debian package has it; CI replays its recorded
// conversations): every file up to 148 packets, 300-entry directories,
// 10% datagram loss, and -r and fs.WalkDir byte-identical, passed. Under
// that loss the client then waited too long: it copied the reference
// client's first re-send at 4 s, doubling, so a lost please-ACK packet
// (1 in 16) cost 4 s at least; a 148-packet file took 0 to 68 s against
// 0.02 s without loss, and 1 fetch in 6 gave up (exit 10) when three
// re-sent ACKs were lost. Since, the re-send wait follows the measured
// round trip (RFC 6298; the 4 s only before any sample, the idle timeout
// still the bound), and the ACK is re-sent after an eighth of that wait
// when only a window's last packet is missing. TestLostWindowEnd and
// TestLostACKs replay such losses deterministically. The figures are the
// issue's, from the live server; they were not measured again here.
package prospero
