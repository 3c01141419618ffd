package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/rfc1738/fetch/url"
)

// Job is one fetch to perform: a URL and the per-fetch options that travel
// with it.
type Job struct {
	// URL is the URL to fetch, as given (parsed leniently by the worker).
	URL string `json:"url"`
	// ConnectTimeout bounds each dial; zero means the worker's default.
	ConnectTimeout time.Duration `json:"connect_timeout,omitempty"`
	// MaxTime bounds the whole fetch; zero means the worker's default.
	MaxTime time.Duration `json:"max_time,omitempty"`
	// AllowPortOverride permits another protocol's well-known port.
	AllowPortOverride bool `json:"allow_port_override,omitempty"`
}

// maxJobSize bounds a job message: a URL and a few options, or a batch
// of jobs (see maxBatchBytes).
const maxJobSize = 64 << 10

// maxURL bounds a job's URL; a longer one is terminated unfetched.
const maxURL = 16 << 10

// maxHost bounds a job's host (a DNS name has at most 253 characters); a
// job with a longer one is recorded as malformed.
const maxHost = 255

func (j Job) encode() ([]byte, error) { return json.Marshal(j) }

var parser = url.Parser{Lenient: true}

// Key returns the hex SHA-256 of rawURL's normalized form: the job's
// message id, the name of its body in a Store, and how a redelivered job is
// recognised. A URL that does not parse is keyed by its text.
func Key(rawURL string) string {
	canon := rawURL
	if u, err := parser.Parse(rawURL); err == nil {
		canon = normalize(u)
	}
	sum := sha256.Sum256([]byte(canon))
	return hex.EncodeToString(sum[:])
}
