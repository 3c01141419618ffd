package http

// waiting is what an idle connection's socket has waiting (see
// idleCheck).
type waiting int

const (
	waitNothing waiting = iota
	waitBytes           // bytes no request asked for
	waitEnd             // the end of the stream, or an error: the server closed it
)
