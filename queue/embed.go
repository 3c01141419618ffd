package queue

import (
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
	url  string
	srv  *server.Server
	lock *os.File
}

const (
	lockName = "server.lock"
	urlName  = "server.url"
	portName = "server.port"
)

// startEmbedded serves the JetStream state in dir, or finds the process
// that already does. It waits at most wait for that process to publish its
// address.
func startEmbedded(dir string, wait time.Duration) (*embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("queue state: %w", err)
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
			e, err := serve(dir, lock, false)
			if err != nil {
				unlockFile(lock)
				lock.Close()
			}
			return e, err
		}
		lock.Close()
		// Another process serves this state: use its address once written.
		if b, err := os.ReadFile(filepath.Join(dir, urlName)); err == nil && len(b) > 0 {
			return &embedded{url: strings.TrimSpace(string(b))}, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("queue state %s is locked by another process that published no address", dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serve runs the server for dir, on the port it had before when that port
// is free; samePort makes a port that is not free an error.
func serve(dir string, lock *os.File, samePort bool) (*embedded, error) {
	// A stale address from a process that died must not be read while this
	// one starts.
	os.Remove(filepath.Join(dir, urlName))
	// The server keeps its port from one host process to the next, so that
	// the processes connected to one that exits reconnect by themselves to
	// whichever of them takes over (see takeOver).
	port := server.RANDOM_PORT
	if b, err := os.ReadFile(filepath.Join(dir, portName)); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && portFree(p) {
			port = p
		}
	}
	if samePort && port == server.RANDOM_PORT {
		return nil, errors.New("the embedded server's port is not free yet")
	}
	opts := &server.Options{
		ServerName: "fetch-embedded",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   filepath.Join(dir, "jetstream"),
		NoLog:      true,
		NoSigs:     true,
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
	return &embedded{url: u, srv: srv, lock: lock}, nil
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

// portFree reports whether port can be listened on at 127.0.0.1.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
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
func takeOver(dir string, stop <-chan struct{}) *embedded {
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
		e, err := serve(dir, lock, true)
		if err != nil {
			unlockFile(lock)
			lock.Close()
			continue
		}
		return e
	}
}
