package queue

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// patiently asks again while the server is settling ("JetStream system
// temporarily unavailable", as a stream moving to more replicas answers
// Stats' consumer info), and not after any other error.
func TestPatiently(t *testing.T) {
	unavailable := &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}
	other := errors.New("stream not found")
	for _, tc := range []struct {
		name      string
		errs      []error // f's results, in turn
		wantCalls int
		wantErr   error
	}{
		{"settles", []error{unavailable, unavailable, nil}, 3, nil},
		{"other error", []error{other, nil}, 1, other},
		{"at once", []error{nil}, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := patiently(context.Background(), func(context.Context) error {
				calls++
				return tc.errs[calls-1]
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) {
				t.Errorf("%d calls, %v; want %d, %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
