package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// config is everything the command line sets.
type config struct {
	output           string // -o
	remoteName       bool   // -O
	outputDir        string // --output-dir
	createDirs       bool   // --create-dirs
	writeOut         string // -w FORMAT or @FILE
	hasWriteOut      bool
	failWithBody     bool  // --fail-with-body
	maxFilesize      int64 // --max-filesize; 0: none
	limitRate        int64 // --limit-rate, bytes a second; 0: none
	inputFiles       []string
	parallel         int
	perHost          int
	user             string // -u USER[:PASS]
	hasUser          bool
	silent           bool
	showErrors       bool
	verbose          bool
	head             bool
	json             bool
	jsonShaped       bool // an option whose output --json shapes was given
	connectTO        time.Duration
	maxTime          time.Duration
	resume           bool // -C -
	retry            int
	maxRedirs        int           // --max-redirs: fetch.Client.MaxRedirects
	retryDelay       time.Duration // --retry-delay
	retryMaxTime     time.Duration // --retry-max-time
	retryAll         bool          // --retry-all-errors
	globOff          bool          // -g
	timeCond         time.Time     // -z DATE
	timeCondBefore   bool          // -z -DATE
	remoteTime       bool          // -R
	etagSave         string        // --etag-save FILE
	etagCompare      string        // --etag-compare FILE
	remoteHeaderName bool          // -J
	traceFile        string        // --trace FILE
	configFiles      []string      // --config
	noRC             bool          // -q
	traceTime        bool          // --trace-time
	traceW           io.Writer     // where the protocol trace goes (openTrace); nil for none
	portOK           bool
	policy           fetch.Policy // options_policy.go; AllowPortOverride comes from portOK
	netrc            bool
	dryRun           bool
	strict           bool
	insecure         bool
	cacert           string
	data             string // --data @FILE | - | text
	hasData          bool
	menu             bool
	help             bool
	version          bool
	urls             []string
	handlers         schemeHandlers // the options of single schemes (handlers.go)
	header           http.Header    // -H, -e; a field with only "" is removed
	scoped           []*option      // the options given that some schemes ignore
	warc             warcSink       // --warc-file
	batch            batchConfig
	net              netConfig    // options_net.go
	auth             authConfig   // options_auth.go
	tls              tlsConfig    // options_tls.go
	cookies          cookieConfig // options_cookie.go
}

// option is one command-line option. Long names are given without dashes.
type option struct {
	long  string
	short byte   // 0 when none
	arg   string // the argument's name; "" for a switch
	help  string
	set   func(c *config, v string) error
	// json marks an option whose output --json shapes (-I, --list):
	// --json without one of them is a usage error.
	json bool
	// schemes, when set, are the URL families (url.URL.Family) the option
	// means something for: a URL of another scheme, fetched with it
	// given, is a usage error rather than the option silently ignored.
	schemes []string
}

// The options, in the order --help lists them. Each feature's file
// (options_<feature>.go) defines one slice, var xxxOptions = []option{...},
// and names it in one of these two lists: commonOptions for what every
// scheme honours, schemeOptions for the options of single schemes. There is
// no init(): the lists say in one place which options exist.
var (
	commonOptions = concat(
		generalOptions,
		transferOptions,
		condOptions,
		traceOptions,
		configOptions,
		policyOptions,
		netOptions,
		authOptions,
		tlsOptions,
		warcOptions,
		batchOwnOptions,
		mirrorOptions,
	)
	schemeOptions = concat(
		ftpOptions,
		gopherOptions,
		httpOptions,
		httpAuthOptions,
		cookieOptions,
		headerOptions,
		mailtoOptions,
		nntpOptions,
		telnetOptions,
		waisOptions,
	)
)

// concat joins option slices into a new one.
func concat(lists ...[]option) []option {
	var all []option
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

func seconds(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("want a number of seconds, got %q", v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a whole number of at least 1, got %q", v)
	}
	return n, nil
}

// generalOptions are the options of this file: output, input, parallelism,
// credentials, tracing, time limits, retries, parsing and TLS.
var generalOptions = []option{
	{long: "output", short: 'o', arg: "FILE", help: "write to FILE (atomically: renamed into place when complete); with -I, the metadata; - is stdout",
		set: func(c *config, v string) error {
			if v == "-" {
				c.output = "" // stdout, as without -o
				return nil
			}
			c.output = v
			return nil
		}},
	{long: "remote-name", short: 'O', help: "write to the URL's last path segment, in the current folder or --output-dir",
		set: func(c *config, _ string) error { c.remoteName = true; return nil }},
	{long: "output-dir", arg: "DIR", help: "folder for -O",
		set: func(c *config, v string) error { c.outputDir = v; return nil }},
	{long: "create-dirs", help: "make the folders -o, -O or --output-dir name when they do not exist",
		set: func(c *config, _ string) error { c.createDirs = true; return nil }},
	{long: "globoff", short: 'g', help: "take [ ] { } in URLs as they are, not as curl's globs ([1-100], [001-100:10], [a-z], {a,b,c}; #1 in -o)",
		set: func(c *config, _ string) error { c.globOff = true; return nil }},
	{long: "input-file", short: 'K', arg: "FILE", help: "read URLs one a line from FILE (- for stdin), and curl's config syntax: options first (name = value, --name value), url = \"...\", output = FILE after its URL; blank lines and # comments skipped",
		set: func(c *config, v string) error { c.inputFiles = append(c.inputFiles, v); return nil }},
	{long: "parallel", arg: "N", help: "up to N transfers at once (default 1)",
		set: func(c *config, v string) (err error) { c.parallel, err = positive(v); return }},
	{long: "per-host", arg: "N", help: "at most N connections to one host:port (default 2)",
		set: func(c *config, v string) (err error) { c.perHost, err = positive(v); return }},
	{long: "user", short: 'u', arg: "USER[:PASS]", help: "credentials for URLs that carry none",
		set: func(c *config, v string) error { c.user, c.hasUser = v, true; return nil }},
	{long: "netrc", help: "take credentials from ~/.netrc (or $NETRC)",
		set: func(c *config, _ string) error { c.netrc = true; return nil }},
	{long: "silent", short: 's', help: "no progress bar and no error messages",
		set: func(c *config, _ string) error { c.silent = true; return nil }},
	{long: "show-error", short: 'S', help: "with -s, still print errors",
		set: func(c *config, _ string) error { c.showErrors = true; return nil }},
	{long: "verbose", short: 'v', help: "protocol trace on stderr (passwords shown as ****)",
		set: func(c *config, _ string) error { c.verbose = true; return nil }},
	{long: "head", short: 'I', help: "metadata only: size, modification time, media type, kind",
		set: func(c *config, _ string) error { c.head = true; return nil }, json: true},
	{long: "json", help: "with -I, print one JSON object per URL (without such an option: a usage error)",
		set: func(c *config, _ string) error { c.json = true; return nil }},
	{long: "connect-timeout", arg: "S", help: "seconds allowed for each connection to open",
		set: func(c *config, v string) (err error) { c.connectTO, err = seconds(v); return }},
	{long: "max-time", short: 'm', arg: "S", help: "seconds allowed for each whole transfer",
		set: func(c *config, v string) (err error) { c.maxTime, err = seconds(v); return }},
	{long: "continue-at", short: 'C', arg: "-", help: "resume a partial -o file where the protocol allows (only '-' is accepted)",
		set: func(c *config, v string) error {
			if v != "-" {
				return fmt.Errorf("only '-C -' (resume where the file ends) is supported, got %q", v)
			}
			c.resume = true
			return nil
		}},
	{long: "retry", arg: "N", help: "retry transient failures (connect, timeout, truncation, HTTP 408, 429, 500, 502, 503, 504) up to N times, with capped backoff, going on where a cut transfer stopped; mail is never resent",
		set: func(c *config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("want a whole number, got %q", v)
			}
			c.retry = n
			return nil
		}},
	{long: "retry-delay", arg: "S", help: "with --retry, wait S seconds before each retry (default: 1s, doubling, with jitter)",
		set: func(c *config, v string) (err error) { c.retryDelay, err = seconds(v); return }},
	{long: "retry-max-time", arg: "S", help: "with --retry, start no retry more than S seconds after the first attempt",
		set: func(c *config, v string) (err error) { c.retryMaxTime, err = seconds(v); return }},
	{long: "retry-all-errors", help: "with --retry, retry every failure another try could change (not usage, malformed, unsupported, refused)",
		set: func(c *config, _ string) error { c.retryAll = true; return nil }},
	{long: "allow-port-override", help: "permit a port below 1024 that belongs to another protocol",
		set: func(c *config, _ string) error { c.portOK = true; return nil }},
	{long: "dry-run", help: "connect to nothing; print the protocol lines each URL means",
		set: func(c *config, _ string) error { c.dryRun = true; return nil }},
	{long: "strict", help: "parse exactly by RFC 1738's BNF (default: lenient)",
		set: func(c *config, _ string) error { c.strict = true; return nil }},
	{long: "insecure", short: 'k', help: "do not verify TLS certificates",
		set: func(c *config, _ string) error { c.insecure = true; return nil }},
	{long: "cacert", arg: "FILE", help: "verify TLS peers with the PEM certificates in FILE",
		set: func(c *config, v string) error { c.cacert = v; return nil }},
	{long: "data", short: 'd', arg: "DATA", schemes: []string{"mailto"}, help: "message to send (mailto): @FILE, - for stdin, or the text itself",
		set: func(c *config, v string) error { c.data, c.hasData = v, true; return nil }},
	{long: "menu", help: "render menus and listings for reading, each item with its URL",
		set: func(c *config, _ string) error { c.menu = true; return nil }},
	{long: "help", short: 'h', help: "show this help",
		set: func(c *config, _ string) error { c.help = true; return nil }},
	{long: "version", short: 'V', help: "show the version",
		set: func(c *config, _ string) error { c.version = true; return nil }},
}

// allOptions returns every option, common ones first.
func allOptions() []option { return concat(commonOptions, schemeOptions) }

// usageError is a bad command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// parseArgs parses the command line in the manner of curl: short options
// may be combined (-sS), a short option's argument may be attached (-ofile)
// or follow, long options take --name VALUE or --name=VALUE, and "--" ends
// the options.
func parseArgs(args []string) (*config, error) { return parseArgsOnto(newConfig(), args) }

// newConfig returns the configuration before any option.
func newConfig() *config { return &config{parallel: 1, perHost: 2} }

// parseArgsOnto is parseArgs over c, which config files may have set.
func parseArgsOnto(c *config, args []string) (*config, error) {
	byLong, byShort := optionIndex()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			c.urls = append(c.urls, args[i+1:]...)
			return c, c.check()
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o := byLong[name]
			if o == nil {
				return nil, &usageError{fmt.Sprintf("unknown option --%s (see fetch --help)", name)}
			}
			if o.arg == "" {
				if hasVal {
					return nil, &usageError{fmt.Sprintf("option --%s takes no value", name)}
				}
			} else if !hasVal {
				if i+1 >= len(args) {
					return nil, &usageError{fmt.Sprintf("option --%s needs %s", name, o.arg)}
				}
				i++
				val = args[i]
			}
			if err := o.set(c, val); err != nil {
				return nil, &usageError{fmt.Sprintf("--%s: %v", name, err)}
			}
			c.given(o)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o := byShort[a[j]]
				if o == nil {
					return nil, &usageError{fmt.Sprintf("unknown option -%c (see fetch --help)", a[j])}
				}
				val := ""
				if o.arg != "" {
					if j+1 < len(a) {
						val = a[j+1:]
					} else if i+1 < len(args) {
						i++
						val = args[i]
					} else {
						return nil, &usageError{fmt.Sprintf("option -%c needs %s", a[j], o.arg)}
					}
					j = len(a)
				}
				if err := o.set(c, val); err != nil {
					return nil, &usageError{fmt.Sprintf("-%c: %v", o.short, err)}
				}
				c.given(o)
			}
		default:
			c.urls = append(c.urls, a)
		}
	}
	return c, c.check()
}

// given notes that o was on the command line.
func (c *config) given(o *option) {
	c.jsonShaped = c.jsonShaped || o.json
	if len(o.schemes) > 0 && !slices.Contains(c.scoped, o) {
		c.scoped = append(c.scoped, o)
	}
}

// check refuses options that would be silently ignored together. --help
// and --version are always honoured.
func (c *config) check() error {
	if c.help || c.version {
		return nil
	}
	if c.json && !c.jsonShaped {
		var names []string
		for _, o := range allOptions() {
			if o.json && o.short != 0 {
				names = append(names, "-"+string(o.short))
			} else if o.json {
				names = append(names, "--"+o.long)
			}
		}
		return &usageError{fmt.Sprintf("--json shapes the output of %s (and of fetch parse): add one, or drop --json", strings.Join(names, ", "))}
	}
	return nil
}
