package warc

// ProfileIdenticalPayload is the WARC-Profile of a revisit record whose
// payload is that of an earlier record (WARC 1.1 §6.7.2).
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// DefaultRevisitMemory is the bytes a Writer spends remembering payloads
// for Options.Revisits when Options.RevisitMemory is zero: some 50,000
// payloads of URLs of 100 bytes.
const DefaultRevisitMemory = 16 << 20

// revisitOf is the first record of a payload.
type revisitOf struct {
	id, target, date string
}

// revisitCost is about what remembering a payload costs: its strings, and
// the map's entry and the strings' headers.
func revisitCost(digest string, r revisitOf) int {
	return len(digest) + len(r.id) + len(r.target) + len(r.date) + 128
}

func (w *Writer) revisitMemory() int {
	if w.opts.RevisitMemory > 0 {
		return w.opts.RevisitMemory
	}
	return DefaultRevisitMemory
}

// revisit returns the record to write in place of a response or resource
// record whose payload was written before, with Options.Revisits: a
// revisit record, its block the HTTP head only. Otherwise it returns h and
// sp as they are, and notes the payload. release frees what it made. The
// caller holds w.mu.
func (w *Writer) revisit(id string, h *Header, sp *spool) (*Header, *spool, func(), error) {
	none := func() {}
	if !w.opts.Revisits || h.Type != TypeResponse && h.Type != TypeResource || h.Truncated != "" ||
		sp.size <= max(sp.headLen, 0) {
		return h, sp, none, nil
	}
	d := sp.payloadDigest()
	first, ok := w.seen[d]
	if !ok {
		if w.seen == nil {
			w.seen = make(map[string]revisitOf)
		}
		date := h.Date
		if date.IsZero() {
			date = w.now()
		}
		r := revisitOf{id: id, target: h.TargetURI, date: FormatDate(date)}
		if cost := revisitCost(d, r); w.seenN+cost <= w.revisitMemory() {
			w.seen[d] = r
			w.seenN += cost
		}
		return h, sp, none, nil
	}
	rsp, err := w.spool(sp.head, nil)
	if err != nil {
		return nil, nil, none, err
	}
	rh := *h
	rh.Type = TypeRevisit
	if h.Type == TypeResource {
		rh.ContentType = "" // no block
	}
	rh.Fields = append(append([]Field(nil), h.Fields...),
		Field{"WARC-Profile", ProfileIdenticalPayload},
		Field{"WARC-Refers-To", first.id},
		Field{"WARC-Refers-To-Target-URI", first.target},
		Field{"WARC-Refers-To-Date", first.date},
		Field{"WARC-Payload-Digest", d},
	)
	return &rh, rsp, func() { rsp.Close() }, nil
}
