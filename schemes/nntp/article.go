package nntp

import (
	"bufio"
	"bytes"
	"io"
	"net/mail"
	"net/textproto"

	"github.com/rfc1738/fetch/fetch"
)

// MaxHeaderBytes bounds the header block ReadArticle accepts.
const MaxHeaderBytes = 1 << 20

// Article is a news article as data: its parsed header and its body. It is
// what a crawler makes of the Body of an article fetch.
type Article struct {
	// Header holds the article's header fields (RFC 5536), keyed in
	// canonical form ("Message-Id", "Subject", ...).
	Header mail.Header
	// Body reads the article's body, after the blank line. It reads from
	// the reader given to ReadArticle, which the caller still closes.
	Body io.Reader
}

// ReadArticle reads an article's header from r (headers, a blank line,
// the body; lines ending "\n" or CR LF, as an article fetch delivers) and
// returns the article with Body positioned at the start of the body. A
// header longer than MaxHeaderBytes, or one that is not a header, is an
// error of Kind Protocol; a stream that ends inside the header keeps its
// own error (Kind Incomplete from a fetch Body).
func ReadArticle(r io.Reader) (*Article, error) {
	br := bufio.NewReaderSize(r, 16<<10)
	var hdr bytes.Buffer
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			err = nil
		}
		hdr.Write(line)
		if hdr.Len() > MaxHeaderBytes {
			return nil, fetch.Errorf(fetch.Protocol, "article header longer than %d bytes", MaxHeaderBytes)
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 && len(line) > 0 && line[len(line)-1] == '\n' {
			break // the blank line
		}
		if err == io.EOF {
			break // a header with no body
		}
		if err != nil {
			return nil, err
		}
	}
	h, err := parseHeader(hdr.Bytes())
	if err != nil {
		return nil, err
	}
	return &Article{Header: h, Body: br}, nil
}

// parseHeader parses a header block with textproto's MIME header reader.
func parseHeader(b []byte) (mail.Header, error) {
	b = bytes.TrimRight(b, "\r\n")
	tr := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(b), bytes.NewReader([]byte("\r\n\r\n")))))
	h, err := tr.ReadMIMEHeader()
	if err != nil {
		return nil, fetch.Errorf(fetch.Protocol, "malformed article header: %w", err)
	}
	return mail.Header(h), nil
}
