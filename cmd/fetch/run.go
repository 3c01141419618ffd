package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// version is the program's version, also sent where a protocol names its
// client (HTTP's User-Agent).
const version = "0.1.0"

// run is the whole command: it returns the exit code (CONTRACT §5).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "parse":
			return runParse(args[1:], stdout, stderr)
		case "enqueue":
			return runEnqueue(ctx, args[1:], stdin, stdout, stderr)
		case "worker":
			return runWorker(ctx, args[1:], stdout, stderr)
		case "results":
			return runResults(ctx, args[1:], stdout, stderr)
		}
	}
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		return 2
	}
	switch {
	case c.help:
		writeHelp(stdout)
		return 0
	case c.version:
		fmt.Fprintf(stdout, "fetch %s\n", version)
		return 0
	}
	for _, f := range c.inputFiles {
		urls, err := readURLFile(f, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "fetch: %v\n", err)
			return 2
		}
		c.urls = append(c.urls, urls...)
	}
	if len(c.urls) == 0 {
		fmt.Fprintln(stderr, "fetch: no URL given (see fetch --help)")
		return 2
	}
	if c.output != "" && len(c.urls) > 1 {
		fmt.Fprintln(stderr, "fetch: -o names one file, but several URLs were given (use -O or --output-dir)")
		return 2
	}
	if c.resume && c.output == "" && !c.remoteName {
		fmt.Fprintln(stderr, "fetch: -C - needs -o or -O: there is no file to resume")
		return 2
	}
	c.warc.prepare(&c.schemes)
	client, err := newClient(c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		return 2
	}
	defer client.Close()
	if err := c.warc.start(client); err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		return 2
	}
	defer c.warc.finish()

	env := &runEnv{cfg: c, client: client, stdin: stdin, stdout: stdout, stderr: stderr}
	if c.verbose && c.parallel > 1 && len(c.urls) > 1 {
		// Parallel traces interleave: each line names its URL's number.
		env.trace = fetch.NewTrace(stderr)
	}
	if c.hasData {
		msg, err := env.message()
		if err != nil {
			fmt.Fprintf(stderr, "fetch: --data: %v\n", err)
			return 2
		}
		env.msg = msg
	}
	return env.all(ctx)
}

// newClient builds the fetch.Client the options describe, with every
// built-in scheme registered.
func newClient(c *config, stderr io.Writer) (*fetch.Client, error) {
	cl := &fetch.Client{
		Parser:         url.Parser{Lenient: !c.strict},
		Policy:         c.policy,
		ConnectTimeout: c.connectTO,
		PerHost:        c.perHost,
	}
	cl.Policy.AllowPortOverride = c.portOK
	if c.verbose {
		cl.Trace = stderr
	}
	if c.insecure || c.cacert != "" {
		tc := &tls.Config{InsecureSkipVerify: c.insecure}
		if c.cacert != "" {
			pem, err := os.ReadFile(c.cacert)
			if err != nil {
				return nil, fmt.Errorf("--cacert: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--cacert: no PEM certificate in %s", c.cacert)
			}
			tc.RootCAs = pool
		}
		cl.TLS = tc
	}
	if c.hasUser {
		name, pass, hasPass := strings.Cut(c.user, ":")
		cl.User = &url.Userinfo{Username: name, Password: pass, HasPassword: hasPass}
	}
	if c.schemes.TelnetAdvise == nil && !c.silent {
		c.schemes.TelnetAdvise = stderr // RFC 1738 §3.8: the login is advisory, shown to the user
	}
	if c.schemes.HTTPUserAgent == "" {
		c.schemes.HTTPUserAgent = "fetch/" + version
	}
	schemes.Register(cl, c.schemes)
	return cl, nil
}

// readURLFile reads URLs one a line; "-" is stdin. Blank lines and lines
// starting with '#' are skipped.
func readURLFile(name string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("-K: %w", err)
		}
		defer f.Close()
		r = f
	}
	var urls []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		urls = append(urls, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("-K %s: %w", name, err)
	}
	return urls, nil
}

// runEnv is the state of one run of the command.
type runEnv struct {
	cfg    *config
	client *fetch.Client
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	msg    []byte       // the --data message, read once
	trace  *fetch.Trace // with parallel -v, the trace each transfer prefixes
	errMu  sync.Mutex
}

// all fetches every URL, up to --parallel at once, and returns the exit
// code of the first failure in command-line order.
func (e *runEnv) all(ctx context.Context) int {
	n := len(e.cfg.urls)
	codes := make([]int, n)
	par := min(e.cfg.parallel, n)
	// With parallel transfers, stdout gets each URL's bytes whole and in
	// command-line order: transfers spool to temporary files, copied out in
	// order as each completes. Memory stays flat.
	ordered := par > 1 && n > 1
	outs := make([]*spool, n)
	for i := range outs {
		if ordered {
			outs[i] = newSpool()
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if !ordered {
					codes[i] = e.one(ctx, i, e.stdout)
					continue
				}
				codes[i] = e.one(ctx, i, outs[i])
				outs[i].finish()
			}
		}()
	}
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		if !ordered {
			return
		}
		for _, s := range outs {
			s.copyTo(e.stdout)
		}
	}()
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	<-flushed
	for _, c := range codes {
		if c != 0 {
			return c
		}
	}
	return 0
}

// fail reports one failure on stderr, one line naming the URL, unless
// silent, and returns its exit code.
func (e *runEnv) fail(err error) int {
	if !e.cfg.silent || e.cfg.showErrors {
		msg := strings.ReplaceAll(err.Error(), "\n", " ") + hint(err, e.cfg)
		e.errMu.Lock()
		fmt.Fprintf(e.stderr, "fetch: %s\n", msg)
		e.errMu.Unlock()
	}
	return exitCode(err)
}

// message reads the --data argument: @FILE, "-" for stdin, or the text.
func (e *runEnv) message() ([]byte, error) {
	d := e.cfg.data
	switch {
	case d == "-":
		return io.ReadAll(e.stdin)
	case strings.HasPrefix(d, "@"):
		if d == "@-" {
			return io.ReadAll(e.stdin)
		}
		return os.ReadFile(d[1:])
	}
	return []byte(d), nil
}
