package mailto

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// received is one message the test relay accepted.
type received struct {
	From string
	To   []string
	Data string
	TLS  bool
	User string // the authenticated user, if any
}

// relayServer is an in-process SMTP relay (emersion/go-smtp) that records
// what arrives.
type relayServer struct {
	Addr     string
	mu       sync.Mutex
	msgs     []received
	user, pw string // when set, AUTH PLAIN with these is required
	rejectTo string // a recipient refused with 550
	nagle    bool   // each reply written in two pieces, Nagle's algorithm on
}

// nagleListener hands out connections that write as fetchtest.NagleConn
// does.
type nagleListener struct{ net.Listener }

func (l nagleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return fetchtest.NagleConn(c), nil
}

func (rs *relayServer) messages() []received {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]received(nil), rs.msgs...)
}

type relaySession struct {
	rs  *relayServer
	c   *smtp.Conn
	msg received
}

func (s *relaySession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *relaySession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != s.rs.user || password != s.rs.pw {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication failed"}
		}
		s.msg.User = username
		return nil
	}), nil
}

func (s *relaySession) Mail(from string, _ *smtp.MailOptions) error {
	if s.rs.user != "" && s.msg.User == "" {
		return smtp.ErrAuthRequired
	}
	s.msg.From = from
	return nil
}

func (s *relaySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if to == s.rs.rejectTo {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	s.msg.To = append(s.msg.To, to)
	return nil
}

func (s *relaySession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.msg.Data = string(b)
	_, s.msg.TLS = s.c.TLSConnectionState()
	s.rs.mu.Lock()
	s.rs.msgs = append(s.rs.msgs, s.msg)
	s.rs.mu.Unlock()
	return nil
}

func (s *relaySession) Reset()        { s.msg = received{User: s.msg.User} }
func (s *relaySession) Logout() error { return nil }

// startRelay starts a relay on 127.0.0.1:0, with STARTTLS when cfg is set.
func startRelay(t *testing.T, rs *relayServer, cfg *tls.Config) *relayServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &relaySession{rs: rs, c: c}, nil
	}))
	srv.Domain = "relay.test"
	srv.AllowInsecureAuth = cfg == nil
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.ErrorLog = discardLogger{}
	srv.TLSConfig = cfg
	rs.Addr = ln.Addr().String()
	if rs.nagle {
		ln = nagleListener{ln}
	}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return rs
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

// failingReader yields data, then an error.
type failingReader struct {
	data string
	done bool
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.done {
		return 0, errors.New("disk on fire")
	}
	f.done = true
	return copy(p, f.data), nil
}
