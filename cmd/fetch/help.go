package main

import (
	"fmt"
	"io"
	"strings"
)

// writeHelp prints the usage for a newcomer: what the command does, the
// forms, every option, the exit codes, and examples.
func writeHelp(w io.Writer) {
	var b strings.Builder
	b.WriteString(`fetch - fetch the resources named by URLs of every RFC 1738 scheme:
ftp, http(s), gopher, mailto, news, nntp, telnet, wais, file, prospero.

Usage:
  fetch [options] URL...            fetch each URL; the bytes go to stdout
  ` + parseUsage + `
                                    print each URL's parsed components, or
                                    its normalized form (fetch parse --help)
  fetch enqueue [--nats URL] [-K FILE | URL...]
                                    publish fetch jobs to a work queue
  fetch worker [--nats URL] --store DIR [--parallel N] [--per-host N]
                                    fetch queued jobs into DIR
  fetch results [--nats URL]        queued, in flight, done, failed
                                    (each: fetch NAME -h; they run the program
                                    fetch-queue, beside fetch or on PATH)
  ` + completionUsage + `    a completion script for the shell
  fetch man                         the manual page, made from the options
  fetch --help | --version
`)
	for _, g := range optionGroups() {
		fmt.Fprintf(&b, "\n%s:\n", g.title)
		writeOptions(&b, g.opts)
	}
	b.WriteString("\nWrite-out variables (-w '%{name}'; %{json}: all of them as one object):\n")
	for _, v := range woVars {
		lines := wrap(v.help, 79-33)
		for i, l := range lines {
			name := ""
			if i == 0 {
				name = v.name
			}
			fmt.Fprintf(&b, "  %-30s %s\n", name, l)
		}
	}
	b.WriteString(`
Exit codes:
  0 every URL fetched completely     6 login or authentication refused
  1 other failure                    7 the resource does not exist
  2 usage error                      8 protocol error (unexpected reply)
  3 malformed URL                    9 transfer incomplete
  4 scheme or operation unsupported 10 timeout
  5 could not resolve or connect    11 refused by safety policy (RFC 1738 §6)
                                    12 larger than --max-filesize

Examples:
  fetch file:///etc/hostname
  fetch -o rfc1738.txt ftp://ftp.example.org/rfc/rfc1738.txt
  fetch --dry-run 'ftp://ftp.example.org/%2Fetc/motd'
  fetch parse --json 'gopher://gopher.example.org/7search%09words'
  fetch parse --normalize HTTP://WWW.Example.ORG:80 gopher://gopher.example.org
  fetch -I --json http://www.example.org/
  fetch -I -o meta.txt ftp://ftp.example.org/pub/big.iso
  fetch --menu gopher://gopher.example.org/1/
  NNTPSERVER=news.example.org fetch 'news:comp.infosystems.www.servers.unix'
  fetch -d @message.txt --smtp-relay 127.0.0.1:25 mailto:someone@example.org
`)
	io.WriteString(w, b.String())
}

func writeOptions(b *strings.Builder, opts []option) {
	for _, o := range opts {
		name := "    --" + o.long
		if o.short != 0 {
			name = fmt.Sprintf("-%c, --%s", o.short, o.long)
		}
		if o.arg != "" {
			name += " " + o.arg
		}
		lines := wrap(o.help, 79-33)
		if len(name) > 30 {
			fmt.Fprintf(b, "  %s\n", name)
		} else {
			fmt.Fprintf(b, "  %-30s %s\n", name, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintf(b, "  %-30s %s\n", "", l)
		}
	}
}

// wrap breaks text into lines of at most width columns at spaces (a word
// longer than width has a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// optionGroup is a titled part of the option table, as --help and the man
// page list it.
type optionGroup struct {
	title string
	opts  []option
}

// optionGroups is the option table in its parts: each slice of
// commonOptions and schemeOptions under its title, in their order.
func optionGroups() []optionGroup {
	return []optionGroup{
		{"Options", generalOptions},
		{"Transfers and what is said of them", transferOptions},
		{"Conditions and the server's metadata", condOptions},
		{"Protocol trace", traceOptions},
		{"Config files", configOptions},
		{"Safety policy", policyOptions},
		{"Network", netOptions},
		{"Authentication", authOptions},
		{"TLS", tlsOptions},
		{"Recording", warcOptions},
		{"Many URLs", batchOwnOptions},
		{"Recursion and mirrors", mirrorOptions},
		{"Options of single schemes (each read from its environment variable if named)", concat(ftpOptions, gopherOptions, httpOptions, mailtoOptions, nntpOptions, telnetOptions, waisOptions)},
		{"HTTP request header fields", headerOptions},
		{"HTTP authentication", httpAuthOptions},
		{"HTTP cookies", cookieOptions},
	}
}
