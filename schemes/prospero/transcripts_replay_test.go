package prospero

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestTranscripts replays every recording of the real dirsrv, datagram by
// datagram, against the client's own requests: the replayer checks that
// the client's command lines and ACKs are those recorded, and the test that
// what the client made of the reply is what the server served.
func TestTranscripts(t *testing.T) {
	readme := target{hsoname: "/srv/prospero/README", version: "0"}
	obj := func(p string) target { return target{hsoname: p, version: "0"} }
	tests := []struct {
		name     string
		lines    []string          // the request's command lines
		read     string            // "contents", "info", "list" or "raw"
		want     string            // contents: fixture path; list: URLs; raw: text
		err      fetch.Kind        // the error wanted
		acks     []uint16          // ACKs wanted (nil: none)
		withhold func(i int) bool  // datagrams of the first reply not sent
		check    func(*info) error // for "info"
	}{
		{name: "contents-small", lines: contentsLines(readme), read: "contents", want: "README"},
		{name: "contents-big", lines: contentsLines(obj("/srv/prospero/pub/big.txt")), read: "contents", want: "pub/big.txt", acks: []uint16{9}},
		{name: "contents-huge", lines: contentsLines(obj("/srv/prospero/pub/huge.txt")), read: "contents", want: "pub/huge.txt", acks: []uint16{16, 32, 48, 59}},
		{name: "contents-none-found", lines: contentsLines(obj("/srv/prospero/pub")), read: "contents", err: fetch.NotFound},
		{name: "failure-not-authorized", lines: contentsLines(obj("/etc/passwd")), read: "contents", err: fetch.Other},
		{name: "failure-not-found", lines: infoLines(obj("/srv/prospero/nope")), read: "info", err: fetch.NotFound},
		{name: "failure-not-a-directory", lines: listLines(obj("/srv/prospero/nope")), read: "list", err: fetch.NotFound},
		{name: "failure-list-of-file", lines: listLines(readme), read: "list", err: fetch.NotFound},
		{name: "goi-all", lines: infoLines(readme), read: "info", check: func(inf *info) error {
			if inf.size != 35 || inf.modes != "-rw-r--r--" || inf.methodNames() != "PROSPERO-CONTENTS, LOCAL" ||
				!inf.modTime.Equal(time.Date(2026, 11, 22, 5, 11, 20, 0, time.UTC)) {
				return errors.New("wrong attributes")
			}
			return nil
		}},
		{name: "goi-all-directory", lines: infoLines(obj("/srv/prospero/pub")), read: "info", check: func(inf *info) error {
			if inf.size != 4096 || len(inf.methods) != 0 || inf.modes != "drwxr-xr-x" {
				return errors.New("wrong attributes")
			}
			return nil
		}},
		{name: "list", lines: listLines(obj("/srv/prospero")), read: "list",
			want: "prospero://HOST//srv/prospero/README\nprospero://HOST//srv/prospero/pub/\n"},
		{name: "list-attributes", lines: []string{"DIRECTORY ASCII /srv/prospero/pub/docs", "LIST ATTRIBUTES+EXPAND '#ALL' COMPONENTS"}, read: "list",
			want: "prospero://HOST//srv/prospero/pub/docs/two.txt\nprospero://HOST//srv/prospero/pub/docs/one.txt\n"},
		{name: "status", lines: []string{"STATUS"}, read: "raw"},
		{name: "pstatus", lines: []string{"STATUS"}, read: "raw"},
		{name: "version", lines: []string{"VERSION"}, read: "raw"},
		// The timeout path: the first reply is lost; the client re-sends
		// its request with the same cid and gets the stored reply again,
		// now with a 9-octet header.
		{name: "retransmit-small", lines: contentsLines(readme), read: "contents", want: "README",
			withhold: func(int) bool { return true }},
		// One packet (5) of the first 9 is lost: the client re-sends its ACK
		// of 4 and the server sends the whole reply again.
		{name: "retransmit-big", lines: contentsLines(obj("/srv/prospero/pub/big.txt")), read: "contents", want: "pub/big.txt",
			withhold: func(i int) bool { return i == 5 }, acks: []uint16{4, 9}},
	}
	// Each case runs on UDP in memory in a synctest bubble: the re-sends
	// come on the bubble's clock, in no real time, and a busy machine
	// cannot make one needless.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := new(fetchtest.Pipes)
				r := newReplayerPipes(t, p, tt.name)
				r.withhold = tt.withhold
				r.start()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				h := &Handler{} // the reference client's 4 s
				if tt.withhold != nil {
					h = steady()
				}
				req := pipeRequest(t, p, &fetch.Request{URL: mustParse(t, "prospero://"+r.addr()+"/x"), IdleTimeout: 5 * time.Second})
				tg, _ := targetOf(req.URL)
				s, err := h.dial(ctx, req, tg)
				if err != nil {
					t.Fatal(err)
				}
				defer s.close()
				var got []byte
				switch tt.read {
				case "contents":
					var body io.ReadCloser
					hso := strings.TrimPrefix(tt.lines[0], "GET-OBJECT-INFO CONTENTS ASCII ")
					body, err = h.contents(s, req, target{hsoname: hso, version: "0"})
					if err == nil {
						got, err = io.ReadAll(body)
					}
				case "info":
					var m *message
					var inf *info
					if m, err = h.ask(s, req, tt.lines); err == nil {
						if inf, err = readInfo(m, nil); err == nil && tt.check != nil {
							if cerr := tt.check(inf); cerr != nil {
								t.Errorf("%v: %+v", cerr, inf)
							}
						}
					}
				case "list":
					var m *message
					if m, err = h.ask(s, req, tt.lines); err == nil {
						b := &listBody{s: s, br: bufio.NewReader(m), dir: tg}
						if err = b.next(); err == nil || err == io.EOF {
							if err == nil {
								got, err = io.ReadAll(b)
							} else {
								err = nil
							}
						}
					}
				case "raw":
					var m *message
					if m, err = h.ask(s, req, tt.lines); err == nil {
						got, err = io.ReadAll(m)
					}
					tt.want = r.tr.Exchanges[0].ResponseText
				}
				if tt.err != 0 {
					if !errors.Is(err, tt.err) {
						t.Fatalf("error %v (kind %v), want kind %v", err, fetch.KindOf(err), tt.err)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				want := tt.want
				if tt.read == "list" {
					want = strings.ReplaceAll(want, "HOST", r.addr())
				}
				if tt.read == "contents" && tt.err == 0 {
					want = string(fixture(t, tt.want))
				}
				if tt.err == 0 && tt.check == nil && string(got) != want {
					t.Errorf("got %d bytes %.100q, want %d bytes %.100q", len(got), got, len(want), want)
				}
				select {
				case <-r.done:
				case <-time.After(15 * time.Second):
					t.Fatal("the replay did not finish")
				}
				acks, _ := r.stats()
				if !slices.Equal(acks, tt.acks) {
					t.Errorf("client ACKs %v, want %v", acks, tt.acks)
				}
			})
		})
	}
}

// TestTranscriptVLS replays the real vls client's two requests, with cids
// n and n+1 on one socket; each reply starts with the VERSION line that
// vls's bare VERSION asked for, which the listing skips.
func TestTranscriptVLS(t *testing.T) {
	r := newReplayer(t, "vls")
	r.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := &Handler{}
	req := &fetch.Request{URL: mustParse(t, "prospero://"+r.addr()+"/x"), IdleTimeout: 5 * time.Second}
	tg, _ := targetOf(req.URL)
	s, err := h.dial(ctx, req, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	var got []string
	for _, lines := range [][]string{
		{"DIRECTORY ASCII '/srv/prospero'", "LIST '' COMPONENTS pub/docs"},
		{"DIRECTORY ASCII '/srv/prospero/pub/docs'", "LIST LEXPAND COMPONENTS"},
	} {
		m, err := h.ask(s, req, lines)
		if err != nil {
			t.Fatal(err)
		}
		b := &listBody{s: s, br: bufio.NewReader(m), dir: tg}
		out, err := io.ReadAll(b)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(out))
	}
	host := r.addr()
	want := []string{
		"prospero://" + host + "//srv/prospero/pub/docs/\n",
		"prospero://" + host + "//srv/prospero/pub/docs/two.txt\nprospero://" + host + "//srv/prospero/pub/docs/one.txt\n",
	}
	if !slices.Equal(got, want) {
		t.Errorf("listings %q, want %q", got, want)
	}
}
