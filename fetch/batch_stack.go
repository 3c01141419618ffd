package fetch

// growStack grows the calling goroutine's stack to what a transfer needs
// while it is still shallow. A stack is copied, frame by frame, each time
// it grows: a worker that grew it on the way down through a handler and
// the callback would copy deep stacks, each copy costing tens of thousands
// of instructions, once or twice. The byte it returns is only there so
// that the frame is not optimised away.
//
//go:noinline
func growStack() byte {
	var b [16 << 10]byte
	return b[stackIndex]
}

// stackIndex is an index into growStack's frame that the compiler cannot
// see.
var stackIndex = 1
