package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A config file holds options, one a line, in curl's config syntax:
//
//	# a comment
//	silent
//	user-agent = "fetch from a script"
//	--retry 3
//	-o out.html
//	url = "http://127.0.0.1/x"
//
// A line is a long option's name with or without its dashes, or a short
// option with its dash, then its value after white space, '=' or ':'; a
// value in double quotes may hold white space and the escapes \\ \" \t \n
// \r. "url" names a URL. In a -K file a line may also be a URL by itself,
// and "output" (-o) after a URL names that URL's file.

// confLine is one line of a config file: an option and its value, or a
// URL.
type confLine struct {
	opt   *option
	name  string // as written, for messages
	value string
	url   string // set for a URL line
}

// configFileName is the file of default options read unless -q:
// ~/.fetchrc.
func configFileName() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".fetchrc")
}

// parseConfLine parses one line; ok is false for a blank or comment line.
func parseConfLine(line string, byLong map[string]*option, byShort map[byte]*option) (l confLine, ok bool, err error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return l, false, nil
	}
	var name, rest string
	switch {
	case strings.HasPrefix(line, "--"):
		name, rest = cutName(line[2:])
	case line[0] == '-' && len(line) > 1:
		o := byShort[line[1]]
		if o == nil {
			return l, false, fmt.Errorf("unknown option -%c", line[1])
		}
		l.opt, l.name = o, line[:2]
		rest = strings.TrimSpace(line[2:])
	default:
		name, rest = cutName(line)
		if byLong[name] == nil && name != "url" {
			return confLine{url: line}, true, nil // a URL by itself
		}
	}
	if l.opt == nil {
		l.name = "--" + name
		if name == "url" {
			l.opt = &option{long: "url", arg: "URL"}
		} else if l.opt = byLong[name]; l.opt == nil {
			return l, false, fmt.Errorf("unknown option --%s", name)
		}
	}
	if len(rest) > 0 && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimSpace(rest[1:])
	}
	if l.opt.arg == "" {
		if rest != "" {
			return l, false, fmt.Errorf("%s takes no value", l.name)
		}
		return l, true, nil
	}
	if rest == "" {
		return l, false, fmt.Errorf("%s needs %s", l.name, l.opt.arg)
	}
	if l.value, err = unquote(rest); err != nil {
		return l, false, fmt.Errorf("%s: %v", l.name, err)
	}
	if l.opt.long == "url" {
		l.url = l.value
	}
	return l, true, nil
}

// cutName splits a line into the option name at its start and the rest.
func cutName(s string) (name, rest string) {
	i := 0
	for i < len(s) && (isLetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '-' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// unquote reads a value: "quoted" with escapes, or up to white space.
func unquote(s string) (string, error) {
	if s[0] != '"' {
		if i := strings.IndexAny(s, " \t"); i >= 0 {
			if rest := strings.TrimSpace(s[i:]); rest != "" && rest[0] != '#' {
				return "", fmt.Errorf("a value with white space must be in double quotes")
			}
			s = s[:i]
		}
		return s, nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'v':
				b.WriteByte('\v')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("a quote without its end")
}

// optionIndex returns the options by long and short name.
func optionIndex() (map[string]*option, map[byte]*option) {
	opts := allOptions()
	byLong := map[string]*option{}
	byShort := map[byte]*option{}
	for i := range opts {
		byLong[opts[i].long] = &opts[i]
		if opts[i].short != 0 {
			byShort[opts[i].short] = &opts[i]
		}
	}
	return byLong, byShort
}

// applyConfigFile sets the options of a config file (--config, ~/.fetchrc)
// on c; its URLs are added to the run's. A missing file is an error only
// when must is set.
func applyConfigFile(c *config, name string, must bool) error {
	f, err := os.Open(name)
	if err != nil {
		if !must && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	byLong, byShort := optionIndex()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l, ok, err := parseConfLine(sc.Text(), byLong, byShort)
		if err == nil && ok {
			err = l.apply(c)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	return sc.Err()
}

// apply sets the line's option on c, or adds its URL.
func (l confLine) apply(c *config) error {
	if l.url != "" {
		c.urls = append(c.urls, l.url)
		return nil
	}
	if l.opt.long == "config" || l.opt.long == "input-file" {
		return fmt.Errorf("%s cannot be given in a config file", l.name)
	}
	return l.opt.set(c, l.value)
}

// readConfig reads the options that come first in a -K file, up to its
// first URL, and applies them to c. It returns a reader that yields that
// URL and the rest of the file.
func readConfig(c *config, name string, r io.Reader) (*kReader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	kr := &kReader{name: name, r: br}
	byLong, byShort := optionIndex()
	for {
		line, err := readLine(br)
		if line == "" && err != nil {
			if err == io.EOF {
				return kr, nil
			}
			return nil, err
		}
		kr.n++
		l, ok, perr := parseConfLine(line, byLong, byShort)
		if perr != nil {
			return nil, fmt.Errorf("-K %s:%d: %w", name, kr.n, perr)
		}
		if !ok {
			continue
		}
		if l.url != "" {
			kr.first = &l
			return kr, nil
		}
		if err := l.apply(c); err != nil {
			return nil, fmt.Errorf("-K %s:%d: %w", name, kr.n, err)
		}
	}
}

// readLine reads one line of at most 1 MiB, without its line end.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, isPrefix, err := br.ReadLine()
		b = append(b, part...)
		if len(b) > 1<<20 {
			return "", errors.New("a line longer than 1 MiB")
		}
		if err != nil || !isPrefix {
			return string(b), err
		}
	}
}

// kReader is a -K file after its leading options: its URLs, each with the
// output file an "output" line after it names.
type kReader struct {
	name  string
	r     *bufio.Reader
	n     int       // lines read
	first *confLine // the first URL line, read with the options
	// mayBlock is set when reading on may wait for a writer (stdin, a
	// pipe): a URL is then not held back for its output line unless
	// that line is there already.
	mayBlock bool
}

// urls yields the file's URLs and their output names ("" for none).
func (k *kReader) urls(yield func(u, output string) bool) error {
	byLong, byShort := optionIndex()
	var held *confLine
	next := func() (*confLine, error) {
		if k.first != nil {
			l := k.first
			k.first = nil
			return l, nil
		}
		for {
			line, err := readLine(k.r)
			if line == "" && err != nil {
				return nil, err
			}
			k.n++
			l, ok, perr := parseConfLine(line, byLong, byShort)
			if perr != nil {
				return nil, fmt.Errorf("-K %s:%d: %w", k.name, k.n, perr)
			}
			if ok {
				return &l, nil
			}
		}
	}
	for {
		l, err := next()
		if err != nil {
			if held != nil && !yield(held.url, "") {
				return nil
			}
			if err == io.EOF {
				return nil
			}
			return err
		}
		switch {
		case l.url != "":
			if held != nil && !yield(held.url, "") {
				return nil
			}
			held = l
			if k.mayBlock && k.r.Buffered() == 0 {
				// A stream (stdin) that has sent no more yet: its URL
				// goes now, not when the next line comes.
				if !yield(held.url, "") {
					return nil
				}
				held = nil
			}
		case l.opt.long == "output" && held != nil:
			if !yield(held.url, l.value) {
				return nil
			}
			held = nil
		default:
			return fmt.Errorf("-K %s:%d: %s after a URL: options come before the URLs (but output, which names the URL's file before it)", k.name, k.n, l.name)
		}
	}
}

// loadConfig makes the run's configuration: ~/.fetchrc (unless -q), each
// --config FILE, the options at the head of each -K file, then the command
// line's, which win. first is the command line parsed alone, to learn
// those files. It returns the -K files, ready for their URLs.
func loadConfig(args []string, first *config, stdin io.Reader) (*config, []*kReader, func(), error) {
	var closers []io.Closer
	closeAll := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	base := newConfig()
	if !first.noRC {
		if name := configFileName(); name != "" {
			if err := applyConfigFile(base, name, false); err != nil {
				return nil, nil, closeAll, err
			}
		}
	}
	for _, name := range first.configFiles {
		if err := applyConfigFile(base, name, true); err != nil {
			return nil, nil, closeAll, fmt.Errorf("--config: %w", err)
		}
	}
	var ks []*kReader
	for _, name := range first.inputFiles {
		var r io.Reader = stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return nil, nil, closeAll, fmt.Errorf("-K: %w", err)
			}
			closers = append(closers, f)
			r = f
		}
		k, err := readConfig(base, name, r)
		if err != nil {
			return nil, nil, closeAll, err
		}
		k.mayBlock = true
		if f, ok := r.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				k.mayBlock = false
			}
		}
		ks = append(ks, k)
	}
	c, err := parseArgsOnto(base, args)
	return c, ks, closeAll, err
}
