package schemes

import (
	"testing"

	"github.com/rfc1738/fetch/fetch"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
)

// HTTP keeps as many connections to a host as the Client lets transfers
// run there, so that parallel transfers do not queue for a connection.
func TestHTTPConnectionsFollowPerHost(t *testing.T) {
	c := &fetch.Client{PerHost: 20}
	Register(c, Config{})
	h, ok := c.Handler("http")
	if !ok {
		t.Fatal("no http handler")
	}
	if got := h.(*httpscheme.Handler).MaxConnsPerHost; got != 20 {
		t.Errorf("MaxConnsPerHost = %d, want the Client's PerHost 20", got)
	}
}
