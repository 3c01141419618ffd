package fetchtest

import (
	"io"
	"net"
	"os"
)

// SpliceFile is an output file for tests of a handler's splice path: it
// notes whether its ReadFrom was handed a TCP socket itself (within an
// *io.LimitedReader, the reader an *os.File splices from on Linux), and
// shows the socket to OnSocket when that is not nil.
type SpliceFile struct {
	*os.File
	Spliced  bool
	OnSocket func(*net.TCPConn)
}

// ReadFrom notes the socket, then lets the *os.File copy.
func (s *SpliceFile) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if tc, ok := lr.R.(*net.TCPConn); ok {
			s.Spliced = true
			if s.OnSocket != nil {
				s.OnSocket(tc)
			}
		}
	}
	return s.File.ReadFrom(r)
}
