package prospero

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

// quick is a Handler that re-sends after 10 ms, so that loss costs little.
// On a loaded machine a server's next packet often comes later than that,
// so a test using it must not mind a needless re-send.
func quick() *Handler { return &Handler{Retransmit: 10 * time.Millisecond} }

// steady is a Handler whose first re-send wait, 1 s, outlasts the longest
// pause between two datagrams of a burst on a loaded machine (a few hundred
// ms), so that it re-sends only for a packet that is really lost: for tests
// that count the ACKs or requests sent after a deliberate loss. A test that
// loses nothing and counts them uses the reference client's 4 s (&Handler{}).
func steady() *Handler { return &Handler{Retransmit: time.Second} }

func mustParse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.ParseLenient(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// getVia is get through c (pipeClient's, say).
func getVia(t testing.TB, c *fetch.Client, raw string, idle time.Duration) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, &fetch.Request{URL: mustParse(t, raw), IdleTimeout: idle})
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// get fetches raw with h and reads the whole body.
func get(t testing.TB, h *Handler, raw string, idle time.Duration) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := &fetch.Request{URL: mustParse(t, raw), IdleTimeout: idle}
	res, err := h.Fetch(ctx, req)
	if err != nil {
		if res != nil {
			t.Errorf("Fetch(%s) returned a Resource with error %v", raw, err)
		}
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func simURL(s *simServer, hsoname string) string {
	return "prospero://" + s.addr() + "/" + hsoname
}

// TestFetchReadme is the acceptance case: fetch
// prospero://HOST:PORT//srv/prospero/README returns the file.
func TestFetchReadme(t *testing.T) {
	s := newSimServer(t, simReplies(t))
	s.start()
	res, body, err := get(t, quick(), simURL(s, "/srv/prospero/README"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := fixture(t, "README"); string(body) != string(want) {
		t.Errorf("body = %q, want %q", body, want)
	}
	if res.Kind != fetch.ResourceFile || res.Size != 35 || !res.ModTime.Equal(time.Date(2026, 11, 22, 5, 11, 20, 0, time.UTC)) {
		t.Errorf("resource = kind %v size %d modtime %v", res.Kind, res.Size, res.ModTime)
	}
	reqs, _, acks := s.log()
	want := []string{"GET-OBJECT-INFO #ALL ASCII /srv/prospero/README 0", "GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/README"}
	if !slices.Equal(reqs, want) {
		t.Errorf("requests = %q, want %q", reqs, want)
	}
	if len(acks) != 0 {
		t.Errorf("ACKs %v after one-packet replies, want none (as the real clients)", acks)
	}
}

func TestFetch(t *testing.T) {
	replies := simReplies(t)
	replies["GET-OBJECT-INFO #ALL ASCII /etc/passwd 0"] = []byte("FAILURE NOT-AUTHORIZED\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/pub 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero 0"]
	replies["DIRECTORY ASCII /srv/prospero/pub\nLIST '' COMPONENTS"] = []byte(
		"LINK  L FILE big.txt INTERNET-D LOCALHOST(21525) ASCII '/srv/prospero/pub/big.txt' 0\n" +
			"LINK  L FILE huge.txt INTERNET-D LOCALHOST(21525) ASCII '/srv/prospero/pub/huge.txt' 0\n" +
			"LINK  L DIRECTORY docs INTERNET-D LOCALHOST(21525) ASCII '/srv/prospero/pub/docs' 0\n" +
			"LINK  L FILE far INTERNET-D FAR.EXAMPLE.ORG ASCII '/x y;z' 3\n" +
			"LINK  L FILE odd INTERNET-D FAR.EXAMPLE.ORG(999) ASCII '/odd' 0\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/local 0"] = []byte("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/bogus 0"] = []byte("ERROR Unknown message: BOGUS-COMMAND foo\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/junk 0"] = []byte("HELLO there\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/quote 0"] = []byte("ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 'open\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/empty 0"] = []byte(
		"ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 0' bytes'\nATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n")
	replies["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/empty"] = []byte("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA ''\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/gone 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/empty 0"]
	replies["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/gone"] = []byte("NONE-FOUND\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/cut 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/empty 0"]
	replies["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/cut"] = []byte("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA abc' def\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/v 7"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/empty 0"]
	replies["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/v 7"] = []byte("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA seven\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/ver 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/empty 0"]
	replies["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/ver"] = []byte("VERSION 5 P53.17May94b\nATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA x'  y'\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/weird 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/empty 0"]
	replies["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/weird"] = []byte("ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 3\n")
	s := newSimServer(t, replies)
	s.start()
	host := s.addr()
	tests := []struct {
		hsoname string
		want    string // the body; "@path" names a fixture
		kind    fetch.ResourceKind
		err     fetch.Kind
	}{
		{hsoname: "/srv/prospero/README", want: "@README"},
		{hsoname: "/srv/prospero/pub/big.txt", want: "@pub/big.txt"},
		{hsoname: "/srv/prospero/pub/huge.txt", want: "@pub/huge.txt"},
		{hsoname: "/srv/prospero/pub/docs/one.txt", want: "@pub/docs/one.txt"},
		{hsoname: "/srv/prospero/empty", want: ""},
		{hsoname: "/srv/prospero/v;OBJECT-VERSION=7", want: "seven"},
		{hsoname: "/srv/prospero/ver", want: "x  y"},
		{hsoname: "/srv/prospero/weird", err: fetch.Protocol},
		// §5 of prospero.md: a directory's links, in the server's order; a
		// server calling itself LOCALHOST is the one reached over loopback;
		// a directory's URL ends in "/" (CONTRACT §1, --list).
		{hsoname: "/srv/prospero", kind: fetch.ResourceDirectory, want: "" +
			"prospero://" + host + "//srv/prospero/README\n" +
			"prospero://" + host + "//srv/prospero/pub/\n"},
		{hsoname: "/srv/prospero/pub/docs/", kind: fetch.ResourceDirectory, want: "" +
			"prospero://" + host + "//srv/prospero/pub/docs/two.txt\n" +
			"prospero://" + host + "//srv/prospero/pub/docs/one.txt\n"},
		{hsoname: "/srv/prospero/pub", kind: fetch.ResourceDirectory, want: "" +
			"prospero://" + host + "//srv/prospero/pub/big.txt\n" +
			"prospero://" + host + "//srv/prospero/pub/huge.txt\n" +
			"prospero://" + host + "//srv/prospero/pub/docs/\n" +
			"prospero://far.example.org//x%20y%3Bz;OBJECT-VERSION=3\n" +
			"prospero://far.example.org:999//odd\n"},
		{hsoname: "/srv/prospero/nope", err: fetch.NotFound},
		{hsoname: "/etc/passwd", err: fetch.Other}, // refused access: no credentials were sent
		{hsoname: "/srv/prospero/local", err: fetch.Unsupported},
		{hsoname: "/srv/prospero/bogus", err: fetch.Protocol},
		{hsoname: "/srv/prospero/junk", err: fetch.Protocol},
		{hsoname: "/srv/prospero/quote", err: fetch.Protocol},
		{hsoname: "/srv/prospero/gone", err: fetch.NotFound},
		{hsoname: "/srv/prospero/cut", err: fetch.Protocol},
		{hsoname: "/srv/prospero/unknown", err: fetch.Protocol}, // the server's ERROR Unknown message
	}
	for _, tt := range tests {
		t.Run(tt.hsoname, func(t *testing.T) {
			res, body, err := get(t, quick(), simURL(s, tt.hsoname), 5*time.Second)
			if tt.err != 0 {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Fetch(%s): %v (kind %v), want kind %v", tt.hsoname, err, fetch.KindOf(err), tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Fetch(%s): %v", tt.hsoname, err)
			}
			want := []byte(tt.want)
			if strings.HasPrefix(tt.want, "@") {
				want = fixture(t, tt.want[1:])
			}
			if string(body) != string(want) {
				t.Errorf("Fetch(%s) body = %d bytes %.80q, want %d bytes %.80q", tt.hsoname, len(body), body, len(want), want)
			}
			if res.Kind != tt.kind {
				t.Errorf("Fetch(%s) kind = %v, want %v", tt.hsoname, res.Kind, tt.kind)
			}
		})
	}
}

func TestConformance(t *testing.T) {
	replies := simReplies(t)
	s := newSimServer(t, replies)
	s.start()
	stalled := newSimServer(t, replies)
	stalled.drop = func(seq uint16, _ int) bool { return seq == 5 }
	stalled.start()
	fetchtest.Run(t, quick(), fetchtest.Cases{
		Existing: simURL(s, "/srv/prospero/pub/huge.txt"),
		Want:     fixture(t, "pub/huge.txt"),
		Missing:  simURL(s, "/srv/prospero/nope"),
		Parser:   url.Parser{Lenient: true},
		Stalled:  simURL(stalled, "/srv/prospero/pub/big.txt"),
	})
}

// TestWindowAcks checks the ACKs of a 59-packet reply: one at each
// please-ACK (16, 32, 48) and one when complete.
func TestWindowAcks(t *testing.T) {
	s := newSimServer(t, simReplies(t))
	s.start()
	if _, _, err := get(t, &Handler{}, simURL(s, "/srv/prospero/pub/huge.txt"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.completed:
	case <-time.After(10 * time.Second):
		t.Fatal("no final ACK")
	}
	_, resends, acks := s.log()
	if want := []uint16{16, 32, 48, 59}; !slices.Equal(acks, want) || resends != 0 {
		t.Errorf("ACKs %v with %d re-sent requests, want %v and none", acks, resends, want)
	}
}

// TestLossAndReorder drops datagrams (the first try of packets 1, 5, 16,
// 17, 40 and 59, and twice packet 33), swaps neighbours in every burst,
// and still delivers the file byte for byte.
func TestLossAndReorder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		drop    map[uint16]int // seq → transmissions to drop
		reorder bool
		swap    bool
	}{
		{name: "drop", file: "huge.txt", drop: map[uint16]int{1: 1, 5: 1, 16: 1, 17: 1, 33: 2, 40: 1, 59: 1}},
		{name: "reorder", file: "huge.txt", reorder: true},
		{name: "both", file: "huge.txt", drop: map[uint16]int{2: 1, 16: 1, 31: 2, 58: 1}, reorder: true},
		{name: "small-lost", file: "big.txt", drop: map[uint16]int{9: 3}},
		{name: "swapped-cid", file: "huge.txt", swap: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimServer(t, simReplies(t))
			s.drop = func(seq uint16, n int) bool { return n <= tc.drop[seq] }
			s.reorder, s.swapCID = tc.reorder, tc.swap
			s.start()
			_, body, err := get(t, quick(), simURL(s, "/srv/prospero/pub/"+tc.file), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if want := fixture(t, "pub/"+tc.file); string(body) != string(want) {
				t.Errorf("got %d bytes, want %d", len(body), len(want))
			}
		})
	}
}

// TestSilentServer: a server that never answers is a timeout within the
// request's idle timeout, after re-sending the request with backoff.
func TestSilentServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		s := newSimServerPipes(t, p, nil)
		s.silent = true
		s.start()
		var trace strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req := &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero/README")), IdleTimeout: 2 * time.Second, Trace: fetch.NewTrace(&trace)}
		start := time.Now()
		_, err := pipeClient(p, quick()).Do(ctx, req)
		if !errors.Is(err, fetch.Timeout) {
			t.Fatalf("Fetch from a silent server: %v (kind %v), want a timeout", err, fetch.KindOf(err))
		}
		if ctx.Err() != nil {
			t.Fatalf("the fetch outlived its context")
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("the silence ended the fetch after %v, want the idle timeout, 2s", d)
		}
		if !strings.Contains(trace.String(), "re-sending the request") {
			t.Errorf("no re-send in the trace:\n%s", trace.String())
		}
	})
}

// TestContextEndsWait: a cancelled context ends the wait at once, whatever
// the idle timeout.
func TestContextEndsWait(t *testing.T) {
	s := newSimServer(t, nil)
	s.silent = true
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := (&Handler{}).Fetch(ctx, &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero/README"))})
	if !errors.Is(err, fetch.Timeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Fetch with an expiring context: %v (kind %v), want the context's deadline", err, fetch.KindOf(err))
	}
}

// TestWaitNotice: a server's "still working" notice is honoured.
func TestWaitNotice(t *testing.T) {
	s := newSimServer(t, simReplies(t))
	s.waitNotice = 1
	s.start()
	var trace strings.Builder
	ctx := context.Background()
	req := &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero/pub/big.txt")), Trace: fetch.NewTrace(&trace)}
	res, err := quick().Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || string(b) != string(fixture(t, "pub/big.txt")) {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	if !strings.Contains(trace.String(), "asks for 1s more") {
		t.Errorf("wait notice not traced:\n%s", trace.String())
	}
}

func TestHead(t *testing.T) {
	s := newSimServer(t, simReplies(t))
	s.start()
	for _, tc := range []struct {
		hsoname string
		kind    fetch.ResourceKind
		size    int64
	}{
		{"/srv/prospero/README", fetch.ResourceFile, 35},
		{"/srv/prospero/pub/huge.txt", fetch.ResourceFile, 73200},
		{"/srv/prospero", fetch.ResourceDirectory, -1},
	} {
		req := &fetch.Request{URL: mustParse(t, simURL(s, tc.hsoname)), Head: true}
		res, err := quick().Fetch(context.Background(), req)
		if err != nil {
			t.Fatalf("Head %s: %v", tc.hsoname, err)
		}
		if res.Body != fetch.NoBody || res.Kind != tc.kind || res.Size != tc.size {
			t.Errorf("Head %s = kind %v size %d, want %v %d and no body", tc.hsoname, res.Kind, res.Size, tc.kind, tc.size)
		}
		res.Body.Close()
	}
	reqs, _, _ := s.log()
	for _, r := range reqs {
		if !strings.HasPrefix(r, "GET-OBJECT-INFO #ALL") {
			t.Errorf("Head sent %q", r)
		}
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		url  string
		user string
		want []string
		err  fetch.Kind
	}{
		{url: "prospero://h:21525//srv/prospero/README", want: []string{
			"VERSION 5", "AUTHENTICATE '' UNAUTHENTICATED anonymous", "GET-OBJECT-INFO #ALL ASCII /srv/prospero/README 0"}},
		{url: "prospero://h/a%20b%27c;OBJECT-VERSION=2;other=x", user: "ann", want: []string{
			"VERSION 5", "AUTHENTICATE '' UNAUTHENTICATED ann", "GET-OBJECT-INFO #ALL ASCII 'a b''c' 2"}},
		{url: "prospero://h/", want: []string{
			"VERSION 5", "AUTHENTICATE '' UNAUTHENTICATED anonymous", "GET-OBJECT-INFO #ALL ASCII '' 0"}},
		{url: "prospero://h/a%0Ab", err: fetch.Refused},
		{url: "prospero://h/a%00b", err: fetch.Refused},
		{url: "prospero://h/a;OBJECT-VERSION=1%202", err: fetch.Malformed},
		{url: "prospero://h/Q%09Z", err: fetch.Refused},
		{url: "prospero://h/a;OBJECT-VERSION=1%092", err: fetch.Refused},
	}
	for _, tt := range tests {
		req := &fetch.Request{URL: mustParse(t, tt.url)}
		if tt.user != "" {
			req.User = url.User(tt.user)
		}
		got, err := (&Handler{}).Plan(req)
		if tt.err != 0 {
			if !errors.Is(err, tt.err) {
				t.Errorf("Plan(%s): %v, want kind %v", tt.url, err, tt.err)
			}
			// Fetch refuses the same before sending anything.
			if _, err := (&Handler{}).Fetch(context.Background(), req); !errors.Is(err, tt.err) {
				t.Errorf("Fetch(%s): %v, want kind %v", tt.url, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Plan(%s) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
}

// TestForwarded: a FORWARDED reply is a referral the Client follows,
// under its Policy and within its hop limit.
func TestForwarded(t *testing.T) {
	far := newSimServer(t, simReplies(t))
	far.start()
	_, farPort, _ := strings.Cut(far.addr(), ":")
	near := newSimServer(t, map[string][]byte{
		"GET-OBJECT-INFO #ALL ASCII /moved 0": []byte("FORWARDED INTERNET-D 127.0.0.1(" + farPort + ") ASCII /srv/prospero/README 0\n"),
		"GET-OBJECT-INFO #ALL ASCII /loop 0":  []byte("FORWARDED INTERNET-D LOCALHOST(1) ASCII /loop 0\n"),
		"GET-OBJECT-INFO #ALL ASCII /bad 0":   []byte("FORWARDED INTERNET-D 127.0.0.1(25) ASCII /x 0\n"),
	})
	near.start()

	// The handler alone reports the referral.
	res, _, err := get(t, quick(), simURL(near, "/moved"), 5*time.Second)
	if err != nil || res.Redirect == nil || res.Redirect.String() != "prospero://127.0.0.1:"+farPort+"//srv/prospero/README" {
		t.Fatalf("FORWARDED from the handler: %+v, %v; want a Redirect to the far server", res, err)
	}

	c := &fetch.Client{MaxRedirects: 3}
	c.Register("prospero", quick())
	fetchAll := func(raw string) ([]byte, *fetch.Resource, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := c.Do(ctx, &fetch.Request{URL: mustParse(t, raw), IdleTimeout: 5 * time.Second})
		if err != nil {
			return nil, nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return b, res, err
	}
	body, res, err := fetchAll(simURL(near, "/moved"))
	if err != nil || string(body) != string(fixture(t, "README")) {
		t.Errorf("following FORWARDED: %q, %v", body, err)
	} else if len(res.Via) != 1 || res.Via[0].Redirect == nil {
		t.Errorf("Via = %+v, want the one referral", res.Via)
	}
	if _, _, err := fetchAll(simURL(near, "/loop")); !errors.Is(err, fetch.Protocol) {
		t.Errorf("a FORWARDED loop: %v, want a protocol error", err)
	}
	if _, _, err := fetchAll(simURL(near, "/bad")); !errors.Is(err, fetch.Refused) {
		t.Errorf("FORWARDED to SMTP's port: %v, want refused", err)
	}
	reqs, _, _ := near.log()
	if n := strings.Count(strings.Join(reqs, "\n"), "/loop"); n != 4 {
		t.Errorf("the loop was asked %d times, want 4 (the request and 3 forwards)", n)
	}
}

// TestAFTP: an AFTP access method is a referral to its ftp URL, which the
// Client follows through its ftp handler, as a hop without the prospero
// request's credentials.
func TestAFTP(t *testing.T) {
	s := newSimServer(t, map[string][]byte{
		"GET-OBJECT-INFO #ALL ASCII /f 0":  []byte("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D FTP.EXAMPLE.ORG ASCII '/pub/a file.txt' BINARY\n"),
		"GET-OBJECT-INFO #ALL ASCII /g 0":  []byte("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP '' '' '' '' ASCII\n"),
		"GET-OBJECT-INFO #ALL ASCII /nl 0": []byte("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D h ASCII 'a\nb' BINARY\n"),
	})
	s.start()
	var got []string
	c := new(fetch.Client)
	c.Register("prospero", quick())
	c.Register("ftp", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		got = append(got, req.URL.String())
		if req.User != nil || req.Header.Get("Authorization") != "" {
			t.Errorf("the ftp hop got the prospero request's credentials")
		}
		if !req.Hop {
			t.Errorf("the ftp request is not a hop")
		}
		return &fetch.Resource{URL: req.URL, Body: io.NopCloser(strings.NewReader("via ftp")), Size: -1}, nil
	}))
	for _, hso := range []string{"/f", "/g"} {
		req := &fetch.Request{URL: mustParse(t, simURL(s, hso)), User: url.User("ann"), Header: http.Header{"Authorization": {"Basic YW5uOnB3"}}}
		res, err := c.Do(context.Background(), req)
		if err != nil {
			t.Fatalf("Do(%s): %v", hso, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(b) != "via ftp" {
			t.Errorf("body %q", b)
		}
	}
	want := []string{"ftp://ftp.example.org/%2Fpub/a%20file.txt;type=i", "ftp://127.0.0.1/%2Fg;type=a"}
	if !slices.Equal(got, want) {
		t.Errorf("followed %q, want %q", got, want)
	}
	noFTP := new(fetch.Client)
	noFTP.Register("prospero", quick())
	if _, err := noFTP.Fetch(context.Background(), simURL(s, "/f")); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("AFTP without an ftp handler: %v, want unsupported", err)
	}
	if _, _, err := get(t, quick(), simURL(s, "/nl"), 5*time.Second); !errors.Is(err, fetch.Refused) {
		t.Errorf("AFTP path with LF: %v, want refused", err)
	}
}

// TestUnreachable: an ICMP port-unreachable is a connect failure, not a
// long wait.
func TestUnreachable(t *testing.T) {
	s := newSimServer(t, nil)
	addr := s.addr()
	s.conn.Close()
	s.start() // returns at once: the socket is closed
	_, _, err := get(t, quick(), "prospero://"+addr+"//x", 2*time.Second)
	if !errors.Is(err, fetch.Connect) && !errors.Is(err, fetch.Timeout) {
		t.Errorf("Fetch from a closed port: %v (kind %v), want connect (or timeout)", err, fetch.KindOf(err))
	}
}

// TestStalledReply: a reply that stops part-way (packet 5 never arrives,
// however often the ACK of 4 is re-sent) is a timeout naming where it
// stopped.
func TestStalledReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		s := newSimServerPipes(t, p, simReplies(t))
		s.drop = func(seq uint16, _ int) bool { return seq == 5 }
		s.start()
		// Re-sends after 1 s and 3 s, then the idle timeout at 4 s.
		start := time.Now()
		_, _, err := getVia(t, pipeClient(p, steady()), simURL(s, "/srv/prospero/pub/big.txt"), 4*time.Second)
		if !errors.Is(err, fetch.Timeout) || !strings.Contains(err.Error(), "stopped after packet 4 of 9") {
			t.Fatalf("stalled reply: %v (kind %v), want a timeout after packet 4", err, fetch.KindOf(err))
		}
		if d := time.Since(start); d != 4*time.Second {
			t.Errorf("the stalled reply failed after %v, want the idle timeout, 4s", d)
		}
		_, _, acks := s.log()
		if len(acks) < 2 || acks[0] != 4 {
			t.Errorf("ACKs %v, want ACK 4 re-sent", acks)
		}
	})
}

// TestNotAuthorized checks that FAILURE NOT-AUTHORIZED says the server
// refused access, not that an authentication (never attempted) failed.
func TestNotAuthorized(t *testing.T) {
	replies := simReplies(t)
	replies["GET-OBJECT-INFO #ALL ASCII /etc/passwd 0"] = []byte("FAILURE NOT-AUTHORIZED \x1b]0;PWNED\x07\n")
	s := newSimServer(t, replies)
	s.start()
	_, _, err := get(t, quick(), simURL(s, "/etc/passwd"), 5*time.Second)
	if err == nil || fetch.KindOf(err) == fetch.Auth || !strings.Contains(err.Error(), "refused access") || strings.Contains(err.Error(), "authentication") {
		t.Errorf("NOT-AUTHORIZED: %v (kind %v), want the server's refusal of access", err, fetch.KindOf(err))
	}
	if err != nil && strings.ContainsAny(err.Error(), "\x1b\x07") {
		t.Errorf("the error holds the server's control characters: %q", err.Error())
	}
}

// TestDrippedReply checks that an attribute reply whose packets come one
// at a time, each before the idle timeout, fails once the whole reply has
// taken the idle timeout.
func TestDrippedReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		c, err := p.ListenPacket("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		t.Cleanup(func() { close(stop); c.Close(); <-done })
		go func() {
			defer close(done)
			buf := make([]byte, maxDatagram)
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				return
			}
			h, _, err := parseHeader(buf[:n])
			if err != nil {
				return
			}
			for seq := uint16(1); seq < 400; seq++ {
				c.WriteTo(append(appendHeader(nil, header{Len: 7, CID: h.CID, Seq: seq}), 'x'), from)
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		req := &fetch.Request{URL: mustParse(t, "prospero://"+c.LocalAddr().String()+"//srv/x"), IdleTimeout: 500 * time.Millisecond}
		start := time.Now()
		_, err = pipeClient(p, quick()).Do(ctx, req)
		if !errors.Is(err, fetch.Timeout) || ctx.Err() != nil {
			t.Errorf("a dripped reply: %v (kind %v), want a timeout before the context's end", err, fetch.KindOf(err))
		}
		if d := time.Since(start); d != 500*time.Millisecond {
			t.Errorf("the dripped reply failed after %v, want the idle timeout, 500ms", d)
		}
	})
}

// TestMain fails the run when goroutines outlive the tests.
func TestMain(m *testing.M) { fetchtest.Main(m) }
