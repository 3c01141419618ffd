package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// headerOptions are the options that add request header fields (HTTP).
var headerOptions = []option{
	{long: "header", short: 'H', arg: "'NAME: VALUE'", schemes: []string{"http"},
		help: "http(s): send this header field, repeatable; 'NAME:' removes fetch's own field of that name; @FILE reads fields one a line",
		set:  func(c *config, v string) error { return c.addHeaders(v) }},
	{long: "referer", short: 'e', arg: "URL", schemes: []string{"http"},
		help: "http(s): the Referer header",
		set:  func(c *config, v string) error { return c.addHeader("Referer: " + v) }},
}

// handlerFields are the header fields the HTTP handler writes itself from
// the URL and the request; -H cannot set them.
var handlerFields = map[string]string{
	"Host":              "the URL's host",
	"Range":             "-C -",
	"Content-Length":    "the request, which has no body",
	"Transfer-Encoding": "the request, which has no body",
	"Connection":        "the connection's reuse",
}

// addHeaders takes one -H argument: a field, or @FILE of fields.
func (c *config) addHeaders(v string) error {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return c.addHeader(v)
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := c.addHeader(line); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return sc.Err()
}

// addHeader takes "Name: value", or "Name:" to send no field of that name.
func (c *config) addHeader(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok {
		return fmt.Errorf("want 'NAME: VALUE' (or 'NAME:' to remove a field), got %q", v)
	}
	if !isToken(name) {
		return fmt.Errorf("the field name %q is not a token (RFC 9110 §5.1)", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Errorf("the %s value holds a CR, LF or NUL", name)
	}
	name = http.CanonicalHeaderKey(name)
	if why, ok := handlerFields[name]; ok {
		return fmt.Errorf("the %s field is set from %s, not by -H", name, why)
	}
	value = strings.TrimSpace(value)
	if c.header == nil {
		c.header = http.Header{}
	}
	if value == "" {
		c.header[name] = []string{""} // removed
		return nil
	}
	if vs := c.header[name]; len(vs) == 1 && vs[0] == "" {
		delete(c.header, name) // a later field undoes an earlier removal
	}
	c.header.Add(name, value)
	return nil
}

// isToken reports whether s is a token of RFC 9110 §5.6.2.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
