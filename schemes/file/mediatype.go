package file

import (
	"mime"
	"path"
)

// commonTypes answers the media type of the commonest extensions without
// mime.TypeByExtension, whose first call reads the system's whole MIME
// database (/usr/share/mime/globs2 or /etc/mime.types) into maps: about
// 1 MiB of memory, most of what a run of `fetch file:///notes.txt` would
// otherwise use (issue 29's process start). It holds Go's own built-in
// table (package mime's, which takes precedence over a freedesktop
// database) and the few types the next most common names have there.
var commonTypes = map[string]string{
	".avif": "image/avif",
	".css":  "text/css; charset=utf-8",
	".csv":  "text/csv; charset=utf-8",
	".gif":  "image/gif",
	".gz":   "application/gzip",
	".htm":  "text/html; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".jpeg": "image/jpeg",
	".jpg":  "image/jpeg",
	".js":   "text/javascript; charset=utf-8",
	".json": "application/json",
	".md":   "text/markdown; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".pdf":  "application/pdf",
	".png":  "image/png",
	".svg":  "image/svg+xml",
	".tar":  "application/x-tar",
	".txt":  "text/plain; charset=utf-8",
	".wasm": "application/wasm",
	".webp": "image/webp",
	".xml":  "text/xml; charset=utf-8",
	".zip":  "application/zip",
}

// guessType returns the media type a file's name suggests, or "": from
// commonTypes, else from the system's MIME database. A name without an
// extension suggests none.
func guessType(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		return ""
	}
	// Exact case only, as mime looks first: ".C" need not be ".c".
	if t, ok := commonTypes[ext]; ok {
		return t
	}
	return mime.TypeByExtension(ext)
}
