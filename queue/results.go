package queue

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// encodingHeader names the compression of a results message's data.
const encodingHeader = "Content-Encoding"

// compressFrom is the size from which a batch's results are compressed.
const compressFrom = 1 << 10

// maxResults bounds a results message's data once inflated: a batch's
// records (at most 60 KiB of jobs, each record a few hundred bytes and
// its error message at most a few KiB) are far below it.
const maxResults = 64 << 20

// deflaters keeps the compressors of results messages: one is about
// 600 KiB of state, which made anew for each batch cost more than the
// compression itself.
var deflaters = sync.Pool{New: func() any {
	zw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return zw
}}

// resultBatch is the message of a batch's results on FETCH_RESULTS.
type resultBatch struct {
	Records []Record `json:"records"`
}

// batchResults is the subject prefix of a batch's results:
// "fetch.results.batch.<batch key>.<done>.<failed>", the counts of its
// records of each outcome, so that Stats counts jobs without reading the
// messages.
const batchResults = ResultSubject + ".batch"

// publishResults publishes the records of a batch, recs, as one message
// (lines their JSON when the caller has it, else nil); its
// message id (the batch's key and sequence) stores it once when a
// redelivered batch publishes it again. A message of compressFrom bytes
// or more is compressed (deflate, the header Content-Encoding saying so):
// each byte of a result is written by every replica of FETCH_RESULTS, and
// a batch's records, alike in all but their URLs and digests, shrink to
// about a third.
func (q *Queue) publishResults(ctx context.Context, key string, seq uint64, recs []Record, lines [][]byte) error {
	done := 0
	for _, r := range recs {
		if r.Status == 0 {
			done++
		}
	}
	if lines == nil {
		lines = make([][]byte, len(recs))
		for i := range recs {
			line, err := json.Marshal(recs[i])
			if err != nil {
				return err
			}
			lines[i] = line
		}
	}
	// resultBatch{recs}'s JSON, of the records' JSON made already.
	n := len(`{"records":[]}`)
	for _, l := range lines {
		n += len(l) + 1
	}
	data := make([]byte, 0, n)
	data = append(data, `{"records":[`...)
	for i, l := range lines {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, l...)
	}
	data = append(data, "]}"...)
	msg := nats.NewMsg(fmt.Sprintf("%s.%s.%d.%d", batchResults, key, done, len(recs)-done))
	msg.Data = data
	if len(data) >= compressFrom {
		var b bytes.Buffer
		zw := deflaters.Get().(*flate.Writer)
		zw.Reset(&b)
		zw.Write(data)
		zw.Close()
		deflaters.Put(zw)
		msg.Data = b.Bytes()
		msg.Header.Set(encodingHeader, "deflate")
	}
	_, err := q.js.PublishMsg(ctx, msg, jetstream.WithMsgID(fmt.Sprintf("batch.%s.%d", key, seq)))
	return err
}

// records returns the records of a message of FETCH_RESULTS: one, or a
// batch's, inflated first when compressed (at most maxResults bytes).
func records(msg jetstream.Msg) []Record {
	data := msg.Data()
	if h := msg.Headers(); h != nil && h.Get(encodingHeader) == "deflate" {
		zr := flate.NewReader(bytes.NewReader(data))
		inflated, err := io.ReadAll(io.LimitReader(zr, maxResults+1))
		if err != nil || len(inflated) > maxResults {
			return nil
		}
		data = inflated
	}
	var m struct {
		Record
		Records []Record `json:"records"`
	}
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	if m.Records != nil {
		return m.Records
	}
	if m.URL == "" {
		return nil
	}
	return []Record{m.Record}
}
