package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/cookies"
	"github.com/rfc1738/fetch/url"
	"golang.org/x/time/rate"
)

// version is the program's version, also sent where a protocol names its
// client (HTTP's User-Agent).
const version = "0.1.0"

// run is the whole command: it returns the exit code (CONTRACT §5).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if len(args) > 0 {
		switch args[0] {
		case "parse":
			return runParse(args[1:], stdout, stderr)
		case "enqueue", "worker", "results":
			return handOver(ctx, args, stdin, stdout, stderr)
		case "completion":
			return runCompletion(args[1:], stdout, stderr)
		case "man":
			writeMan(stdout)
			return 0
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
	c, kfiles, closeK, err := loadConfig(args, c, stdin)
	defer closeK()
	if err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		return 2
	}
	src, err := openSource(c.urls, kfiles, c.globOff)
	if err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		if errors.Is(err, fetch.Malformed) {
			return 3
		}
		return 2
	}
	src.keepValues = strings.Contains(c.output, "#")
	first, urls, stop := peek(src.all(), 2)
	defer stop()
	if len(first) == 0 {
		if src.err != nil {
			fmt.Fprintf(stderr, "fetch: %v\n", src.err)
			return 2
		}
		fmt.Fprintln(stderr, "fetch: no URL given (see fetch --help)")
		return 2
	}
	many := len(first) > 1
	if c.output != "" && many && !src.keepValues {
		fmt.Fprintln(stderr, "fetch: -o names one file, but several URLs were given (use -O, --output-dir, or #1 in -o with a glob)")
		return 2
	}
	if (c.warc.maxSize > 0 || c.warc.cdx) && c.warc.path == "" {
		fmt.Fprintln(stderr, "fetch: --warc-max-size and --warc-cdx go with --warc-file")
		return 2
	}
	if len(c.batch.m.given) > 0 && !c.batch.recursive {
		fmt.Fprintf(stderr, "fetch: %s goes with -r: without it there is no mirror for it to shape\n", c.batch.m.given[0])
		return 2
	}
	if c.batch.recursive && (c.output != "" || c.batch.list) {
		fmt.Fprintln(stderr, "fetch: -r writes many files, laid out as host/path: -o and --list do not go with it (use --output-dir)")
		return 2
	}
	if c.remoteHeaderName && (!c.remoteName || c.output != "" || c.resume) {
		fmt.Fprintln(stderr, "fetch: -J names the file -O writes (and cannot go with -o or -C -)")
		return 2
	}
	if c.resume && c.output == "" && !c.remoteName {
		fmt.Fprintln(stderr, "fetch: -C - needs -o or -O: there is no file to resume")
		return 2
	}
	var wo *writeOut
	if c.hasWriteOut {
		if c.batch.list || c.batch.recursive || c.dryRun {
			fmt.Fprintln(stderr, "fetch: -w reports on transfers: --list, -r and --dry-run make none")
			return 2
		}
		format, err := readWriteOut(c.writeOut, stdin)
		if err == nil {
			wo, err = parseWriteOut(format)
		}
		if err != nil {
			fmt.Fprintf(stderr, "fetch: -w: %v\n", err)
			return 2
		}
	}
	traceW, closeTrace, err := openTrace(c, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "fetch: --trace: %v\n", err)
		return 2
	}
	defer closeTrace()
	c.traceW = traceW
	c.warc.prepare(&c.handlers.http)
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
	defer func() {
		// The WARC file closed, and the index written: a failure of
		// either fails a run that had not failed.
		if err := c.warc.finish(); err != nil {
			fmt.Fprintf(stderr, "fetch: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}()

	env := &runEnv{cfg: c, client: client, stdin: stdin, stdout: stdout, stderr: stderr, many: many, wo: wo, src: src}
	if c.failWithBody {
		env.errPages = &errorBodies{pages: map[int]*spool{}}
	}
	if c.etagCompare != "" {
		if env.etag, err = readETag(c.etagCompare); err != nil {
			fmt.Fprintf(stderr, "fetch: --etag-compare: %v\n", err)
			return 2
		}
	}
	if c.retry > 0 && !c.head && !c.menu {
		env.resume = &resumer{files: map[int]*partial{}, out: map[int]int64{}}
	}
	if c.traceW != nil && c.parallel > 1 && many {
		// Parallel traces interleave: each line names its URL's number.
		env.trace = client.Trace // one lock for every line
	}
	if c.hasData {
		msg, err := env.message()
		if err != nil {
			fmt.Fprintf(stderr, "fetch: --data: %v\n", err)
			return 2
		}
		env.msg = msg
	}
	switch {
	case c.batch.list:
		code = env.listAll(ctx, urls)
	case c.batch.recursive:
		code = env.mirror(ctx, urls)
	case c.dryRun:
		code = env.plans(urls)
	default:
		code = env.all(ctx, urls)
	}
	if jar, ok := client.Jar.(*cookies.Jar); ok {
		if err := c.cookies.save(jar, stdout); err != nil {
			fmt.Fprintf(stderr, "fetch: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	if src.err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", src.err)
		if code == 0 {
			code = 2
		}
	}
	return code
}

// newClient builds the fetch.Client the options describe, with every
// built-in scheme registered.
func newClient(c *config, stderr io.Writer) (*fetch.Client, error) {
	cl := &fetch.Client{
		Parser:         url.Parser{Lenient: !c.strict, MapHost: fetch.IDNAHost},
		Policy:         c.policy,
		ConnectTimeout: c.connectTO,
		PerHost:        c.perHost,
		MaxRedirects:   c.maxRedirs,
	}
	cl.Policy.AllowPortOverride = c.portOK
	if c.traceW != nil {
		cl.Trace = fetch.NewTrace(c.traceW) // -v, --trace
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
	if c.tls.set() {
		if cl.TLS == nil {
			cl.TLS = &tls.Config{}
		}
		if err := c.tls.apply(cl.TLS); err != nil {
			return nil, err
		}
	}
	if c.hasUser {
		name, pass, hasPass := strings.Cut(c.user, ":")
		cl.User = &url.Userinfo{Username: name, Password: pass, HasPassword: hasPass}
	}
	if c.handlers.telnet.Advise == nil && !c.silent {
		c.handlers.telnet.Advise = stderr // RFC 1738 §3.8: the login is advisory, shown to the user
	}
	if c.handlers.telnet.Width == 0 {
		// The window size a telnet server is told (NAWS): this
		// terminal's, on standard output or input.
		c.handlers.telnet.Width, c.handlers.telnet.Height = terminalSize()
	}
	if c.handlers.http.UserAgent == "" {
		c.handlers.http.UserAgent = "fetch/" + version
	}
	c.net.apply(cl, os.Getenv)
	jar, err := c.cookies.newJar()
	if err != nil {
		return nil, err
	}
	if jar != nil {
		cl.Jar = jar
	}
	c.handlers.register(cl)
	return cl, nil
}

// runEnv is the state of one run of the command.
type runEnv struct {
	cfg      *config
	client   *fetch.Client
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	msg      []byte       // the --data message, read once
	wo       *writeOut    // -w; nil without
	src      *urlSource   // the URLs, and their glob values for -o's #N
	errPages *errorBodies // --fail-with-body; nil without
	resume   *resumer     // with --retry, what cut attempts left; nil without
	etag     string       // --etag-compare's ETag; "" sends no condition
	trace    *fetch.Trace // with parallel -v, the trace each transfer prefixes
	many     bool         // more than one URL
	errMu    sync.Mutex

	ttyOnce sync.Once // see isTerminal
	tty     bool

	named sync.Map // URL index → the file -J named

	claimMu sync.Mutex
	claims  map[string]int // file → index of the URL writing it (claim)

	failMu    sync.Mutex
	firstFail int // index of the first URL that failed, in order
	failCode  int // its exit code; 0 while none failed
}

// all fetches every URL on a fetch.Batch, up to --parallel at once, and
// returns the exit code of the first failure in command-line order.
func (e *runEnv) all(ctx context.Context, urls iter.Seq[string]) int {
	c := e.cfg
	par := c.parallel
	b := &fetch.Batch{
		Client:   e.client,
		Parallel: par,
		PerHost:  c.perHost,
		Rate:     rate.Limit(c.batch.rate),
		Retry: fetch.RetryPolicy{Attempts: c.retry, Delay: c.retryDelay, MaxTime: c.retryMaxTime,
			AllErrors: c.retryAll},
		Strict:          c.strict,
		FetchDuplicates: true, // each URL given is fetched, as often as given
		AttemptTimeout:  c.maxTime,
		Request:         e.request,
		Do:              e.do,
		OnRetry:         e.onRetry,
	}
	prog := e.newProgress(par > 1)
	defer prog.wait()
	// With parallel transfers, stdout gets each URL's bytes whole and in
	// command-line order: transfers spool (in memory, then in an unlinked
	// temporary file), copied out in order as each completes. The spools
	// waiting are bounded: the URLs are not read further ahead. With -O
	// every URL's bytes go to its own file (or it fails): nothing is
	// spooled, and no URL waits on another's turn.
	var sp *spooler
	if par > 1 && e.many && !c.allToFiles() {
		sp = newSpooler(2*par+16, e.stdout)
		urls = sp.number(urls)
		go sp.flush(e.writeFailed)
	}
	err := b.Run(ctx, prog.count(urls), func(ctx context.Context, r *fetch.Result) error {
		var out io.Writer = e.stdout
		var s *spool
		if sp != nil {
			s = sp.get(r.Index)
			if r.URL != nil {
				s.url = r.URL.Redacted()
			}
			out = s
		}
		err := e.result(ctx, r, out, prog)
		if err == nil || r.Err != nil { // this URL's last word
			if r.Err != nil {
				e.writeErrorBody(out, r)
			} else {
				drop(e.errPages.take(r.Index))
			}
			e.writeOutFor(out, r, r.Err)
			e.src.forget(r.Index)
			e.named.Delete(r.Index)
			prog.finished(false)
			if s != nil {
				s.finish() // its bytes may go out
			}
		}
		return err
	})
	if sp != nil {
		sp.close()
	}
	if err != nil && ctx.Err() == nil {
		e.failAt(-1, err)
	}
	e.failMu.Lock()
	defer e.failMu.Unlock()
	return e.failCode
}

// do fetches one request: the one place a transfer of the run goes to the
// network.
func (e *runEnv) do(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	if e.cfg.menu && !e.cfg.head && ftpDirectory(req.URL) {
		// To stdout or to a file alike: the name list NLST gives cannot
		// tell a directory from a file.
		return e.ftpMenu(ctx, req), nil
	}
	res, err := e.cfg.warc.do(ctx, e.client, req) // recorded with --warc-file
	if err != nil {
		return nil, err
	}
	if err := fetch.LimitSize(res, e.cfg.maxFilesize); err != nil {
		res.Body.Close()
		return nil, err
	}
	res.Body = fetch.LimitRate(ctx, res.Body, e.cfg.limitRate)
	if req.Timing != nil {
		res.Body = req.Timing.Body(res.Body) // -w's first byte, end and size
	}
	return res, err
}

// ftpMenu is --menu of an FTP directory: the directory as the
// Lister reads it, rendered for reading (directories' URLs end in "/"),
// streamed as the body of the transfer. A failure to list is the body's
// read error.
func (e *runEnv) ftpMenu(ctx context.Context, req *fetch.Request) *fetch.Resource {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(renderFTPMenu(ctx, e.client, pw, req)) }()
	return &fetch.Resource{URL: req.URL, Kind: fetch.ResourceFile, Size: -1, Body: pr}
}

// failAt records the failure of URL i (-1: the run itself) with the exit
// code of err, reporting it on stderr.
func (e *runEnv) failAt(i int, err error) {
	code := e.fail(err)
	e.failMu.Lock()
	defer e.failMu.Unlock()
	if e.failCode == 0 || i < e.firstFail {
		e.firstFail, e.failCode = i, code
	}
}

// writeFailed records that URL i's bytes could not be written to stdout.
func (e *runEnv) writeFailed(i int, u string, err error) {
	e.failAt(i, &fetch.Error{Op: "write", URL: u, Kind: fetch.Other, Err: err})
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
	return fetch.ExitCode(err)
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
