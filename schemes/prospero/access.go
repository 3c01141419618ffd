package prospero

import (
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// ftpURL builds the ftp URL an AFTP access method names:
//
//	AFTP <host-type> <host> <hsoname-type> <hsoname> [<transfer-mode>]
//
// An empty host or hsoname means the object's own. An absolute path
// becomes a first CWD to "/..." (%2F), as RFC 1738 §3.2.2 spells it; the
// transfer mode becomes ";type=i" (BINARY) or ";type=a" (ASCII, TEXT).
func ftpURL(t target, m []string) (string, error) {
	arg := func(i string, n int) string {
		if len(m) > n {
			return m[n]
		}
		return i
	}
	hostType, host, nameType, name, mode := arg("", 1), arg("", 2), arg("", 3), arg("", 4), strings.ToUpper(arg("", 5))
	if hostType != "" && hostType != "INTERNET-D" || nameType != "" && nameType != "ASCII" {
		return "", fetch.Errorf(fetch.Unsupported, "AFTP access method with a %s host or %s name", hostType, nameType)
	}
	if host == "" {
		host = t.host
	} else if h, _, ok := parseServer(host); ok {
		host = h // an FTP server's port is FTP's, not Prospero's
	} else {
		return "", fetch.Errorf(fetch.Protocol, "AFTP access method names a malformed host %q", host)
	}
	if name == "" {
		name = t.hsoname
	}
	if strings.ContainsAny(name, "\r\n\x00") {
		return "", fetch.Errorf(fetch.Refused, "the AFTP path holds a CR, LF or NUL (RFC 1738 §6)")
	}
	segs := strings.Split(name, "/")
	if len(segs) > 1 && segs[0] == "" {
		segs = segs[1:]
		segs[0] = "/" + segs[0]
	}
	for i, s := range segs {
		segs[i] = url.EscapeSegment(s)
	}
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	u := "ftp://" + host + "/" + strings.Join(segs, "/")
	switch mode {
	case "BINARY", "IMAGE":
		u += ";type=i"
	case "ASCII", "TEXT":
		u += ";type=a"
	}
	return u, nil
}

// aftpURL returns the ftp URL an AFTP access method names.
func aftpURL(t target, m []string) (*url.URL, error) {
	raw, err := ftpURL(t, m)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fetch.Errorf(fetch.Protocol, "the AFTP access method names no valid URL: %v", err)
	}
	return u, nil
}
