package fetch

import (
	"errors"
	"testing"

	"github.com/rfc1738/fetch/url"
)

func TestPolicyCheck(t *testing.T) {
	tests := []struct {
		url      string
		override bool
		refused  bool
	}{
		{"ftp://h/pub/file", false, false},
		{"ftp://h/a%0D%0ADELE%20x", false, true}, // CR LF injection (§6)
		{"ftp://h/a%0aDELE", false, true},        // lower-case hex
		{"ftp://h/a%00b", false, true},           // NUL
		{"ftp://h/a%09b", false, true},           // TAB in FTP
		{"nntp://h/group/1", false, false},
		{"news:a%0Db@h", false, true},
		{"http://h/a%09b", false, true},
		{"gopher://h/1sel%09search", false, false}, // TAB as gopher's separator
		{"gopher://h/1sel%0D%0A", false, true},
		{"gopher://h/7sel%09se%0Aarch", false, true},
		{"ftp://u%0Ax:p@h/", false, true}, // in the user
		{"ftp://u:p%0D@h/", false, true},  // in the password
		{"http://h:25/", false, true},     // SMTP's port
		{"http://h:25/", true, false},     // with --allow-port-override
		{"gopher://h:110/", false, true},
		{"ftp://h:21/", false, false}, // its own port
		{"nntp://h:119/g", false, false},
		{"http://h:8080/", false, false},
		{"http://h:79/", false, true},
		{"file:///tmp/a%09b", false, false}, // TAB is a legal file name byte
		{"file:///tmp/a%00b", false, true},
		{"wais://h/db/TEXT/%00%0D%0A%FF", false, false}, // a WAIS document id is opaque binary
		{"wais://h/db%0D/TEXT/x", false, true},          // but the database is not
		{"wais://h/db?a%0Ab", false, true},              // nor the search words
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.url, err)
		}
		err = Policy{AllowPortOverride: tt.override}.Check(u)
		if got := errors.Is(err, Refused); got != tt.refused {
			t.Errorf("Check(%q, override=%v) = %v, want refused=%v", tt.url, tt.override, err, tt.refused)
		}
	}
}
