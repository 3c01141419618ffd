package url

import (
	"fmt"
)

// Error reports a malformed URL. Offset is the byte offset in Input where the
// parser stopped, and Expected says what it wanted there. Input has any
// password replaced by "****".
type Error struct {
	Input    string
	Offset   int
	Expected string
}

func (e *Error) Error() string {
	return fmt.Sprintf("parse %q: at offset %d: expected %s", e.Input, e.Offset, e.Expected)
}
