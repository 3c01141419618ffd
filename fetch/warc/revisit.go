package warc

// ProfileIdenticalPayload is the WARC-Profile of a revisit record whose
// payload is that of an earlier record (WARC 1.1 §6.7.2).
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// revisitOf is the first record of a payload.
type revisitOf struct {
	id, target, date string
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
		w.seen[d] = revisitOf{id: id, target: h.TargetURI, date: FormatDate(date)}
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
