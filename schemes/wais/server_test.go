package wais

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// request is a decoded client message, as the test servers see it.
type request struct {
	PDU       byte
	DB        string
	QueryType string
	Seed      string
	HasSeed   bool
	Terms     map[string]string // attribute list -> term, for a type-1 query
}

// DocID, WT, From and To are the fields of a retrieval.
func (r request) DocID() string { return r.Terms[attrDocID] }
func (r request) WT() string    { return r.Terms[attrType] }
func (r request) From() string  { return r.Terms[attrFrom] }
func (r request) To() string    { return r.Terms[attrTo] }

// decodeRequest decodes an init or search request APDU.
func decodeRequest(b []byte) (request, error) {
	var r request
	if len(b) < 3 {
		return r, errors.New("short APDU")
	}
	h := int(b[0])<<8 | int(b[1])
	if h < 1 || 2+h > len(b) {
		return r, fmt.Errorf("header length %d of %d", h, len(b))
	}
	z, user := b[2:2+h], b[2+h:]
	r.PDU = z[0]
	switch r.PDU {
	case pduInit:
		return r, nil
	case pduSearch:
	default:
		return r, fmt.Errorf("PDU %d", r.PDU)
	}
	if len(z) < 11 {
		return r, errors.New("short search header")
	}
	es, err := elements(z[11:])
	if err != nil {
		return r, err
	}
	for _, e := range es {
		switch e.Tag {
		case tagDatabaseNames:
			r.DB = string(e.Val)
		case tagQueryType:
			r.QueryType = string(e.Val)
		}
	}
	us, err := elements(user)
	if err != nil {
		return r, err
	}
	for _, e := range us {
		switch e.Tag {
		case tagUserInformationLength:
			inner, err := elements(e.Val)
			if err != nil {
				return r, err
			}
			for _, e := range inner {
				if e.Tag == tagSeedWords {
					r.Seed, r.HasSeed = string(e.Val), true
				}
			}
		case tagQuery:
			q, err := elements(e.Val)
			if err != nil {
				return r, err
			}
			r.Terms = map[string]string{}
			attr := ""
			for _, e := range q {
				switch e.Tag {
				case tagAttributeList:
					attr = string(e.Val)
				case tagTerm:
					r.Terms[attr] = string(e.Val)
				}
			}
		}
	}
	return r, nil
}

// same compares the fields of two requests that carry meaning (wais.md
// §12): not the implementation name, set bounds, result set name,
// MaxDocumentsRetrieved or ReferenceID.
func same(got, want request) error {
	if got.PDU != want.PDU {
		return fmt.Errorf("PDU %d, want %d", got.PDU, want.PDU)
	}
	if got.PDU == pduInit {
		return nil
	}
	if got.DB != want.DB || got.QueryType != want.QueryType {
		return fmt.Errorf("database %q query type %q, want %q %q", got.DB, got.QueryType, want.DB, want.QueryType)
	}
	if got.QueryType == "3" && (got.Seed != want.Seed || got.HasSeed != want.HasSeed) {
		return fmt.Errorf("seed words %q, want %q", got.Seed, want.Seed)
	}
	if got.QueryType == "1" {
		for _, a := range []string{attrDocID, attrType, attrFrom, attrTo} {
			if got.Terms[a] != want.Terms[a] {
				return fmt.Errorf("term %q = %q, want %q", a, got.Terms[a], want.Terms[a])
			}
		}
	}
	return nil
}

// transcript is a recorded conversation (testdata/transcripts).
type transcript struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	Retrieved *struct {
		Fixture string `json:"fixture"`
		Bytes   int    `json:"bytes"`
	} `json:"retrieved"`
	Messages []struct {
		Dir string `json:"dir"`
		Hex string `json:"hex"`
	} `json:"messages"`
}

// msg is one recorded message: its direction and bytes.
type msg struct {
	c2s  bool
	data []byte
}

func loadTranscript(t testing.TB, name string) ([]msg, transcript) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "transcripts", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var ms []msg
	for _, m := range tr.Messages {
		d, err := hex.DecodeString(m.Hex)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ms = append(ms, msg{c2s: m.Dir == "c2s", data: d})
	}
	return ms, tr
}

func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cannedInit is the init response recorded from freeWAIS, used to answer
// an init that a transcript does not have.
func cannedInit(t testing.TB) []byte {
	ms, _ := loadTranscript(t, "wais-probe-init-search-retrieve")
	return ms[1].data
}

// replay serves one script per accepted connection, in order: it reads
// each client message, checks it against the recorded one, and answers
// with the recorded server bytes. An init the script lacks is answered
// with the canned init response; an init the client skips is skipped.
// After the script, the client must close the connection.
type replay struct {
	t       testing.TB
	ln      net.Listener
	scripts [][]msg
	init    []byte
	wg      sync.WaitGroup
	mu      sync.Mutex
	errs    []error
}

func newReplay(t testing.TB, scripts ...[]msg) *replay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &replay{t: t, ln: ln, scripts: scripts, init: cannedInit(t)}
	r.wg.Add(1)
	go r.serve()
	t.Cleanup(r.finish)
	return r
}

// Addr is the server's host:port.
func (r *replay) Addr() string { return r.ln.Addr().String() }

func (r *replay) fail(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}

func (r *replay) serve() {
	defer r.wg.Done()
	for i, script := range r.scripts {
		c, err := r.ln.Accept()
		if err != nil {
			r.fail(fmt.Errorf("accept for script %d: %v", i, err))
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer c.Close()
			if err := r.converse(c, script); err != nil {
				r.fail(fmt.Errorf("connection %d: %v", i, err))
			}
		}()
	}
}

func (r *replay) converse(c net.Conn, script []msg) error {
	for i := 0; i < len(script); i++ {
		m := script[i]
		if !m.c2s {
			if _, err := c.Write(m.data); err != nil {
				return err
			}
			continue
		}
		b, err := readMessage(c, 1<<20)
		if err != nil {
			return fmt.Errorf("reading client message for step %d: %v", i, err)
		}
		got, err := decodeRequest(b)
		if err != nil {
			return fmt.Errorf("client message %d: %v", i, err)
		}
		want, err := decodeRequest(m.data[headerLen:])
		if err != nil {
			return fmt.Errorf("recorded message %d: %v", i, err)
		}
		if got.PDU == pduInit && want.PDU != pduInit {
			if _, err := c.Write(r.init); err != nil {
				return err
			}
			i-- // the recorded message is still to come
			continue
		}
		if want.PDU == pduInit && got.PDU != pduInit {
			i++ // skip the recorded init and its response
			if i+1 >= len(script) {
				return errors.New("script ends after its init")
			}
			want, err = decodeRequest(script[i+1].data[headerLen:])
			if err != nil {
				return err
			}
			i++
		}
		if err := same(got, want); err != nil {
			return fmt.Errorf("client message %d: %v", i, err)
		}
	}
	var one [1]byte
	if n, err := c.Read(one[:]); n > 0 || err != io.EOF {
		return fmt.Errorf("after the script: the client sent more (%d bytes, %v)", n, err)
	}
	return nil
}

func (r *replay) finish() {
	r.ln.Close()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, err := range r.errs {
		r.t.Errorf("replay: %v", err)
	}
}

// part returns the messages [from, to) of a transcript.
func part(ms []msg, from, to int) []msg { return append([]msg(nil), ms[from:to]...) }
