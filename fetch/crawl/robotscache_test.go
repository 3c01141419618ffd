package crawl

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// mapCache is a RobotsCache in memory, as a fleet's shared store would
// be: one fetch a host, its callers waiting for it.
type mapCache struct {
	mu      sync.Mutex
	files   map[string]RobotsFile
	loads   int
	fetches int
}

func (m *mapCache) Load(ctx context.Context, host string, get func(context.Context) (RobotsFile, error)) (RobotsFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads++
	if f, ok := m.files[host]; ok {
		return f, nil
	}
	m.fetches++
	f, err := get(ctx)
	if err != nil {
		return f, err
	}
	if m.files == nil {
		m.files = map[string]RobotsFile{}
	}
	m.files[host] = f
	return f, nil
}

// Crawlers sharing a RobotsCache fetch a host's robots.txt once between
// them, and one obeys the file another fetched: a crawler whose cache
// holds a file that disallows a path never fetches robots.txt and leaves
// the path out. A host that cannot be reached is not kept.
func TestRobotsCache(t *testing.T) {
	s := &site{pages: map[string]page{
		"http://web.example/robots.txt": {body: "User-agent: *\nDisallow: /private\n"},
		"http://web.example/":           {links: []string{"http://web.example/a", "http://web.example/private/x"}},
		"http://web.example/a":          {body: "a"},
		"http://web.example/private/x":  {body: "secret"},
	}}
	cache := &mapCache{}
	want := []string{"0 http://web.example/", "1 http://web.example/a"}
	for i := range 3 {
		got, st := visits(t, &Crawler{Client: s.client("http"), Depth: 1, RobotsCache: cache}, "http://web.example/")
		if !slices.Equal(got, want) || st.Robots != 1 {
			t.Errorf("crawler %d visited %q (robots %d), want %q", i, got, st.Robots, want)
		}
	}
	if n := s.count("http://web.example/robots.txt"); n != 1 || cache.fetches != 1 || cache.loads != 3 {
		t.Errorf("robots.txt requested %d times (cache: %d loads, %d fetches), want once for three crawlers", n, cache.loads, cache.fetches)
	}
	if s.count("http://web.example/private/x") != 0 {
		t.Error("a path robots.txt disallows was fetched")
	}

	// Another host's file, fetched by "another worker": kept in the cache
	// only; this site's robots.txt allows everything.
	s = &site{pages: map[string]page{
		"http://other.example/robots.txt":       {body: "User-agent: *\nAllow: /\n"},
		"http://other.example/":                 {links: []string{"http://other.example/a", "http://other.example/secret/y"}},
		"http://other.example/a":                {body: "a"},
		"http://other.example/secret/y":         {body: "y"},
		"http://unreachable.example/":           {err: fetch.Errorf(fetch.Unavailable, "connection refused")},
		"http://unreachable.example/robots.txt": {err: fetch.Errorf(fetch.Unavailable, "connection refused")},
	}}
	cache = &mapCache{files: map[string]RobotsFile{"http://other.example:80": {Status: 200, Body: []byte("User-agent: *\nDisallow: /secret/\n")}}}
	got, st := visits(t, &Crawler{Client: s.client("http"), Depth: 1, RobotsCache: cache}, "http://other.example/", "http://unreachable.example/")
	if want := []string{"0 http://other.example/", "1 http://other.example/a", "ERR http://unreachable.example/"}; !slices.Equal(got, want) || st.Robots != 1 {
		t.Errorf("visited %q (robots %d), want %q", got, st.Robots, want)
	}
	if n := s.count("http://other.example/robots.txt"); n != 0 {
		t.Errorf("robots.txt requested %d times, want never: the cache holds it", n)
	}
	if _, kept := cache.files["http://unreachable.example:80"]; kept || cache.fetches != 1 {
		t.Errorf("an unreachable host's robots.txt kept %v (fetches %d), want not kept, one fetch", kept, cache.fetches)
	}
}
