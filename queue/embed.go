package queue

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// embedded is a JetStream server run inside this process, or the address of
// the one another process on this machine runs for the same state
// directory.
type embedded struct {
	url   string
	token string // the credential clients present
	srv   *server.Server
	lock  *os.File
}

const (
	lockName  = "server.lock"
	urlName   = "server.url"
	portName  = "server.port"
	tokenName = "server.token"
)

// token returns the credential of the server of dir, kept in the file
// server.token (mode 0600), made the first time: only the user who owns the
// state directory can read it, so no other local user can publish a job.
func token(dir string) (string, error) {
	p := filepath.Join(dir, tokenName)
	if b, err := os.ReadFile(p); err == nil && len(bytes.TrimSpace(b)) > 0 {
		return string(bytes.TrimSpace(b)), nil
	}
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		// Another process made it first.
		b, err := os.ReadFile(p)
		return string(bytes.TrimSpace(b)), err
	}
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return tok, err
}

// startEmbedded serves the JetStream state in dir, or finds the process
// that already does. It waits at most wait for that process to publish its
// address.
func startEmbedded(dir, listen string, wait time.Duration) (*embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("queue state: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("queue state: %w", err)
	}
	tok, err := token(dir)
	if err != nil {
		return nil, fmt.Errorf("queue state: the server's credential: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("queue state: %w", err)
		}
		ok, err := tryLock(lock)
		if err != nil {
			lock.Close()
			return nil, fmt.Errorf("queue state lock: %w", err)
		}
		if ok {
			e, err := serve(dir, listen, tok, lock, false)
			if err != nil {
				unlockFile(lock)
				lock.Close()
			}
			return e, err
		}
		lock.Close()
		// Another process serves this state: use its address once written.
		if b, err := os.ReadFile(filepath.Join(dir, urlName)); err == nil && len(b) > 0 {
			return &embedded{url: strings.TrimSpace(string(b)), token: tok}, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("queue state %s is locked by another process that published no address", dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serve runs the server for dir, on the port it had before when that port
// is free; samePort makes a port that is not free an error.
func serve(dir, listen, tok string, lock *os.File, samePort bool) (*embedded, error) {
	host, want := "127.0.0.1", 0
	if listen != "" {
		h, p, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("queue: listen address %q: %w", listen, err)
		}
		if want, err = strconv.Atoi(p); err != nil || want < 0 || want > 65535 {
			return nil, fmt.Errorf("queue: listen address %q: a bad port", listen)
		}
		if h != "" {
			host = h
		}
	}
	// A stale address from a process that died must not be read while this
	// one starts.
	os.Remove(filepath.Join(dir, urlName))
	// The server keeps its port from one host process to the next, so that
	// the processes connected to one that exits reconnect by themselves to
	// whichever of them takes over (see takeOver).
	port := server.RANDOM_PORT
	if want > 0 {
		port = want
	} else if b, err := os.ReadFile(filepath.Join(dir, portName)); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && portFree(host, p) {
			port = p
		}
	}
	if samePort && port == server.RANDOM_PORT {
		return nil, errors.New("the embedded server's port is not free yet")
	}
	opts := &server.Options{
		ServerName:    "fetch-embedded",
		Host:          host,
		Port:          port,
		Authorization: tok,
		JetStream:     true,
		StoreDir:      filepath.Join(dir, "jetstream"),
		NoLog:         true,
		NoSigs:        true,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("embedded NATS server did not start within 30s")
	}
	u := srv.ClientURL()
	if a, ok := srv.Addr().(*net.TCPAddr); ok {
		os.WriteFile(filepath.Join(dir, portName), []byte(strconv.Itoa(a.Port)+"\n"), 0o600)
	}
	tmp := filepath.Join(dir, urlName+".tmp")
	if err := os.WriteFile(tmp, []byte(u+"\n"), 0o600); err == nil {
		os.Rename(tmp, filepath.Join(dir, urlName))
	}
	if a, ok := srv.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		// Listening everywhere: this machine's processes connect by
		// loopback.
		u = "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return &embedded{url: u, token: tok, srv: srv, lock: lock}, nil
}

// close stops the server this process runs, if any.
func (e *embedded) close() {
	if e == nil || e.srv == nil {
		return
	}
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	os.Remove(filepath.Join(filepath.Dir(e.lock.Name()), urlName))
	unlockFile(e.lock)
	e.lock.Close()
}

// portFree reports whether port can be listened on at host.
func portFree(host string, port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// takeOver is run by a process connected to another's embedded server when
// the connection drops: if the host process has gone (its lock is free),
// this process serves the state in dir itself, on the same port, and the
// connections of every process reconnect to it. It tries until stop is
// closed (the connection came back, or the queue is closing).
func takeOver(dir, listen, tok string, stop <-chan struct{}) *embedded {
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		select {
		case <-stop:
			return nil
		case <-time.After(wait):
		}
		lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			continue
		}
		if ok, _ := tryLock(lock); !ok {
			lock.Close()
			continue
		}
		e, err := serve(dir, listen, tok, lock, true)
		if err != nil {
			unlockFile(lock)
			lock.Close()
			continue
		}
		return e
	}
}
