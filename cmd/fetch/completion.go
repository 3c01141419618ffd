package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// completionUsage is the usage line of fetch completion.
const completionUsage = "fetch completion bash|zsh|fish"

// runCompletion prints the completion script of a shell, made from the
// option table: every option, and file names for the options that take a
// FILE or DIR.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "fetch completion: name one shell (usage: %s)\n", completionUsage)
		return 2
	}
	switch args[0] {
	case "bash":
		writeBash(stdout)
	case "zsh":
		writeZsh(stdout)
	case "fish":
		writeFish(stdout)
	case "-h", "--help":
		fmt.Fprintf(stdout, "Usage: %s\n\nPrint a completion script for the shell, for instance:\n  source <(fetch completion bash)\n  fetch completion zsh > \"${fpath[1]}/_fetch\"\n  fetch completion fish > ~/.config/fish/completions/fetch.fish\n", completionUsage)
	default:
		fmt.Fprintf(stderr, "fetch completion: unknown shell %q (usage: %s)\n", args[0], completionUsage)
		return 2
	}
	return 0
}

// takesFile reports whether an option's argument names a file or folder.
func takesFile(o option) bool {
	return strings.Contains(o.arg, "FILE") || strings.Contains(o.arg, "DIR")
}

// subcommands are the words fetch takes in place of options.
var subcommands = []string{"parse", "completion", "man"}

func writeBash(w io.Writer) {
	var words, fileOpts []string
	for _, o := range allOptions() {
		words = append(words, "--"+o.long)
		if o.short != 0 {
			words = append(words, "-"+string(o.short))
		}
		if takesFile(o) {
			fileOpts = append(fileOpts, "--"+o.long)
			if o.short != 0 {
				fileOpts = append(fileOpts, "-"+string(o.short))
			}
		}
	}
	sort.Strings(words)
	fmt.Fprintf(w, `# bash completion for fetch; made by: fetch completion bash
_fetch() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	case "$prev" in
	%s)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac
	if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "%s" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -W "%s" -- "$cur"))
}
complete -o default -F _fetch fetch
`, strings.Join(fileOpts, "|"), strings.Join(subcommands, " "), strings.Join(words, " "))
}

// zshQuote makes s safe inside a single-quoted zsh _arguments spec.
func zshQuote(s string) string {
	s = strings.ReplaceAll(s, "'", `'\''`)
	s = strings.ReplaceAll(s, "[", `\[`)
	s = strings.ReplaceAll(s, "]", `\]`)
	s = strings.ReplaceAll(s, ":", `\:`)
	return s
}

func writeZsh(w io.Writer) {
	fmt.Fprintln(w, "#compdef fetch\n# zsh completion for fetch; made by: fetch completion zsh\n_arguments -s \\")
	for _, o := range allOptions() {
		action := ""
		if o.arg != "" {
			action = ":" + zshQuote(strings.ToLower(o.arg)) + ":"
			if takesFile(o) {
				action += "_files"
			}
		}
		help := zshQuote(firstClause(o.help))
		if o.short != 0 {
			fmt.Fprintf(w, "  '(-%c --%s)'{-%c,--%s}'[%s]%s' \\\n", o.short, o.long, o.short, o.long, help, action)
		} else {
			fmt.Fprintf(w, "  '--%s[%s]%s' \\\n", o.long, help, action)
		}
	}
	fmt.Fprintln(w, "  '*:URL:_urls'")
}

func writeFish(w io.Writer) {
	fmt.Fprintln(w, "# fish completion for fetch; made by: fetch completion fish")
	fmt.Fprintf(w, "complete -c fetch -n '__fish_use_subcommand' -a '%s'\n", strings.Join(subcommands, " "))
	for _, o := range allOptions() {
		line := "complete -c fetch -l " + o.long
		if o.short != 0 {
			line += " -s " + string(o.short)
		}
		if o.arg != "" {
			line += " -r"
			if !takesFile(o) {
				line += " -f"
			}
		}
		line += " -d '" + strings.ReplaceAll(firstClause(o.help), "'", `\'`) + "'"
		fmt.Fprintln(w, line)
	}
}

// firstClause is an option's help up to its first ';' or '(': a short
// description for a completion menu.
func firstClause(h string) string {
	if i := strings.IndexAny(h, ";("); i > 0 {
		h = h[:i]
	}
	return strings.TrimSpace(h)
}
