package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/url"
)

// mirrorSchemes are the schemes -r follows links to, on the seeds' hosts:
// a gopher hole may point to its FTP tree and its web pages. Local files,
// sessions and mail are never followed.
var mirrorSchemes = []string{"ftp", "ftps", "http", "https", "gopher", "gophers", "nntp", "nntps", "news", "snews", "wais", "prospero"}

// defaultLevel is -r's depth without -l, as wget's.
const defaultLevel = 5

// mirror is -r: it crawls from the URLs given and writes each resource to
// DIR/host/path (DIR is --output-dir, else the current folder), then prints
// a summary. It returns the exit code of the first failure met.
func (e *runEnv) mirror(ctx context.Context, urls iter.Seq[string]) int {
	var seeds []string
	for u := range urls {
		seeds = append(seeds, u)
	}
	mc := &e.cfg.batch.m
	level := defaultLevel
	if e.cfg.batch.hasLevel {
		level = e.cfg.batch.level
	}
	if mc.mirror && !e.cfg.batch.hasLevel {
		level = math.MaxInt32 // --mirror: no depth limit
	}
	root := e.cfg.outputDir
	if root == "" {
		root = "."
	}
	m := &mirrorRun{e: e, root: root, cfg: mc}
	scope := crawl.Scope{Schemes: mirrorSchemes, AnyHost: mc.spanHosts}
	if !mc.parent {
		scope.Prefixes = e.mirrorPrefixes(seeds)
	}
	r := rate.Limit(e.cfg.batch.rate)
	if mc.wait > 0 && (r == 0 || rate.Limit(1/mc.wait) < r) {
		r = rate.Limit(1 / mc.wait)
	}
	c := &crawl.Crawler{
		Client:         e.client,
		Depth:          level,
		Scope:          scope,
		Parallel:       e.cfg.parallel,
		PerHost:        e.cfg.perHost,
		Rate:           r,
		RandomWait:     mc.randomWait,
		Retry:          fetch.RetryPolicy{Attempts: e.cfg.retry},
		UserAgent:      "fetch",
		IgnoreRobots:   mc.noRobots,
		FollowNofollow: mc.noRobots,
		Requisites:     mc.requisites,
		Sitemaps:       mc.sitemaps,
		Visit:          m.visit,
		Follow:         m.follow,
	}
	if mc.mirror {
		c.Stored = m.stored // timestamping: If-Modified-Since from each file's time
	}
	if mc.state != "" {
		fr, err := crawl.OpenDiskFrontier(mc.state)
		if err != nil {
			fmt.Fprintf(e.stderr, "fetch: --state: %v\n", err)
			return 1
		}
		defer fr.Close()
		c.Frontier = fr
	}
	if e.cfg.warc.w != nil {
		c.Sink = warcCrawlSink{&e.cfg.warc} // --warc-file: every resource of the mirror
	}
	m.prog = e.newProgress(true)
	start := time.Now()
	var ok []string
	for _, s := range seeds {
		if u, err := e.client.Parser.Parse(s); err == nil {
			if _, err := m.path(u.Normalize(), fetch.ResourceFile); err != nil {
				m.refused(u, err)
				continue
			}
		}
		ok = append(ok, s)
	}
	st, err := c.Run(ctx, ok...)
	m.prog.wait()
	if mc.convertLinks {
		m.convertLinks()
	}
	if err != nil {
		m.failed(fetch.Classify(err))
	}
	if !e.cfg.silent {
		e.errMu.Lock()
		fmt.Fprintf(e.stderr, "fetch: %d fetched (%s) in %v, %d failed, %d skipped; %d disallowed by robots.txt, %d links out of scope, %d to private addresses, %d to local files, %d nofollow, %d left out by the filters or for want of a file name\n",
			st.Fetched, human(st.Bytes), time.Since(start).Round(time.Millisecond), st.Failed, st.Skipped, st.Robots, st.OutOfScope, st.Private, st.Local, st.Nofollow, st.Dropped)
		if st.Unlisted > 0 {
			fmt.Fprintf(e.stderr, "fetch: the links of %d listings could not be read\n", st.Unlisted)
		}
		e.errMu.Unlock()
	}
	e.failMu.Lock()
	defer e.failMu.Unlock()
	return e.failCode
}

// warcCrawlSink records a crawl's fetches in the --warc-file.
type warcCrawlSink struct{ s *warcSink }

func (w warcCrawlSink) Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error) {
	return w.s.do(ctx, c, req)
}

// Tee records a listing the crawl made (an FTP directory's LIST) as a
// resource record.
func (w warcCrawlSink) Tee(req *fetch.Request, res *fetch.Resource) io.ReadCloser {
	if w.s.w == nil {
		return res.Body
	}
	return w.s.w.Tee(req, res)
}

var _ crawl.Recorder = warcCrawlSink{}

// mirrorPrefixes is how far -r goes from its seeds, as wget's --no-parent:
// below the folder of an http(s) or ftp seed (a page's "../" link is not
// followed up), anywhere on the host of a seed of another scheme (a
// gopher selector is no path). Each prefix is in normal form, as the
// links it is compared with.
func (e *runEnv) mirrorPrefixes(seeds []string) []string {
	var out []string
	for _, s := range seeds {
		u, err := e.client.Parser.Parse(s)
		if err != nil {
			continue
		}
		n := u.Normalize().String()
		start := strings.Index(n, "://")
		if start < 0 {
			out = append(out, n)
			continue
		}
		host := start + 3 + strings.IndexByte(n[start+3:]+"/", '/') + 1 // after the authority's "/"
		switch u.Family() {
		case "http", "ftp":
			if q := strings.IndexByte(n, '?'); q >= 0 {
				n = n[:q]
			}
			out = append(out, n[:max(host, strings.LastIndexByte(n, '/')+1)])
		default:
			out = append(out, n[:min(host, len(n))])
		}
	}
	return out
}

// mirrorRun is the state of one -r.
type mirrorRun struct {
	e     *runEnv
	cfg   *mirrorConfig
	files mirrorFiles // with --convert-links
	root  string
	prog  *multiProgress
	mu    sync.Mutex
	n     int // failures so far, for the order of exit codes
}

func (m *mirrorRun) failed(err error) {
	m.mu.Lock()
	i := m.n
	m.n++
	m.mu.Unlock()
	m.e.failAt(i, err)
}

// follow skips, before it is fetched, a link whose file name -r refuses,
// one on a host outside --domains, and a file --accept, --reject and
// their regexps keep out (a page that may hold links is fetched still,
// for them, and not kept).
func (m *mirrorRun) follow(ctx context.Context, l *crawl.Link, add func(crawl.Link)) bool {
	if err := checkMirrorPath(l.URL); err != nil { // m.path's error, without the path
		m.refused(l.URL, err)
		return false
	}
	if !m.inDomains(l.URL) {
		return false
	}
	return m.keeps(l.URL) || mayHoldLinks(l.URL, l.Kind)
}

// refused reports a URL whose file name -r refuses: a warning, and exit
// code 11 (the safety policy's) unless an earlier failure set one; the
// mirror goes on.
func (m *mirrorRun) refused(u *url.URL, err error) {
	m.failed(&fetch.Error{Op: "mirror", URL: u.Redacted(), Kind: fetch.Refused,
		Err: fmt.Errorf("skipped: no file name for it: %w", err)})
}

// visit writes one page of the crawl to its file.
func (m *mirrorRun) visit(ctx context.Context, p *crawl.Page) error {
	defer m.prog.finished(true)
	if p.Err != nil {
		m.failed(p.Err)
		return nil
	}
	res := p.Resource
	if res.Kind == fetch.ResourceSession {
		return nil
	}
	if !m.keeps(res.URL) {
		return nil // read for its links only
	}
	rel, err := m.path(res.URL, res.Kind)
	if err != nil {
		// A name reached only now (a redirect's target): skipped.
		m.refused(res.URL, err)
		return nil
	}
	var body io.Reader = res.Body
	if pw, done := m.prog.wrap(res, nil); pw != nil {
		body = io.TeeReader(res.Body, pw)
		defer done()
	}
	name := filepath.Join(m.root, rel)
	if err := writeFileAtomic(name, body, res.Size, res.ModTime); err != nil {
		if errors.Is(err, crawl.ErrTooLarge) {
			return nil // skipped, not failed
		}
		m.failed(&fetch.Error{Op: "write", URL: res.URL.Redacted(), Kind: fetch.KindOf(err), Err: err})
		return nil
	}
	m.wrote(res, name)
	return nil
}

// mirrorPath is where -r writes a resource, relative to the output folder:
// host/path as wget lays it out. The host carries its port unless it is
// the default of http, https or ftp (wget's rule; ":" becomes "+" on
// Windows). Directories, menus and lists are written as an index file in
// their folder. Path segments (a Prospero object's name) are decoded; ".", ".." and separators inside
// a segment are refused, so nothing lands outside the folder.
func mirrorPath(u *url.URL, kind fetch.ResourceKind) (string, error) {
	host := u.Host
	if host == "" {
		host = u.Scheme
	}
	if s, ok := url.LookupScheme(u.Scheme); u.EffectivePort() != 0 && (!ok || u.EffectivePort() != s.DefaultPort ||
		(u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ftp")) {
		sep := ":"
		if runtime.GOOS == "windows" {
			sep = "+"
		}
		host += sep + strconv.Itoa(u.EffectivePort())
	}
	raw, search, hasSearch := mirrorRaw(u)
	var query string
	if hasSearch {
		// As wget: "a.html?x" is a file of its own ('@' for '?' on
		// Windows), '/' in the query escaped as %2F.
		query = "?" + strings.NewReplacer("/", "%2F", "\\", "%5C", "\x00", "%00").Replace(search)
		if runtime.GOOS == "windows" {
			query = "@" + strings.NewReplacer(":", "%3A", "*", "%2A", "?", "%3F", `"`, "%22", "<", "%3C", ">", "%3E", "|", "%7C").Replace(query[1:])
		}
	}
	segs := []string{host}
	decode := u.Family() == "http"
	for s := range strings.SplitSeq(raw, "/") {
		s, err := mirrorSegment(s, decode)
		if err != nil {
			return "", err
		}
		if s != "" {
			segs = append(segs, s)
		}
	}
	listing := kind == fetch.ResourceDirectory || kind == fetch.ResourceMenu || kind == fetch.ResourceList
	if listing || len(segs) == 1 || strings.HasSuffix(raw, "/") {
		segs = append(segs, indexName(u))
	}
	segs[len(segs)-1] += query
	return filepath.Join(segs...), nil
}

// mirrorRaw returns the path of u's file on its server as mirrorPath
// lays it out, '/'-separated (an http path still encoded), and an http
// URL's search.
func mirrorRaw(u *url.URL) (raw, search string, hasSearch bool) {
	switch u.Family() {
	case "http":
		raw, search, hasSearch = strings.Cut(u.Path, "?") // the http view's Path, less its "/", without making it
	case "gopher":
		raw = strings.TrimPrefix(u.Gopher().Selector, "/")
	case "ftp":
		f := u.FTP()
		raw = strings.Join(append(append([]string(nil), f.Cwd...), f.Name), "/")
	case "prospero":
		raw = u.Prospero().HSOName // decoded, without the ;fields
	default:
		raw = u.Path
	}
	return raw, search, hasSearch
}

// mirrorSegment returns a segment of a path mirrorRaw returned as a file
// name, decoded when decode is set; "" for an empty segment, which
// mirrorPath skips. ".", ".." and separators are refused.
func mirrorSegment(s string, decode bool) (string, error) {
	if decode {
		d, err := url.Unescape(s)
		if err != nil {
			return "", err
		}
		s = d
	}
	switch {
	case s == "." || s == "..":
		return "", fmt.Errorf("the path segment %q cannot be a file name", s)
	case strings.ContainsAny(s, "/\\\x00") || runtime.GOOS == "windows" && strings.ContainsAny(s, `:*?"<>|`):
		return "", fmt.Errorf("the path segment %q holds a character a file name cannot", s)
	}
	return s, nil
}

// checkMirrorPath returns the error mirrorPath would for u (whatever the
// kind), without making the path: what a link's check needs.
func checkMirrorPath(u *url.URL) error {
	raw, _, _ := mirrorRaw(u)
	decode := u.Family() == "http"
	for s := range strings.SplitSeq(raw, "/") {
		if _, err := mirrorSegment(s, decode); err != nil {
			return err
		}
	}
	return nil
}

// indexName is the file a listing is written to in its folder.
func indexName(u *url.URL) string {
	switch u.Family() {
	case "http":
		return "index.html"
	case "gopher":
		return "gophermap"
	case "ftp":
		return ".listing"
	}
	return "index"
}
