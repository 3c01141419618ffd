package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

func TestNetOptionsParse(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		resolve map[string][]netip.Addr
		connect map[string]string
		ipv     int
		bad     bool
	}{
		{args: []string{"--resolve", "a.test:80:192.0.2.1,2001:db8::1"}, resolve: map[string][]netip.Addr{"a.test:80": {netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}}},
		{args: []string{"--resolve", "A.test:*:[::1]"}, resolve: map[string][]netip.Addr{"a.test:*": {netip.MustParseAddr("::1")}}},
		{args: []string{"--resolve", "a.test:80:not-an-ip"}, bad: true},
		{args: []string{"--resolve", "a.test:99999:192.0.2.1"}, bad: true},
		{args: []string{"--resolve", "a.test"}, bad: true},
		{args: []string{"--connect-to", "a.test:80:b.test:8080"}, connect: map[string]string{"a.test:80": "b.test:8080"}},
		{args: []string{"--connect-to", "::[::1]:"}, connect: map[string]string{":": "[::1]:"}},
		{args: []string{"--connect-to", "[2001:db8::1]:443:b.test:"}, connect: map[string]string{"[2001:db8::1]:443": "b.test:"}},
		{args: []string{"--connect-to", "a.test:80:b.test"}, bad: true},
		{args: []string{"-4"}, ipv: 4},
		{args: []string{"--ipv6"}, ipv: 6},
		{args: []string{"-x", "ftp://proxy.test"}, bad: true},
	} {
		c, err := parseArgs(append(tt.args, "http://x.test/"))
		if tt.bad {
			if err == nil {
				t.Errorf("parseArgs(%q) accepted", tt.args)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(c.net.resolve, tt.resolve) || !reflect.DeepEqual(c.net.connectTo, tt.connect) || c.net.ipVersion != tt.ipv {
			t.Errorf("parseArgs(%q) = %+v", tt.args, c.net)
		}
	}
}

// gopherServer answers every selector with a line naming it.
func gopherServer(t *testing.T) string {
	return fetchtest.Serve(t, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "selector "+strings.TrimSpace(line)+"\n")
	})
}

// -x sends http and every other TCP scheme through the proxy; --noproxy
// and the environment choose as curl does.
func TestProxyOption(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "web "+r.Host)
	}))
	defer web.Close()
	_, wport, _ := net.SplitHostPort(web.Listener.Addr().String())
	_, gport, _ := net.SplitHostPort(gopherServer(t))
	hosts := map[string]string{"origin.test": "127.0.0.1"}
	httpPx := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "http", Hosts: hosts, User: "pu", Password: "pp"})
	socksPx := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "socks5", Hosts: hosts})

	out, errs, code := fetchCmd(t, "", "-sS", "-x", httpPx.URL.String(), "http://origin.test:"+wport+"/a", "gopher://origin.test:"+gport+"/0sel")
	if code != 0 || out != "web origin.test:"+wport+"selector sel\n" {
		t.Errorf("-x http: exit %d, out %q, err %q", code, out, errs)
	}
	if want := []string{"GET http://origin.test:" + wport + "/a", "CONNECT origin.test:" + gport}; !slices.Equal(httpPx.Asked(), want) {
		t.Errorf("the HTTP proxy was asked for %q, want %q", httpPx.Asked(), want)
	}

	out, errs, code = fetchCmd(t, "", "-sS", "--proxy", socksPx.URL.String(), "gopher://origin.test:"+gport+"/0sel")
	if code != 0 || out != "selector sel\n" {
		t.Errorf("-x socks5h: exit %d, out %q, err %q", code, out, errs)
	}

	// A wrong proxy password is exit 6, and not shown.
	bad := *httpPx.URL
	bad.User = nil
	out, errs, code = fetchCmd(t, "", "-sS", "-x", strings.Replace(bad.String(), "//", "//pu:wrongpw@", 1), "gopher://origin.test:"+gport+"/0sel")
	if code != 6 || strings.Contains(errs, "wrongpw") {
		t.Errorf("-x with a wrong password: exit %d, out %q, err %q; want exit 6 without the password", code, out, errs)
	}

	// --noproxy: straight to 127.0.0.1.
	before := len(socksPx.Asked())
	out, errs, code = fetchCmd(t, "", "-sS", "-x", socksPx.URL.String(), "--noproxy", "127.0.0.1", "gopher://127.0.0.1:"+gport+"/0direct")
	if code != 0 || out != "selector direct\n" || len(socksPx.Asked()) != before {
		t.Errorf("--noproxy: exit %d, out %q, err %q, proxy asked %q", code, out, errs, socksPx.Asked())
	}

	// ALL_PROXY carries gopher; --noproxy overrides NO_PROXY.
	t.Setenv("ALL_PROXY", socksPx.URL.String())
	t.Setenv("NO_PROXY", "origin.test")
	out, errs, code = fetchCmd(t, "", "-sS", "--noproxy", "other.test", "gopher://origin.test:"+gport+"/0env")
	if code != 0 || out != "selector env\n" || !slices.Contains(socksPx.Asked(), "origin.test:"+gport) {
		t.Errorf("ALL_PROXY: exit %d, out %q, err %q, proxy asked %q", code, out, errs, socksPx.Asked())
	}

	// --no-private judges the proxy's own address.
	out, errs, code = fetchCmd(t, "", "-sS", "--no-private", "-x", socksPx.URL.String(), "gopher://origin.test:"+gport+"/0x")
	if code != 11 {
		t.Errorf("--no-private through a loopback proxy: exit %d, out %q, err %q; want 11", code, out, errs)
	}
}

// An https URL through -x whose CONNECT the proxy refuses, or never
// answers, exits as CONTRACT §1 says: 407 is 6, another refusal 5, silence
// past --connect-timeout 10; the proxy's password is never shown.
func TestProxyHTTPSRefused(t *testing.T) {
	for _, tt := range []struct {
		reply string
		code  int
	}{
		{"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n", 6},
		{"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", 5},
		{"", 10},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					if tt.reply == "" {
						<-done
					} else {
						io.WriteString(c, tt.reply)
					}
				}
				c.Close()
			}
		}()
		_, errs, code := fetchCmd(t, "", "-sS", "--connect-timeout", "0.3", "-x", "http://u:s3cret@"+ln.Addr().String(), "https://127.0.0.1:8443/x")
		close(done)
		ln.Close()
		wg.Wait()
		if code != tt.code || strings.Contains(errs, "s3cret") {
			t.Errorf("proxy replying %q: exit %d, stderr %q; want exit %d, no password", tt.reply, code, errs, tt.code)
		}
	}
}

// --resolve and --connect-to reach a server under another name, the URL's
// Host kept.
func TestResolveConnectTo(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "host "+r.Host)
	}))
	defer web.Close()
	_, port, _ := net.SplitHostPort(web.Listener.Addr().String())
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--resolve", "named.test:" + port + ":127.0.0.1", "http://named.test:" + port + "/"}, "host named.test:" + port, 0},
		{[]string{"--connect-to", "elsewhere.test:80:127.0.0.1:" + port, "http://elsewhere.test/"}, "host elsewhere.test", 0},
		{[]string{"-6", "http://127.0.0.1:" + port + "/"}, "", 5},
		{[]string{"--resolve", "xn--bcher-kva.test:" + port + ":127.0.0.1", "http://bücher.test:" + port + "/"}, "host xn--bcher-kva.test:" + port, 0},
		{[]string{"--strict", "--resolve", "xn--bcher-kva.test:" + port + ":127.0.0.1", "http://bücher.test:" + port + "/"}, "", 3},
		{[]string{"--no-private", "--resolve", "named.test:" + port + ":127.0.0.1", "http://named.test:" + port + "/"}, "", 11},
	} {
		out, errs, code := fetchCmd(t, "", append([]string{"-sS"}, tt.args...)...)
		if code != tt.code || out != tt.want {
			t.Errorf("fetch %q: exit %d, out %q, err %q; want exit %d, %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}
