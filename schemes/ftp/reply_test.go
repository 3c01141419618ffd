package ftp

import (
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"slices"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestReplyErrors: every failure a reply causes carries it as a
// *fetch.ReplyError, and the transient refusals are Unavailable (421 service
// closing, 425 no data connection, 450 file busy).
func TestReplyErrors(t *testing.T) {
	tests := []struct {
		verb string // the command answered with reply
		code int
		kind fetch.Kind
	}{
		{"greeting", 421, fetch.Unavailable},
		{"greeting", 500, fetch.Protocol},
		{"USER", 421, fetch.Unavailable},
		{"PASS", 530, fetch.Auth},
		{"PASS", 421, fetch.Unavailable},
		{"CWD", 550, fetch.NotFound},
		{"TYPE", 504, fetch.Protocol},
		{"EPSV", 421, fetch.Unavailable},
		{"RETR", 450, fetch.Unavailable},
		{"RETR", 425, fetch.Unavailable},
		{"RETR", 550, fetch.NotFound},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d", tt.verb, tt.code), func(t *testing.T) {
			text := fmt.Sprintf("%s says %d", tt.verb, tt.code)
			var greet func(c net.Conn)
			if tt.verb == "greeting" {
				greet = func(c net.Conn) { fmt.Fprintf(c, "%d %s\r\n", tt.code, text) }
			}
			addr := scripted(t, greet, func(tp *textproto.Conn, verb, arg string) bool {
				switch {
				case verb == tt.verb:
					tp.PrintfLine("%d %s", tt.code, text)
				case verb == "EPSV":
					tp.PrintfLine("229 Entering Extended Passive Mode (|||%d|)", closedPort(t))
				case verb == "SIZE":
					tp.PrintfLine("213 5")
				case verb == "CWD":
					tp.PrintfLine("250 ok")
				default:
					return false
				}
				return true
			})
			h := &Handler{}
			defer h.Close()
			_, _, err := get(t, h, req(t, "ftp://"+addr+"/d/f.bin"))
			if fetch.KindOf(err) != tt.kind {
				t.Errorf("%v (kind %d), want kind %d", err, fetch.KindOf(err), tt.kind)
			}
			var re *fetch.ReplyError
			if !errors.As(err, &re) || re.Code != tt.code || re.Text != text {
				t.Errorf("%v: no ReplyError{%d, %q} in the chain (%+v)", err, tt.code, text, re)
			}
		})
	}
}

// TestIfModifiedSince: a conditional fetch asks MDTM and, for a file not
// modified since, fails with Kind NotModified without RETR; a newer file
// is fetched.
func TestIfModifiedSince(t *testing.T) {
	s := newFakeServer(t)
	s.files["/f.bin"] = []byte("0123456789") // MDTM 2024-01-02 03:04:05
	s.start()
	h := &Handler{}
	r := req(t, "ftp://"+s.addr()+"/f.bin")
	r.IfModifiedSince = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	_, _, err := get(t, h, r)
	var re *fetch.ReplyError
	if fetch.KindOf(err) != fetch.NotModified || !errors.As(err, &re) || re.Code != 213 {
		t.Fatalf("unchanged: %v, want NotModified with the MDTM reply", err)
	}
	plan, _ := h.Plan(r)
	r.IfModifiedSince = time.Date(2024, 1, 2, 3, 4, 4, 0, time.UTC)
	if _, body, err := get(t, h, r); err != nil || string(body) != "0123456789" {
		t.Fatalf("modified: %q, %v", body, err)
	}
	h.Close()
	want := withQuit(anonLogin, []string{"TYPE I", "SIZE f.bin", "MDTM f.bin", "SIZE f.bin", "MDTM f.bin", "EPSV", "RETR f.bin"})
	if got := s.commands(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Errorf("commands = %q\nwant %q", got, want)
	}
	if wantPlan := []string{"USER anonymous", "PASS ****", "PWD", "TYPE I", "SIZE f.bin", "MDTM f.bin", "EPSV", "RETR f.bin"}; !slices.Equal(plan, wantPlan) {
		t.Errorf("Plan = %q\nwant %q", plan, wantPlan)
	}
}
