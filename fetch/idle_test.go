package fetch

import (
	"context"
	"slices"
	"testing"
)

// idleHandler records the addresses CloseIdle was called with.
type idleHandler struct{ closed []string }

func (h *idleHandler) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	return nil, Errorf(Unsupported, "not here")
}

func (h *idleHandler) CloseIdle(hostport string) { h.closed = append(h.closed, hostport) }

func TestClientCloseIdle(t *testing.T) {
	var c Client
	h := &idleHandler{}
	c.Register("http", h)
	c.Register("gopher", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) { return nil, nil }))
	c.CloseIdle("Example.ORG:80")
	if want := []string{"example.org:80"}; !slices.Equal(h.closed, want) {
		t.Errorf("CloseIdle called with %q, want %q (the host in lower case; a handler without the ability skipped)", h.closed, want)
	}
}
