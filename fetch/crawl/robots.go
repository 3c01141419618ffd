package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
	"golang.org/x/sync/singleflight"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// robotsMax bounds the robots.txt read (Google reads 500 KiB; RFC 9309 §2.5
// asks for at least 500 KiB).
const robotsMax = 512 << 10

// Robots answers whether a URL may be fetched under its host's robots.txt
// (RFC 9309), for http and https; every other scheme is allowed. Each
// host's file is fetched once, through the Client, and kept. A missing file
// (4xx) allows everything; a server error (5xx) disallows everything, as
// the RFC asks; a host that cannot be reached is allowed, since its pages
// will fail on their own.
type Robots struct {
	// Client fetches robots.txt.
	Client *fetch.Client
	// UserAgent is the product token our rules are found under; "" means
	// "fetch".
	UserAgent string
	// Do, when set, fetches robots.txt in place of Client.Do: a crawler
	// makes it wait for the host's turn under its rate, and retries it,
	// as any other request.
	Do func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error)
	// Cache, when set, is asked for each host's file first, and keeps the
	// one fetched (see RobotsCache); nil fetches every host's file once
	// for this Robots.
	Cache RobotsCache

	mu    sync.Mutex
	hosts map[string]*robotstxt.RobotsData
	group singleflight.Group
}

// robotsKey is the host a robots.txt governs: scheme, host and port.
func robotsKey(u *url.URL) string { return u.Scheme + "://" + strings.ToLower(u.HostPort()) }

func isHTTP(u *url.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

func (r *Robots) agent() string {
	if r.UserAgent != "" {
		return r.UserAgent
	}
	return "fetch"
}

// Allowed reports whether u may be fetched. It fetches the host's
// robots.txt the first time it meets the host; concurrent callers for one
// host wait for that one fetch.
func (r *Robots) Allowed(ctx context.Context, u *url.URL) bool {
	if !isHTTP(u) {
		return true
	}
	d := r.data(ctx, u)
	if d == nil {
		return true
	}
	p := u.HTTP()
	path := p.Path
	if p.HasSearch {
		path += "?" + p.Search
	}
	return d.TestAgent(path, r.agent())
}

// CrawlDelay returns the Crawl-delay the host's robots.txt sets for us, or
// zero. It does not fetch: it answers for hosts Allowed has met.
func (r *Robots) CrawlDelay(u *url.URL) time.Duration {
	if !isHTTP(u) {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := r.hosts[robotsKey(u)]; d != nil {
		return d.FindGroup(r.agent()).CrawlDelay
	}
	return 0
}

// Sitemaps returns the sitemaps the host's robots.txt names (its
// Sitemap: lines). It does not fetch: it answers for hosts Allowed has
// met.
func (r *Robots) Sitemaps(u *url.URL) []string {
	if !isHTTP(u) {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := r.hosts[robotsKey(u)]; d != nil {
		return d.Sitemaps
	}
	return nil
}

func (r *Robots) data(ctx context.Context, u *url.URL) *robotstxt.RobotsData {
	key := robotsKey(u)
	r.mu.Lock()
	d, ok := r.hosts[key]
	r.mu.Unlock()
	if ok {
		return d
	}
	v, _, _ := r.group.Do(key, func() (any, error) {
		g := r.fetch(ctx, u)
		r.mu.Lock()
		if r.hosts == nil {
			r.hosts = make(map[string]*robotstxt.RobotsData)
		}
		r.hosts[key] = g
		r.mu.Unlock()
		return g, nil
	})
	return v.(*robotstxt.RobotsData)
}

// fetch reads and parses the host's robots.txt, through the Cache when
// there is one; nil allows everything.
func (r *Robots) fetch(ctx context.Context, u *url.URL) *robotstxt.RobotsData {
	get := func(ctx context.Context) (RobotsFile, error) { return r.get(ctx, u) }
	var f RobotsFile
	var err error
	if r.Cache != nil {
		f, err = r.Cache.Load(ctx, robotsKey(u), get)
	} else {
		f, err = get(ctx)
	}
	if err != nil {
		return nil // unreachable: allow, the pages will fail on their own
	}
	data, err := robotstxt.FromStatusAndBytes(f.Status, f.Body)
	if err != nil {
		return nil
	}
	return data
}

// errUnreachable says a host's robots.txt could not be had: neither a
// file nor a status.
var errUnreachable = errors.New("crawl: robots.txt unreachable")

// get fetches the host's robots.txt: its status and body, or
// errUnreachable.
func (r *Robots) get(ctx context.Context, u *url.URL) (RobotsFile, error) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Port: u.Port, Hier: true, Slash: true, Path: "robots.txt"}
	do := r.Do
	if do == nil {
		do = r.Client.Do
	}
	res, err := do(ctx, &fetch.Request{URL: ru, Hop: true})
	if err == nil {
		var body []byte
		body, err = io.ReadAll(io.LimitReader(res.Body, robotsMax))
		res.Body.Close()
		status := 200
		if res.Status != 0 {
			status = res.Status
		}
		if err == nil {
			return RobotsFile{Status: status, Body: body}, nil
		}
	}
	var re *fetch.ReplyError
	switch {
	case errors.As(err, &re) && re.Code >= 400:
		return RobotsFile{Status: re.Code}, nil
	case fetch.KindOf(err) == fetch.NotFound:
		return RobotsFile{Status: 404}, nil
	}
	return RobotsFile{}, fmt.Errorf("%w: %w", errUnreachable, err)
}
