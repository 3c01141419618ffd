package main

import (
	"errors"

	"github.com/rfc1738/fetch/fetch"
)

// hint returns what the command adds to a failure's line to say which
// option would change the outcome (the library's errors name no options),
// or "".
func hint(err error) string {
	switch {
	case errors.Is(err, fetch.ErrPortOverride):
		return " (use --allow-port-override to permit it)"
	}
	return ""
}
