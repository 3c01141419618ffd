package ftp

import (
	"slices"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

func TestTLS(t *testing.T) {
	tests := []struct {
		name     string
		scheme   string
		explicit bool
		want     []string
	}{
		{"explicit", "ftp", true, []string{"AUTH TLS", "USER anonymous", "PASS fetch@example.com", "PBSZ 0", "PROT P", "PWD",
			"TYPE I", "SIZE f.bin", "EPSV", "RETR f.bin", "QUIT"}},
		{"implicit", "ftps", false, []string{"USER anonymous", "PASS fetch@example.com", "PBSZ 0", "PROT P", "PWD",
			"TYPE I", "SIZE f.bin", "EPSV", "RETR f.bin", "QUIT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srvConf, cliConf := fetchtest.TLS(t)
			s := newFakeServer(t)
			s.tlsConf, s.implicit = srvConf, !tt.explicit
			s.files["/f.bin"] = []byte("secret data over TLS")
			s.start()
			h := &Handler{ExplicitTLS: tt.explicit}
			r := req(t, tt.scheme+"://"+s.addr()+"/f.bin")
			r.TLS = cliConf
			_, body, err := get(t, h, r)
			if err != nil || string(body) != "secret data over TLS" {
				t.Fatalf("fetch: %q, %v", body, err)
			}
			plan, _ := h.Plan(r)
			h.Close()
			got := s.commands()
			if len(got) != 1 || !slices.Equal(got[0], tt.want) {
				t.Errorf("commands = %q\nwant %q", got, tt.want)
			}
			if len(plan) != len(tt.want)-1 {
				t.Errorf("Plan = %q, want %d lines", plan, len(tt.want)-1)
			}
		})
	}
}

func TestTLSUnverified(t *testing.T) {
	srvConf, _ := fetchtest.TLS(t)
	s := newFakeServer(t)
	s.tlsConf, s.implicit = srvConf, true
	s.files["/f.bin"] = []byte("x")
	s.start()
	h := &Handler{}
	defer h.Close()
	if _, _, err := get(t, h, req(t, "ftps://"+s.addr()+"/f.bin")); err == nil {
		t.Fatal("an unknown certificate was accepted")
	}
}
