package warc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/url"
)

// cdxLine is the JSON object of a CDXJ line.
type cdxLine struct {
	URL      string `json:"url"`
	Mime     string `json:"mime,omitempty"`
	Status   string `json:"status,omitempty"`
	Digest   string `json:"digest"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
	Type     string `json:"recordtype,omitempty"`
}

// index writes the CDXJ line of a record, with Options.Index: for
// response, resource and revisit records. The caller holds w.mu.
func (w *Writer) index(h *Header, sp *spool, offset, length int64) error {
	if w.opts.Index == nil || h.Type != TypeResponse && h.Type != TypeResource && h.Type != TypeRevisit {
		return nil
	}
	date := h.Date
	if date.IsZero() {
		date = w.now()
	}
	l := cdxLine{URL: h.TargetURI, Mime: h.ContentType, Length: strconv.FormatInt(length, 10),
		Offset: strconv.FormatInt(offset, 10), Filename: w.opts.Filename}
	digest := ""
	for _, f := range h.Fields {
		if f.Name == "WARC-Payload-Digest" {
			digest = f.Value
		}
	}
	if digest == "" {
		digest = sp.payloadDigest()
	}
	l.Digest = strings.TrimPrefix(digest, "sha1:")
	if len(sp.head) > 0 {
		if status, mime, ok := httpHead(sp.head); ok {
			l.Status, l.Mime = status, mime
		}
	}
	if h.Type == TypeRevisit {
		l.Mime, l.Type = "warc/revisit", TypeRevisit
	}
	j, err := json.Marshal(l)
	if err != nil {
		return err
	}
	line := Surt(h.TargetURI) + " " + date.UTC().Format("20060102150405") + " " + string(j) + "\n"
	_, err = w.opts.Index.Write([]byte(line))
	return err
}

// httpHead returns the status code and the media type of an HTTP
// response head.
func httpHead(head []byte) (status, mime string, ok bool) {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	first, err := r.ReadLine()
	if err != nil {
		return "", "", false
	}
	f := strings.Fields(first)
	if len(f) < 2 {
		return "", "", false
	}
	h, _ := r.ReadMIMEHeader()
	mime, _, _ = strings.Cut(http.Header(h).Get("Content-Type"), ";")
	return f[1], strings.TrimSpace(mime), true
}

// Surt returns the Sort-friendly URI Reordering Transform of a URL, as
// pywb's indexes key it: the host's labels reversed, comma-separated,
// without "www.", then ")" and the path and query, lower case
// ("http://www.Example.com/A?b" is "com,example)/a?b"). The port is kept
// when it is not the scheme's default; a URL that does not parse is
// returned lower case.
func Surt(raw string) string {
	u, err := url.ParseLenient(raw)
	if err != nil || u.Host == "" {
		return strings.ToLower(raw)
	}
	u = u.Normalize()
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	s := strings.Join(labels, ",")
	if u.Port != 0 {
		s += ":" + strconv.Itoa(u.Port)
	}
	return s + ")/" + strings.ToLower(u.Path)
}
