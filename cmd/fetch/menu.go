package main

import (
	"io"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/schemes/gopher"
	"github.com/rfc1738/fetch/schemes/nntp"
)

// renderMenu writes a menu or list resource for reading (--menu): gopher
// menus, FTP listings and news lists one item a line with its URL; other lists (WAIS hits
// are rendered by their handler already) as they come.
func renderMenu(w io.Writer, res *fetch.Resource) error {
	switch res.URL.Family() {
	case "gopher":
		if res.Kind == fetch.KindMenu {
			return gopher.WriteMenu(w, res.Body, res.URL)
		}
	case "ftp":
		if res.Kind == fetch.KindDirectory {
			return ftp.WriteListing(w, res.Body, res.URL)
		}
	case "news", "nntp":
		return nntp.Render(w, res)
	}
	_, err := io.Copy(w, res.Body)
	return err
}
