// Package warc writes WARC/1.1 files (ISO 28500:2017, "The WARC File
// Format 1.1"): a warcinfo record first, then one record per call, each
// with its WARC-Record-ID, WARC-Date in UTC, Content-Length, and SHA-1
// WARC-Block-Digest and WARC-Payload-Digest in base32. With Options.Gzip,
// every record is its own gzip member, as the specification's Annex D
// recommends, so that a reader can seek to any record.
//
// Bodies stream: a record's block is spooled (in memory up to
// Options.MemoryLimit, then in a temporary file) while its digests and
// length are computed, and then copied out, so memory stays flat whatever
// the size of the resource.
//
// Writer.Do fetches through a fetch.Client and records the fetch when its
// body is closed (Writer.Tee does the same for a Resource fetched already):
// HTTP as a request record and a response record (see Writer.WriteHTTP),
// every other scheme as a resource record. Writer.Dial, installed as the
// Client's dial hook, gives the records their WARC-IP-Address.
package warc

import (
	"bufio"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version is the WARC version this package writes.
const Version = "WARC/1.1"

// The record types of WARC 1.1 §6 this package writes.
const (
	TypeWarcinfo = "warcinfo"
	TypeResponse = "response"
	TypeResource = "resource"
	TypeRequest  = "request"
	TypeMetadata = "metadata"
	TypeRevisit  = "revisit"
)

// The truncation reasons of WARC 1.1 §5.13.
const (
	TruncatedLength      = "length"
	TruncatedTime        = "time"
	TruncatedDisconnect  = "disconnect"
	TruncatedUnspecified = "unspecified"
)

// Options configures a Writer. The zero value writes uncompressed records,
// spools bodies larger than 1 MiB to os.TempDir and names no software.
type Options struct {
	// Gzip compresses each record as its own gzip member. Set it when the
	// file's name ends in ".gz".
	Gzip bool
	// Filename is written as the warcinfo record's WARC-Filename; "" omits it.
	Filename string
	// Software names the program writing the file in the warcinfo record
	// ("fetch/0.1.0"); "" omits it.
	Software string
	// TempDir is where blocks larger than MemoryLimit are spooled; ""
	// means os.TempDir.
	TempDir string
	// MemoryLimit is the largest block kept in memory while its digests
	// are computed; larger blocks go to a temporary file. Zero means 1 MiB.
	MemoryLimit int
	// Now returns the time stamped on records that carry no date of their
	// own. Nil means time.Now.
	Now func() time.Time
	// Revisits writes a response or resource record whose payload is
	// identical (by its SHA-1 digest) to one this Writer wrote before as a
	// revisit record (WARC 1.1 §6.7.2, the identical-payload-digest
	// profile): the HTTP head only, WARC-Refers-To the first record.
	Revisits bool
	// RevisitMemory bounds the bytes the Writer spends remembering the
	// payloads it wrote, for Revisits (each takes its digest, its first
	// record's ID, date and target URI, and some 100 bytes more). Zero
	// means DefaultRevisitMemory. Once full, payloads not seen before are
	// no longer remembered: a later copy of one is written whole, as the
	// first was; the payloads remembered still make revisits.
	RevisitMemory int
	// Index, when set, receives a CDXJ line (pywb's index format) for
	// each response, resource and revisit record: the URL's SURT, the
	// 14-digit timestamp, and a JSON object with url, mime, status,
	// digest, length, offset and filename. The lines come in the order of
	// the records; sort them (LC_ALL=C sort) for a reader that needs them
	// sorted, as a SortedIndex does in bounded memory (and Create's File
	// with FileOptions.CDX).
	Index io.Writer
	// MaxSize, with Rotate, starts a new file once the current one holds
	// MaxSize bytes or more: before the next record (an HTTP request and
	// its response stay together), Rotate gives the next file and its
	// name, which begins with a warcinfo record of its own.
	MaxSize int64
	// Rotate returns the next file when MaxSize is reached.
	Rotate func() (w io.Writer, filename string, err error)
}

// Field is one named field of a record's header, or of a warcinfo block.
type Field struct {
	Name, Value string
}

// Header holds the named fields of one record that the caller chooses; the
// Writer adds WARC-Record-ID, Content-Length, the digests, and
// WARC-Warcinfo-ID.
type Header struct {
	// Type is WARC-Type: TypeResource, TypeResponse, ...
	Type string
	// TargetURI is WARC-Target-URI, the URI of what was captured.
	TargetURI string
	// Date is WARC-Date, the moment of capture; the zero Time means now.
	Date time.Time
	// ContentType is the block's Content-Type; "" omits it.
	ContentType string
	// IPAddress is WARC-IP-Address, the peer's numeric address; "" omits it.
	IPAddress string
	// ConcurrentTo lists the WARC-Record-IDs of records captured together
	// with this one (WARC-Concurrent-To).
	ConcurrentTo []string
	// Truncated is WARC-Truncated (TruncatedLength, ...): the block holds
	// less than the whole resource. "" means complete.
	Truncated string
	// Fields are further named fields, written in order.
	Fields []Field
}

// Writer writes WARC records to an io.Writer. It is safe for concurrent
// use: records are spooled concurrently and written whole, one at a time.
// The caller closes the underlying writer after the last record; a Writer
// holds nothing that needs closing.
type Writer struct {
	opts  Options
	peers peers

	mu     sync.Mutex
	w      *countingWriter
	bw     *bufio.Writer
	seen   map[string]revisitOf // payload digest → the first record, for Revisits
	seenN  int                  // the bytes seen takes, about (see Options.RevisitMemory)
	zw     *gzip.Writer
	infoID string // the current warcinfo record's ID; "" before the first
	err    error  // sticky: the output failed, later records are refused
}

// NewWriter returns a Writer writing records to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	cw := &countingWriter{w: w}
	return &Writer{w: cw, opts: opts, bw: bufio.NewWriterSize(cw, 64<<10)}
}

// countingWriter counts the bytes written through it: the offsets of the
// records in the file.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (w *Writer) now() time.Time {
	if w.opts.Now != nil {
		return w.opts.Now()
	}
	return time.Now()
}

// NewRecordID returns a new WARC-Record-ID: a random (version 4) UUID as a
// URN, in angle brackets.
func NewRecordID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// FormatDate formats t as a WARC-Date: UTC, ISO 8601, with the fraction of
// a second when there is one (WARC 1.1 §5.4).
func FormatDate(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999999Z")
}

// WriteInfo writes a warcinfo record whose block holds the given fields
// after the ones the Writer states itself (software, format, conformsTo).
// Records written after it name it in WARC-Warcinfo-ID. A Writer writes a
// warcinfo record of its own before the first other record when WriteInfo
// has not been called, so calling it is needed only to add fields.
func (w *Writer) WriteInfo(fields ...Field) (id string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeInfo(fields)
}

func (w *Writer) writeInfo(fields []Field) (string, error) {
	var all []Field
	if w.opts.Software != "" {
		all = append(all, Field{"software", w.opts.Software})
	}
	all = append(all,
		Field{"format", "WARC File Format 1.1"},
		Field{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"})
	all = append(all, fields...)
	var b strings.Builder
	for _, f := range all {
		if err := checkField(f); err != nil {
			return "", err
		}
		b.WriteString(f.Name + ": " + f.Value + "\r\n")
	}
	h := &Header{Type: TypeWarcinfo, ContentType: "application/warc-fields"}
	if w.opts.Filename != "" {
		h.Fields = []Field{{"WARC-Filename", w.opts.Filename}}
	}
	id := NewRecordID()
	sp, err := newSpool(w.opts)
	if err != nil {
		return "", err
	}
	defer sp.Close()
	io.WriteString(sp, b.String())
	if err := w.emit(id, h, sp); err != nil {
		return "", err
	}
	w.infoID = id
	return id, nil
}

// WriteRecord writes one record whose block is head followed by payload,
// and returns its WARC-Record-ID. The payload is what WARC-Payload-Digest
// covers: the whole block of a resource record, the entity body of an HTTP
// message whose head (start line and header fields, ending in an empty
// line) is head. The payload streams: it is spooled while its digests are
// computed, then written.
func (w *Writer) WriteRecord(h *Header, head []byte, payload io.Reader) (id string, err error) {
	id = NewRecordID()
	sp, err := w.spool(head, payload)
	if err != nil {
		return "", err
	}
	defer sp.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	return id, w.emitFirst(id, h, sp)
}

// WriteResource writes a resource record (WARC 1.1 §6.5): body is the
// resource's bytes, and h.Type is ignored.
func (w *Writer) WriteResource(h *Header, body io.Reader) (id string, err error) {
	hh := *h
	hh.Type = TypeResource
	return w.WriteRecord(&hh, nil, body)
}

// spool copies head and payload into a new spool, computing the digests.
func (w *Writer) spool(head []byte, payload io.Reader) (*spool, error) {
	sp, err := newSpool(w.opts)
	if err != nil {
		return nil, err
	}
	sp.Write(head)
	sp.payloadStart()
	if payload != nil {
		if _, err := io.Copy(sp, payload); err != nil {
			sp.Close()
			return nil, err
		}
	}
	if sp.err != nil {
		sp.Close()
		return nil, sp.err
	}
	return sp, nil
}

// emitFirst writes the warcinfo record when none was written yet, then the
// record. The caller holds w.mu.
func (w *Writer) emitFirst(id string, h *Header, sp *spool) error {
	if err := w.rotate(); err != nil {
		return err
	}
	if w.infoID == "" {
		if _, err := w.writeInfo(nil); err != nil {
			return err
		}
	}
	return w.emit(id, h, sp)
}

// emit writes one record: the header, then the spooled block. The caller
// holds w.mu.
func (w *Writer) emit(id string, h *Header, sp *spool) error {
	if w.err != nil {
		return w.err
	}
	h, sp, release, err := w.revisit(id, h, sp)
	if err != nil {
		return err
	}
	defer release()
	offset := w.w.n
	hdr, err := w.header(id, h, sp)
	if err != nil {
		return err
	}
	var out io.Writer = w.bw
	if w.opts.Gzip {
		if w.zw == nil {
			w.zw = gzip.NewWriter(w.bw)
		} else {
			w.zw.Reset(w.bw)
		}
		out = w.zw
	}
	err = w.writeAll(out, hdr, sp)
	if err == nil && w.zw != nil {
		err = w.zw.Close()
	}
	if err == nil {
		err = w.bw.Flush()
	}
	if err != nil {
		w.err = fmt.Errorf("warc: writing a record: %w", err)
		return w.err
	}
	if err := w.index(h, sp, offset, w.w.n-offset); err != nil {
		w.err = fmt.Errorf("warc: writing the index: %w", err)
		return w.err
	}
	return nil
}

// rotate starts the next file when the current one has reached MaxSize:
// before the next record, so that no file is left empty. The caller holds
// w.mu.
func (w *Writer) rotate() error {
	if w.opts.MaxSize <= 0 || w.opts.Rotate == nil || w.w.n < w.opts.MaxSize || w.infoID == "" {
		return nil
	}
	next, name, err := w.opts.Rotate()
	if err != nil {
		w.err = fmt.Errorf("warc: the next file: %w", err)
		return w.err
	}
	w.w = &countingWriter{w: next}
	w.bw.Reset(w.w)
	w.opts.Filename = name
	w.infoID = "" // the file begins with a warcinfo record of its own
	return nil
}

func (w *Writer) writeAll(out io.Writer, hdr []byte, sp *spool) error {
	if _, err := out.Write(hdr); err != nil {
		return err
	}
	if _, err := sp.WriteTo(out); err != nil {
		return err
	}
	_, err := io.WriteString(out, "\r\n\r\n")
	return err
}

// header formats a record's header block, ending in the empty line.
func (w *Writer) header(id string, h *Header, sp *spool) ([]byte, error) {
	if h.Type == "" {
		return nil, errors.New("warc: a record without a WARC-Type")
	}
	date := h.Date
	if date.IsZero() {
		date = w.now()
	}
	fs := []Field{
		{"WARC-Type", h.Type},
		{"WARC-Record-ID", id},
		{"WARC-Date", FormatDate(date)},
	}
	add := func(name, v string) {
		if v != "" {
			fs = append(fs, Field{name, v})
		}
	}
	add("WARC-Target-URI", h.TargetURI)
	add("WARC-IP-Address", h.IPAddress)
	for _, c := range h.ConcurrentTo {
		add("WARC-Concurrent-To", c)
	}
	if h.Type != TypeWarcinfo {
		add("WARC-Warcinfo-ID", w.infoID)
	}
	add("WARC-Truncated", h.Truncated)
	fs = append(fs, h.Fields...)
	add("Content-Type", h.ContentType)
	fs = append(fs, Field{"WARC-Block-Digest", sp.blockDigest()})
	if h.Type != TypeWarcinfo && h.Type != TypeRevisit && (sp.headLen == 0 || sp.size > sp.headLen) {
		// A payload is defined for resource records (the whole block)
		// and for HTTP messages that have an entity body.
		fs = append(fs, Field{"WARC-Payload-Digest", sp.payloadDigest()})
	}
	fs = append(fs, Field{"Content-Length", strconv.FormatInt(sp.size, 10)})

	var b strings.Builder
	b.WriteString(Version + "\r\n")
	for _, f := range fs {
		if err := checkField(f); err != nil {
			return nil, err
		}
		b.WriteString(f.Name + ": " + f.Value + "\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String()), nil
}

// checkField refuses a field that would break the record's syntax: a name
// that is not a token, or a CR, LF or NUL anywhere.
func checkField(f Field) error {
	if f.Name == "" {
		return errors.New("warc: a field without a name")
	}
	for i := 0; i < len(f.Name); i++ {
		c := f.Name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return fmt.Errorf("warc: field name %q is not a token", f.Name)
		}
	}
	if strings.ContainsAny(f.Value, "\r\n\x00") {
		return fmt.Errorf("warc: the value of %s holds a line break or NUL", f.Name)
	}
	return nil
}
