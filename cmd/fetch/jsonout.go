package main

import (
	"encoding/json"

	"github.com/rfc1738/fetch/fetch"
)

// marshalJSON is json.Marshal for output meant for a terminal or a parser
// (see fetch.SanitizeJSON).
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return fetch.SanitizeJSON(b), nil
}
