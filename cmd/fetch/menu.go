package main

import (
	"context"
	"io"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/schemes/gopher"
	"github.com/rfc1738/fetch/schemes/nntp"
	"github.com/rfc1738/fetch/schemes/prospero"
	"github.com/rfc1738/fetch/url"
)

// renderMenu writes a menu or list resource for reading (--menu): gopher
// menus, FTP listings, Prospero directories and news lists one item a line with its URL; other lists (WAIS hits
// are rendered by their handler already) as they come.
func renderMenu(w io.Writer, res *fetch.Resource) error {
	switch res.URL.Family() {
	case "gopher":
		if res.Kind == fetch.ResourceMenu {
			return gopher.WriteMenu(w, res.Body, res.URL)
		}
	case "ftp":
		if res.Kind == fetch.ResourceDirectory {
			return ftp.WriteListing(w, res.Body, res.URL)
		}
	case "news", "nntp":
		return nntp.Render(w, res)
	case "prospero":
		if res.Kind == fetch.ResourceDirectory {
			return prospero.WriteMenu(w, res.Body)
		}
	}
	_, err := io.Copy(w, res.Body)
	return err
}

// ftpDirectory reports whether u is an ftp or ftps URL naming a directory
// (a path ending in "/", or ";type=d"): --menu lists it through the FTP
// handler's Lister, whose entries tell directories from files.
func ftpDirectory(u *url.URL) bool {
	if u.Family() != "ftp" {
		return false
	}
	v := u.FTP()
	return v.Typecode == "d" || v.Name == ""
}

// renderFTPMenu writes the FTP directory req names for reading (--menu),
// one entry a line with its URL, directories' URLs ending in "/".
func renderFTPMenu(ctx context.Context, c *fetch.Client, w io.Writer, req *fetch.Request) error {
	l, err := c.List(ctx, req)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := ftp.WriteEntries(w, l); err != nil {
		return err
	}
	return l.Close()
}
