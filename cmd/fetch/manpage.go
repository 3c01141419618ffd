package main

import (
	"fmt"
	"io"
	"strings"
)

// writeMan prints the manual page, fetch(1), in roff: made from the option
// table, as --help is, so that the two cannot drift apart. docs/fetch.1 is
// its output (see TestManPage).
func writeMan(w io.Writer) {
	var b strings.Builder
	b.WriteString(`.TH FETCH 1 "" "fetch ` + version + `" "User Commands"
.SH NAME
fetch \- fetch the resources named by URLs of every RFC 1738 scheme
.SH SYNOPSIS
.B fetch
[\fIoptions\fR] \fIURL\fR...
.br
.B fetch parse
[\fB\-\-json\fR] [\fB\-\-strict\fR] [\fB\-\-normalize\fR] \fIURL\fR...
.br
.B fetch completion
\fBbash\fR|\fBzsh\fR|\fBfish\fR
.br
.B fetch man
.SH DESCRIPTION
.B fetch
fetches each URL of the schemes of RFC 1738 (ftp, http and https, gopher,
mailto, news and nntp, telnet, wais, file, prospero) and writes its bytes
to standard output, or to files with \fB\-o\fR or \fB\-O\fR.
Where curl has an option for the same thing, fetch uses curl's name.
docs/CONTRACT.md in the source is the contract the command keeps.
`)
	for _, g := range optionGroups() {
		fmt.Fprintf(&b, ".SH %s\n", roffText(strings.ToUpper(strings.SplitN(g.title, " (", 2)[0])))
		if i := strings.Index(g.title, " ("); i >= 0 {
			fmt.Fprintf(&b, "%s\n", roffText(strings.TrimSuffix(g.title[i+2:], ")")+"."))
		}
		for _, o := range g.opts {
			b.WriteString(".TP\n")
			if o.short != 0 {
				fmt.Fprintf(&b, "\\fB\\-%c\\fR, ", o.short)
			}
			fmt.Fprintf(&b, "\\fB\\-\\-%s\\fR", roffDashes(o.long))
			if o.arg != "" {
				fmt.Fprintf(&b, " \\fI%s\\fR", roffText(o.arg))
			}
			fmt.Fprintf(&b, "\n%s\n", roffText(o.help))
		}
	}
	b.WriteString(".SH WRITE-OUT VARIABLES\nThe variables of \\fB\\-w\\fR, as \\fB%{\\fIname\\fB}\\fR; \\fB%{json}\\fR is all of them as one JSON object.\n")
	for _, v := range woVars {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", v.name, roffText(v.help))
	}
	b.WriteString(`.SH FILES
.TP
.I ~/.fetchrc
default options, one a line in curl's config syntax; not read with \fB\-q\fR
.SH EXIT STATUS
.TP
.B 0
every URL fetched completely
.TP
.B 1
a failure not covered below
.TP
.B 2
usage error: a bad option, or options that cannot go together
.TP
.B 3
malformed URL
.TP
.B 4
scheme or operation not supported
.TP
.B 5
could not resolve or connect
.TP
.B 6
login or authentication refused
.TP
.B 7
the resource does not exist
.TP
.B 8
protocol error: an unexpected or malformed reply
.TP
.B 9
transfer incomplete
.TP
.B 10
timeout
.TP
.B 11
refused by the safety policy (RFC 1738 section 6)
.TP
.B 12
the resource is larger than \fB\-\-max\-filesize\fR allows
.SH SEE ALSO
.BR curl (1),
.BR wget (1)
`)
	io.WriteString(w, b.String())
}

// roffText escapes text for roff: backslashes, and a '.' or '\” that
// would start a request at the beginning of a line; dashes become \-.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = roffDashes(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func roffDashes(s string) string { return strings.ReplaceAll(s, "-", `\-`) }
