package mailto

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

func parse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

func send(t *testing.T, h *Handler, rawURL, msg string, trace *strings.Builder) (*fetch.Resource, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := &fetch.Request{URL: parse(t, rawURL), Message: strings.NewReader(msg)}
	if trace != nil {
		req.Trace = fetch.NewTrace(trace)
	}
	return h.Fetch(ctx, req)
}

func header(data, name string) string {
	head, _, _ := strings.Cut(data, "\r\n\r\n")
	for _, l := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestSend(t *testing.T) {
	rs := startRelay(t, &relayServer{}, nil)
	h := &Handler{Relay: rs.Addr, Hello: "client.test"}
	msg := "Subject: greetings\nX-Test: 1\n\nHello,\n.leading dot\nbye\n"
	var trace strings.Builder
	res, err := send(t, h, "mailto:joe%25x@example.com", msg, &trace)
	if err != nil {
		t.Fatalf("Fetch: %v\n%s", err, trace.String())
	}
	if res.Kind != fetch.ResourceMessage || res.Body == nil {
		t.Errorf("resource %+v", res)
	}
	got := rs.messages()
	if len(got) != 1 {
		t.Fatalf("relay got %d messages, want 1", len(got))
	}
	m := got[0]
	if !slices.Equal(m.To, []string{"joe%x@example.com"}) {
		t.Errorf("RCPT %q, want the decoded address", m.To)
	}
	if m.From == "" || !strings.HasSuffix(m.From, "@client.test") {
		t.Errorf("MAIL FROM %q, want $USER@client.test", m.From)
	}
	for name, want := range map[string]string{"Subject": "greetings", "X-Test": "1", "To": "joe%x@example.com", "From": m.From} {
		if v := header(m.Data, name); v != want {
			t.Errorf("header %s = %q, want %q\n%s", name, v, want, m.Data)
		}
	}
	if d := header(m.Data, "Date"); d == "" {
		t.Errorf("no Date header:\n%s", m.Data)
	} else if _, err := time.Parse(time.RFC1123Z, d); err != nil {
		t.Errorf("Date %q: %v", d, err)
	}
	id := header(m.Data, "Message-ID")
	if !regexp.MustCompile(`^<[^<>@ ]+@client\.test>$`).MatchString(id) {
		t.Errorf("Message-ID %q", id)
	}
	if res.Extra[ExtraMessageID] != id || res.Extra[ExtraAddress] != "joe%x@example.com" || !strings.HasPrefix(res.Extra[ExtraReply], "250") {
		t.Errorf("receipt %q", res.Extra)
	}
	if _, body, _ := strings.Cut(m.Data, "\r\n\r\n"); body != "Hello,\r\n.leading dot\r\nbye\r\n" {
		t.Errorf("body %q", body)
	}
	for _, want := range []string{"> EHLO client.test", "> MAIL FROM:<", " BODY=8BITMIME", "> RCPT TO:<joe%x@example.com>", "> DATA", "< 250 "} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, trace.String())
		}
	}
}

func TestSendKeepsHeaders(t *testing.T) {
	rs := startRelay(t, &relayServer{}, nil)
	msg := "From: Ann <ann@example.org>\r\nTo: someone@else.test\r\nDate: Mon, 02 Jan 2006 15:04:05 -0700\r\nMessage-ID: <given@example.org>\r\n\r\nbody"
	res, err := send(t, &Handler{Relay: rs.Addr}, "mailto:bob@example.com", msg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := rs.messages()[0]
	if m.From != "ann@example.org" {
		t.Errorf("MAIL FROM %q, want the From header's address", m.From)
	}
	for _, name := range []string{"From:", "To:", "Date:", "Message-ID:"} {
		if n := strings.Count(m.Data, "\r\n"+name) + strings.Count(m.Data[:len(name)], name); n != 1 {
			t.Errorf("%s appears %d times:\n%s", name, n, m.Data)
		}
	}
	if res.Extra[ExtraMessageID] != "<given@example.org>" {
		t.Errorf("message-id %q", res.Extra[ExtraMessageID])
	}
	if !strings.HasSuffix(m.Data, "\r\n\r\nbody\r\n") {
		t.Errorf("data %q", m.Data)
	}
}

func TestSendWithoutHeader(t *testing.T) {
	rs := startRelay(t, &relayServer{}, nil)
	if _, err := send(t, &Handler{Relay: rs.Addr, From: "me@example.org"}, "mailto:bob@example.com", "just text: no header\nsecond line\n", nil); err != nil {
		t.Fatal(err)
	}
	m := rs.messages()[0]
	if m.From != "me@example.org" || header(m.Data, "To") != "bob@example.com" {
		t.Errorf("from %q, data %q", m.From, m.Data)
	}
	if _, body, _ := strings.Cut(m.Data, "\r\n\r\n"); body != "just text: no header\r\nsecond line\r\n" {
		t.Errorf("body %q", body)
	}
}

func TestNoMessage(t *testing.T) {
	_, err := (&Handler{Relay: "127.0.0.1:1"}).Fetch(context.Background(), &fetch.Request{URL: parse(t, "mailto:bob@example.com")})
	if !errors.Is(err, fetch.Unsupported) || !strings.Contains(err.Error(), "mailto designates an address, not a data object (RFC 1738 §3.5)") {
		t.Errorf("Fetch without a message: %v", err)
	}
	_, err = (&Handler{}).Plan(&fetch.Request{URL: parse(t, "mailto:bob@example.com")})
	if !errors.Is(err, fetch.Unsupported) {
		t.Errorf("Plan without a message: %v", err)
	}
}

func TestHead(t *testing.T) {
	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: parse(t, "mailto:bob%25x@example.com"), Head: true, Message: strings.NewReader("x")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != fetch.ResourceMessage || res.Extra[ExtraAddress] != "bob%x@example.com" {
		t.Errorf("Head: %+v", res)
	}
}

func TestAddress(t *testing.T) {
	tests := []struct {
		url  string
		want string
		kind fetch.Kind
	}{
		{"mailto:joe@example.com", "joe@example.com", 0},
		{"mailto:joe%25home@example.com", "joe%home@example.com", 0},   // §3.5: '%' encoded
		{"mailto:%22joe%20q%22@example.com", `"joe q"@example.com`, 0}, // quoted local part
		{"mailto:Joe%20%3Cjoe@example.com%3E", "", fetch.Malformed},    // a name-addr, not an addr-spec
		{"mailto:%3Cjoe@example.com%3E", "", fetch.Malformed},
		{"mailto:joe", "", fetch.Malformed},
		{"mailto:a@example.com,b@example.com", "", fetch.Malformed},
		{"mailto:joe%0D%0ARCPT@example.com", "", fetch.Refused},
		{"mailto:%22x%3E%20NOTIFY=SUCCESS%22@x.org", "", fetch.Malformed}, // '>' would end RCPT TO early
		{"mailto:%22a%3Cb%22@x.org", "", fetch.Malformed},
	}
	for _, tt := range tests {
		got, err := Address(parse(t, tt.url))
		if tt.kind == 0 {
			if err != nil || got != tt.want {
				t.Errorf("Address(%s) = %q, %v; want %q", tt.url, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, tt.kind) {
			t.Errorf("Address(%s) = %q, %v; want Kind %v", tt.url, got, err, tt.kind)
		}
	}
}

func TestSTARTTLSAndAuth(t *testing.T) {
	serverTLS, clientTLS := fetchtest.TLS(t)
	rs := startRelay(t, &relayServer{user: "ann", pw: "pw-s3cr3t"}, serverTLS)
	h := &Handler{Relay: "smtp://ann:pw-s3cr3t@" + rs.Addr}
	var trace strings.Builder
	req := &fetch.Request{URL: parse(t, "mailto:bob@example.com"), Message: strings.NewReader("Subject: s\n\nhi\n"),
		TLS: clientTLS, Trace: fetch.NewTrace(&trace)}
	if _, err := h.Fetch(context.Background(), req); err != nil {
		t.Fatalf("Fetch: %v\n%s", err, trace.String())
	}
	m := rs.messages()
	if len(m) != 1 || !m[0].TLS || m[0].User != "ann" {
		t.Fatalf("relay got %+v, want one message over TLS from ann", m)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("\x00ann\x00pw-s3cr3t"))
	if s := trace.String(); strings.Contains(s, "pw-s3cr3t") || strings.Contains(s, b64) || !strings.Contains(s, "> AUTH PLAIN ****") || !strings.Contains(s, "> STARTTLS") {
		t.Errorf("trace:\n%s", s)
	}

	// The same relay with a wrong password: Kind Auth, no password shown.
	h.Relay = "smtp://ann:wrong-pw@" + rs.Addr
	req = &fetch.Request{URL: parse(t, "mailto:bob@example.com"), Message: strings.NewReader("x\n"), TLS: clientTLS}
	_, err := h.Fetch(context.Background(), req)
	if !errors.Is(err, fetch.Auth) || strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("wrong password: %v, want Kind Auth without the password", err)
	}

	// An untrusted certificate fails to connect.
	req = &fetch.Request{URL: parse(t, "mailto:bob@example.com"), Message: strings.NewReader("x\n")}
	if _, err := h.Fetch(context.Background(), req); !errors.Is(err, fetch.Connect) {
		t.Errorf("untrusted relay certificate: %v, want Kind Connect", err)
	}
}

func TestAuthNeedsTLS(t *testing.T) {
	// Credentials for a relay that is neither local nor TLS are not sent.
	c := &client{ext: map[string]string{"AUTH": "PLAIN"}}
	if err := c.auth(url.UserPassword("ann", "pw"), "relay.example.com"); !errors.Is(err, fetch.Auth) {
		t.Errorf("auth in the clear: %v, want Kind Auth", err)
	}
}

func TestRecipientRefused(t *testing.T) {
	rs := startRelay(t, &relayServer{rejectTo: "nobody@example.com"}, nil)
	_, err := send(t, &Handler{Relay: rs.Addr}, "mailto:nobody@example.com", "x\n", nil)
	if !errors.Is(err, fetch.NotFound) {
		t.Errorf("refused recipient: %v, want Kind NotFound", err)
	}
	var re *fetch.ReplyError
	if !errors.As(err, &re) || re.Code != 550 {
		t.Errorf("refused recipient: %v, want a ReplyError with code 550", err)
	}
}

func TestNoRelay(t *testing.T) {
	t.Setenv("FETCH_SMTP", "")
	_, err := send(t, &Handler{}, "mailto:bob@example.com", "x\n", nil)
	if !errors.Is(err, fetch.Usage) || !errors.Is(err, ErrNoRelay) || strings.Contains(err.Error(), "--") {
		t.Errorf("no relay: %v, want Kind Usage, ErrNoRelay, and no CLI option named", err)
	}
	rs := startRelay(t, &relayServer{}, nil)
	t.Setenv("FETCH_SMTP", rs.Addr)
	if _, err := send(t, &Handler{}, "mailto:bob@example.com", "x\n", nil); err != nil || len(rs.messages()) != 1 {
		t.Errorf("relay from FETCH_SMTP: %v", err)
	}
}

func TestRelayDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, err = send(t, &Handler{Relay: closed}, "mailto:bob@example.com", "x\n", nil)
	if !errors.Is(err, fetch.Connect) {
		t.Errorf("relay down: %v, want Kind Connect", err)
	}
}

func TestAbortOnReadError(t *testing.T) {
	rs := startRelay(t, &relayServer{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := &fetch.Request{URL: parse(t, "mailto:bob@example.com"), Message: &failingReader{data: "Subject: half\n\nthe first half\n"}}
	if _, err := (&Handler{Relay: rs.Addr}).Fetch(ctx, req); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("failing message: %v", err)
	}
	if n := len(rs.messages()); n != 0 {
		t.Errorf("relay accepted %d truncated messages", n)
	}
}

func TestLongHeaderLine(t *testing.T) {
	msg := "Subject: " + strings.Repeat("x", maxHeaderLine) + "\n\nbody\n"
	if _, err := send(t, &Handler{Relay: "127.0.0.1:1"}, "mailto:bob@example.com", msg, nil); !errors.Is(err, fetch.Usage) {
		t.Errorf("long header line: %v, want Kind Usage", err)
	}
}

func TestPlan(t *testing.T) {
	req := &fetch.Request{URL: parse(t, "mailto:bob@example.com"), Message: strings.NewReader("From: ann@example.org\n\nhi\n")}
	got, err := (&Handler{Hello: "client.test"}).Plan(req)
	want := []string{"EHLO client.test", "MAIL FROM:<ann@example.org>", "RCPT TO:<bob@example.com>", "DATA", ".", "QUIT"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Plan = %q, %v; want %q", got, err, want)
	}
}

func TestParseRelay(t *testing.T) {
	tests := []struct {
		in       string
		addr     string
		implicit bool
		user     string
		bad      bool
	}{
		{in: "mail.example.com", addr: "mail.example.com:25"},
		{in: "127.0.0.1:2525", addr: "127.0.0.1:2525"},
		{in: "[::1]:587", addr: "[::1]:587"},
		{in: "smtp://ann:pw@mail.example.com:587", addr: "mail.example.com:587", user: "ann"},
		{in: "smtps://mail.example.com", addr: "mail.example.com:465", implicit: true},
		{in: "http://mail.example.com", bad: true},
		{in: "mail.example.com:99999", bad: true},
		{in: "smtp://", bad: true},
	}
	for _, tt := range tests {
		r, err := parseRelay(tt.in)
		if tt.bad {
			if !errors.Is(err, fetch.Usage) {
				t.Errorf("parseRelay(%q) = %+v, %v; want Kind Usage", tt.in, r, err)
			}
			continue
		}
		user := ""
		if r.user != nil {
			user = r.user.Username
		}
		if err != nil || r.addr() != tt.addr || r.implicit != tt.implicit || user != tt.user {
			t.Errorf("parseRelay(%q) = %+v (%s), %v", tt.in, r, r.addr(), err)
		}
	}
	if s := redactRelay("smtp://ann:pw-s3cr3t@host"); strings.Contains(s, "pw-s3cr3t") {
		t.Errorf("redactRelay shows the password: %s", s)
	}
}
