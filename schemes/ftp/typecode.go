package ftp

import (
	"path"
	"strings"
)

// textSuffixes are the name suffixes taken to mean text, transferred with
// TYPE A when the URL has no typecode (RFC 1738 §3.2.3). Every other name
// is transferred with TYPE I, which never alters a byte.
var textSuffixes = map[string]bool{
	".txt": true, ".text": true, ".asc": true, ".md": true, ".rst": true,
	".htm": true, ".html": true, ".css": true, ".csv": true, ".tsv": true,
	".xml": true, ".json": true, ".ini": true, ".cfg": true, ".conf": true,
	".log": true, ".diff": true, ".patch": true, ".c": true, ".h": true,
	".go": true, ".py": true, ".pl": true, ".sh": true, ".tex": true,
	".me": true, ".1st": true, ".lsm": true, ".nfo": true,
}

// textNames are whole names taken to mean text.
var textNames = map[string]bool{
	"readme": true, "changelog": true, "news": true, "copying": true,
	"install": true, "license": true, "authors": true, "todo": true,
	"motd": true, "index": true, "ls-lr": true,
}

// guessType returns "A" or "I" for a name without a typecode, and the
// reason, for the trace.
func guessType(name string) (typ, why string) {
	ext := strings.ToLower(path.Ext(name))
	switch {
	case ext != "" && textSuffixes[ext]:
		return "A", "the suffix " + ext + " names text"
	case ext == "" && textNames[strings.ToLower(name)]:
		return "A", "the name " + name + " names text"
	case ext == "":
		return "I", "the name has no suffix"
	}
	return "I", "the suffix " + ext + " does not name text"
}
