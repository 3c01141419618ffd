package queue

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestResultsCompressed: a batch's records are published compressed,
// smaller than their JSON, and read back whole by Export; a message that
// would inflate past maxResults gives no records.
func TestResultsCompressed(t *testing.T) {
	q, ctx := openQueue(t, Options{})
	var recs []Record
	for i := range 64 {
		u := fmt.Sprintf("http://127.0.0.1:8080/page/%d.html", i)
		recs = append(recs, Record{URL: u, Kind: "file", Size: 1000 + int64(i), SHA256: fmt.Sprintf("%064x", i*7919), MediaType: "text/html", Body: Key(u), Worker: "w1", Attempts: 1, Seq: 5})
	}
	recs[3].Status, recs[3].Kind, recs[3].Error, recs[3].Body, recs[3].Size = 8, "http-status", "404 Not Found", "", 0
	if err := q.publishResults(ctx, "abc", 5, recs, nil); err != nil {
		t.Fatal(err)
	}
	m, err := q.results.GetLastMsgForSubject(ctx, batchResults+".>")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(resultBatch{recs})
	plain := len(js)
	if m.Header.Get(encodingHeader) != "deflate" || len(m.Data)*2 > plain {
		t.Errorf("published %d bytes (%q) for %d bytes of records, want deflate and at most half", len(m.Data), m.Header.Get(encodingHeader), plain)
	}
	var got []Record
	if err := q.Export(ctx, ExportOptions{}, func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("exported %d records, not the %d published", len(got), len(recs))
	}

	// A bomb: 65 MiB of zeros in a few KiB.
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.BestCompression)
	zw.Write([]byte(`{"records":[`))
	zw.Write(make([]byte, maxResults+1<<20))
	zw.Close()
	msg := nats.NewMsg(batchResults + ".bomb.1.0")
	msg.Data = b.Bytes()
	msg.Header.Set(encodingHeader, "deflate")
	if _, err := q.js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	sub, err := q.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{batchResults + ".bomb.>"}})
	if err != nil {
		t.Fatal(err)
	}
	bm, err := sub.Next()
	if err != nil {
		t.Fatal(err)
	}
	if r := records(bm); r != nil {
		t.Errorf("a message inflating past the bound gave %d records", len(r))
	}
}

// TestResultsJSON: the message made of the records' JSON made once is
// byte for byte resultBatch's JSON.
func TestResultsJSON(t *testing.T) {
	q, ctx := openQueue(t, Options{})
	recs := []Record{{URL: "http://127.0.0.1/a", Kind: "file", Size: 3}, {URL: "http://127.0.0.1/b", Status: 8, Kind: "http-status", Error: "404 \"Not\" Found"}}
	var lines [][]byte
	for _, r := range recs {
		l, err := seal(&r, nil)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if err := q.publishResults(ctx, "k", 1, recs, lines); err != nil {
		t.Fatal(err)
	}
	m, err := q.results.GetLastMsgForSubject(ctx, batchResults+".>")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(resultBatch{recs})
	if string(m.Data) != string(want) {
		t.Errorf("published %s, want %s", m.Data, want)
	}
	if !strings.HasSuffix(m.Subject, ".1.1") {
		t.Errorf("subject %s, want the counts 1 done, 1 failed", m.Subject)
	}
}
