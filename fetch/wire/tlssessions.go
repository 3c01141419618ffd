package wire

import (
	"crypto/tls"
	"sync"
)

// maxSessionConfigs bounds the TLS configurations a TLSSessions keeps a
// cache for; past it, it starts over.
const maxSessionConfigs = 8

// TLSSessions keeps a TLS client session cache for each TLS configuration
// that a handler's requests carry, so that the handler's later connections
// to a server resume the session of an earlier one (RFC 8446 §2.2; RFC 5077
// for TLS 1.2) instead of making a full handshake: the server sends no
// certificate chain, the client verifies none, and under TLS 1.2 no key
// exchange is made. curl keeps such a cache too.
//
// A configuration that sets its own ClientSessionCache keeps it. Sessions
// are never shared between two configurations, so that a session whose
// certificate was verified under one configuration's roots is not resumed
// under another's. Resumption does not weaken verification otherwise:
// crypto/tls resumes a session only for the server name it was verified
// for, while its certificate is valid, and never a session made without
// verification under a configuration that verifies.
//
// The zero value is ready to use. It is safe for concurrent use, and must
// not be copied after first use.
type TLSSessions struct {
	mu     sync.Mutex
	caches map[*tls.Config]tls.ClientSessionCache
}

// Config returns the TLS configuration for a connection to serverName
// made under base (nil means the defaults): a copy of base, with
// ServerName set to serverName when base names none, and with the session
// cache s keeps for base when base sets none. The copy is the caller's.
func (s *TLSSessions) Config(base *tls.Config, serverName string) *tls.Config {
	var c *tls.Config
	if base != nil {
		c = base.Clone()
	} else {
		c = &tls.Config{}
	}
	if c.ServerName == "" {
		c.ServerName = serverName
	}
	if c.ClientSessionCache == nil {
		c.ClientSessionCache = s.cache(base)
	}
	return c
}

// cache returns the session cache kept for base, made on first use.
func (s *TLSSessions) cache(base *tls.Config) tls.ClientSessionCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.caches[base]; ok {
		return c
	}
	if s.caches == nil || len(s.caches) >= maxSessionConfigs {
		// A caller making a new configuration per request: start over
		// rather than grow without bound.
		s.caches = make(map[*tls.Config]tls.ClientSessionCache)
	}
	c := tls.NewLRUClientSessionCache(0)
	s.caches[base] = c
	return c
}
