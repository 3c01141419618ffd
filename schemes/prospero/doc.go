// Package prospero implements the prospero scheme of RFC 1738 §3.11: a
// client of the Prospero Directory Service, protocol version 5, carried over
// ARDP (the Asynchronous Reliable Delivery Protocol, version 0) on UDP,
// port 1525.
//
// A URL prospero://host:port/hsoname;field=value names one object by its
// host-specific object name. Handler asks the server for the object's
// attributes (GET-OBJECT-INFO #ALL) and then delivers:
//
//   - a file with the PROSPERO-CONTENTS access method: its bytes, fetched
//     with GET-OBJECT-INFO CONTENTS and unquoted as they arrive;
//   - a file with the AFTP access method: the ftp:// URL it names, fetched
//     through Handler.Follow (the Client's FTP handler);
//   - a directory (an object without access methods): its links, one
//     prospero:// URL a line, in the server's order.
//
// The wire format follows the recordings of the Prospero Alpha.5.2a dirsrv;
// see header.go for ARDP's variable header and ardp.go for the windowed,
// retransmitting exchange.
package prospero
