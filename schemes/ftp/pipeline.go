package ftp

import (
	"errors"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// A file's SIZE and the EPSV of its data connection go to the server in
// one write, and their replies are read in turn: one round trip, one
// system call and one wait fewer per file than a command at a time. RFC
// 959's control connection is a stream of command lines, and servers read
// it as one (vsftpd, proftpd, pure-ftpd); a server that reads a single
// command from each packet and drops the rest never answers the second.
// When the second reply is not there soon after the first, the connection
// is given up, the request starts again on a new one, and the server is
// sent one command at a time from then on.

// pipeGrace is how long after the first reply of a pipelined pair the
// second may take, beyond four times the first's round trip, before the
// server is taken to have lost it.
const pipeGrace = time.Second

// errPipeLost is the failure of a pipelined pair whose second reply did
// not come: the connection is out of step.
var errPipeLost = errors.New("no reply to the second of two commands sent together: the server seems to read one command at a time")

// pipelines reports whether the next file's SIZE and EPSV may go out
// together on c: passive mode with EPSV, SIZE known to the server, no
// REST or MDTM between them, and a server that has not lost a pipelined
// command to this Handler.
func (h *Handler) pipelines(c *ctrl, req *fetch.Request, key string) bool {
	if h.Active || c.noEPSV || c.noSize || req.Offset > 0 || !req.IfModifiedSince.IsZero() || req.WantModTime {
		return false
	}
	_, lost := h.unpiped.Load(key)
	return !lost
}

// sizeAndPassive sends "SIZE name" and EPSV together and reads their
// replies: the file's size (-1 when the server cannot tell) and the
// passive port to dial (PASV is asked when the server has no EPSV). When
// EPSV's reply does not follow SIZE's in time, the error wraps
// errPipeLost.
func (c *ctrl) sizeAndPassive(name string) (int64, *dataSetup, error) {
	line := "SIZE " + name
	if err := c.queue(line, line); err != nil {
		return -1, nil, err
	}
	start := time.Now()
	if err := c.send("EPSV", "EPSV"); err != nil {
		return -1, nil, err
	}
	code, msg, err := c.read(line)
	if err != nil {
		return -1, nil, err
	}
	size := c.sizeReply(code, msg)
	wait := min(pipeGrace+4*time.Since(start), c.idle)
	code, msg, err = c.readWithin("EPSV", wait)
	if errors.Is(err, wire.ErrReplyTimeout) && wait < c.idle {
		c.trace.Notef("no reply to EPSV within %v of SIZE's: the server loses commands sent together; sending one at a time", wait.Round(time.Millisecond))
		return -1, nil, &fetch.Error{Kind: fetch.Timeout, Err: errPipeLost}
	}
	if err != nil {
		return -1, nil, err
	}
	ds, err := c.epsvReply(code, msg)
	if ds == nil && err == nil {
		ds, err = c.pasv()
	}
	return size, ds, err
}
