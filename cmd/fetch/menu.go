package main

import (
	"io"

	"github.com/rfc1738/fetch/fetch"
)

// renderMenu writes a menu or list resource for reading (--menu).
func renderMenu(w io.Writer, res *fetch.Resource) error {
	_, err := io.Copy(w, res.Body)
	return err
}
