package http

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestTransportsAgree fetches each reply of headCases and of
// FuzzReadResponse's corpus, as a server sends it, on both transports: the
// outcome (the status and body delivered, or the kind of the error) must
// be the same.
func TestTransportsAgree(t *testing.T) {
	type reply struct{ name, in, method string }
	var replies []reply
	for _, tt := range headCases {
		replies = append(replies, reply{tt.name, tt.in, tt.method})
	}
	files, err := filepath.Glob("testdata/fuzz/FuzzReadResponse/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("the corpus of FuzzReadResponse: %v, %d files", err, len(files))
	}
	for _, f := range files {
		in, head, err := readCorpusEntry(f)
		if err != nil {
			t.Fatal(err)
		}
		method := ""
		if head {
			method = http.MethodHead
		}
		replies = append(replies, reply{"corpus " + filepath.Base(f), in, method})
	}
	for _, tt := range replies {
		t.Run(tt.name, func(t *testing.T) {
			base := rawServer(t, tt.in, false)
			var got [2]string
			for i, tc := range transportCases {
				res, body, err := get(t, tc.handler(t), &fetch.Request{URL: parse(t, base+"/"), Head: tt.method == http.MethodHead})
				if err != nil {
					got[i] = fmt.Sprintf("error of kind %v", fetch.KindOf(err))
				} else {
					got[i] = fmt.Sprintf("%d %q size %d", res.Status, body, res.Size)
				}
			}
			if got[0] != got[1] {
				t.Errorf("reply %.60q:\nh1:       %s\nnet/http: %s", tt.in, got[0], got[1])
			}
		})
	}
}

// readCorpusEntry reads an entry of FuzzReadResponse's corpus: the reply,
// and whether it answers HEAD.
func readCorpusEntry(name string) (in string, head bool, err error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", false, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0] != "go test fuzz v1" {
		return "", false, fmt.Errorf("%s: not an entry of (string, bool)", name)
	}
	q, ok1 := strings.CutPrefix(lines[1], "string(")
	v, ok2 := strings.CutPrefix(lines[2], "bool(")
	if !ok1 || !ok2 {
		return "", false, fmt.Errorf("%s: not an entry of (string, bool)", name)
	}
	if in, err = strconv.Unquote(strings.TrimSuffix(q, ")")); err != nil {
		return "", false, fmt.Errorf("%s: %v", name, err)
	}
	head, err = strconv.ParseBool(strings.TrimSuffix(v, ")"))
	return in, head, err
}
