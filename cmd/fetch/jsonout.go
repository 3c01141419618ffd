package main

import (
	"encoding/json"

	"github.com/rfc1738/fetch/fetch"
)

// marshalJSON is json.Marshal for output meant for a terminal or a parser:
// no raw control character, C1 included (fetch.EscapeJSONControls).
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return fetch.EscapeJSONControls(b), nil
}
