package url

import "unsafe"

// builder holds a URL while it is parsed, on the stack, with what its one
// allocation must write rather than slice out of the input: a scheme name
// to lower-case, a user or password to decode, a path or fragment to
// encode. Until then u's fields hold those components as they stand in
// the input.
type builder struct {
	u       URL
	ui      Userinfo
	hasUser bool // u is to point at ui

	lowerScheme      bool // u.Scheme has upper-case letters
	userEsc, passEsc int  // escapes to decode in ui.Username, ui.Password
	pathBad, fragBad int  // bytes to encode in u.Path, u.Fragment (see needsNormalize)
}

// urlWithUser holds a URL and its Userinfo in one allocation.
type urlWithUser struct {
	URL URL
	ui  Userinfo
}

// urlWithBytes holds a URL, its Userinfo and, in the array B, the bytes
// of the components written for it, in one allocation.
type urlWithBytes[B any] struct {
	URL URL
	ui  Userinfo
	b   B
}

// url makes the one allocation: the URL, its Userinfo when it has one, and
// the bytes of every component written anew, which the URL's strings
// share.
func (b *builder) url() *URL {
	if !b.hasUser && !b.lowerScheme && b.pathBad|b.fragBad == 0 {
		// The common case. (Field by field, as a copy of the whole
		// struct costs a bulk write barrier while the GC marks.)
		return &URL{Scheme: b.u.Scheme, Host: b.u.Host, Port: b.u.Port, Slash: b.u.Slash,
			Path: b.u.Path, Fragment: b.u.Fragment, HasFragment: b.u.HasFragment, Hier: b.u.Hier}
	}
	n := 0
	if b.lowerScheme {
		n += len(b.u.Scheme)
	}
	if b.userEsc > 0 {
		n += len(b.ui.Username) - 2*b.userEsc
	}
	if b.passEsc > 0 {
		n += len(b.ui.Password) - 2*b.passEsc
	}
	if b.pathBad > 0 {
		n += len(b.u.Path) + 2*b.pathBad
	}
	if b.fragBad > 0 {
		n += len(b.u.Fragment) + 2*b.fragBad
	}
	if n == 0 {
		x := &urlWithUser{URL: b.u, ui: b.ui}
		x.URL.User = &x.ui
		return &x.URL
	}

	u, ui, buf := allocWithBytes(n)
	*u, *ui = b.u, b.ui
	if b.hasUser {
		u.User = ui
	}
	if b.lowerScheme {
		buf, u.Scheme = appendTail(buf, appendLower, b.u.Scheme)
	}
	if b.userEsc > 0 {
		buf, ui.Username = appendTail(buf, appendUnescape, b.ui.Username)
	}
	if b.passEsc > 0 {
		buf, ui.Password = appendTail(buf, appendUnescape, b.ui.Password)
	}
	if b.pathBad > 0 {
		buf, u.Path = appendTail(buf, appendEncodeBad, b.u.Path)
	}
	if b.fragBad > 0 {
		_, u.Fragment = appendTail(buf, appendEncodeBad, b.u.Fragment)
	}
	return u
}

// allocWithBytes allocates a URL and a Userinfo together with room for n
// bytes, returned as an empty slice. Up to 4 KiB of bytes share the URL's
// allocation; more take a second one.
func allocWithBytes(n int) (*URL, *Userinfo, []byte) {
	switch {
	case n <= 32:
		return newWithBytes[[32]byte]()
	case n <= 64:
		return newWithBytes[[64]byte]()
	case n <= 128:
		return newWithBytes[[128]byte]()
	case n <= 256:
		return newWithBytes[[256]byte]()
	case n <= 512:
		return newWithBytes[[512]byte]()
	case n <= 1024:
		return newWithBytes[[1024]byte]()
	case n <= 2048:
		return newWithBytes[[2048]byte]()
	case n <= 4096:
		return newWithBytes[[4096]byte]()
	}
	x := new(urlWithUser)
	return &x.URL, &x.ui, make([]byte, 0, n)
}

// newWithBytes allocates a urlWithBytes[B], B an array of bytes, and
// returns its URL, its Userinfo and its array as an empty slice.
func newWithBytes[B any]() (*URL, *Userinfo, []byte) {
	x := new(urlWithBytes[B])
	return &x.URL, &x.ui, unsafe.Slice((*byte)(unsafe.Pointer(&x.b)), unsafe.Sizeof(x.b))[:0]
}

// appendTail appends the form of s that write gives to buf and returns buf
// and what was appended, as a string sharing buf's memory.
func appendTail(buf []byte, write func([]byte, string) []byte, s string) ([]byte, string) {
	start := len(buf)
	buf = write(buf, s)
	return buf, tail(buf, start)
}

// tail returns buf[start:] as a string sharing buf's memory, which must
// not change afterwards: the allocation's bytes are written once, each
// component after the last.
func tail(buf []byte, start int) string {
	if start == len(buf) {
		return ""
	}
	return unsafe.String(&buf[start], len(buf)-start)
}
