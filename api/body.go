package api

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/ddb"
)

// maxBodyBytes caps a request body, on the wire and after decompression:
// DynamoDB's largest requests (BatchWriteItem, TransactWriteItems) are
// limited to 16 MB.
const maxBodyBytes = 16 << 20

// errTooLarge is the answer to a body over maxBodyBytes.
func errTooLarge() *ddb.Error {
	return apiErr(codeEntityTooLarge, "Request Entity Too Large")
}

// readBody reads the request body, undoing a gzip or deflate
// Content-Encoding, and refuses bodies over maxBodyBytes.
func readBody(r *http.Request) ([]byte, error) {
	raw, err := readRawBody(r)
	if err != nil {
		return nil, err
	}
	return decodeBody(r, raw)
}

// readRawBody reads the request body as sent, refusing bodies over
// maxBodyBytes.
func readRawBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > maxBodyBytes {
		return nil, errTooLarge()
	}
	return readCapped(r.Body, r.ContentLength)
}

// decodeBody undoes r's gzip or deflate Content-Encoding of raw, refusing
// results over maxBodyBytes and bodies that are not UTF-8: DynamoDB answers
// those with a bare SerializationException, where a JSON decoder would
// silently store U+FFFD in place of the bad bytes.
func decodeBody(r *http.Request, raw []byte) ([]byte, error) {
	b, err := inflateBody(r, raw)
	if err == nil && !utf8.Valid(b) {
		return nil, errSerializationf("")
	}
	return b, err
}

// inflateBody undoes r's gzip or deflate Content-Encoding of raw. A body
// that does not decode, or an encoding other than these, is a 400
// SerializationException. DynamoDB itself decodes only gzip and answers a
// bad body or an unknown encoding with a 500 InternalServerError (ScyllaDB's
// suite records this against DynamoDB; AWS does not document it); a 5xx would
// make SDKs retry a request that can never succeed, so ddblocal keeps a 400.
func inflateBody(r *http.Request, raw []byte) ([]byte, error) {
	enc := header(r.Header, hdrContentEncoding)
	if enc == "" {
		return raw, nil
	}
	enc = strings.ToLower(strings.TrimSpace(enc))
	switch enc {
	case "", "identity":
		return raw, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, badEncoding(enc)
		}
		return decompress(zr, enc)
	case "deflate":
		// RFC 9110's deflate is zlib-wrapped, but some clients send raw
		// DEFLATE; accept both.
		if zr, err := zlib.NewReader(bytes.NewReader(raw)); err == nil {
			return decompress(zr, enc)
		}
		return decompress(flate.NewReader(bytes.NewReader(raw)), enc)
	}
	return nil, errSerializationf("Unsupported Content-Encoding: " + enc)
}

// readCapped reads all of rd, failing with errTooLarge past maxBodyBytes.
// sizeHint (the Content-Length, or -1 when unknown) sizes the buffer so
// that the usual body is read without regrowing it.
func readCapped(rd io.Reader, sizeHint int64) ([]byte, error) {
	b, err := readAll(rd, sizeHint)
	if len(b) > maxBodyBytes {
		return nil, errTooLarge()
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, errTooLarge()
	}
	return b, err
}

// readAll is io.ReadAll of at most maxBodyBytes+1 bytes (enough to tell
// an oversized body), starting from a buffer of sizeHint+1 bytes (the
// extra byte lets the final read see EOF without growing the buffer). It
// caps the read itself rather than through io.LimitReader, which cost an
// allocation per request.
func readAll(rd io.Reader, sizeHint int64) ([]byte, error) {
	const limit = maxBodyBytes + 1
	n := int64(512)
	if sizeHint > 0 && sizeHint <= maxBodyBytes {
		n = sizeHint + 1
	}
	b := make([]byte, 0, n)
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k, err := rd.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+k]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
	}
	return b, nil
}

// decompress reads a decompressing reader to the end, capped.
func decompress(rc io.ReadCloser, enc string) ([]byte, error) {
	defer rc.Close()
	b, err := readCapped(rc, -1)
	if err != nil {
		var te *ddb.Error
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, badEncoding(enc)
	}
	return b, nil
}

func badEncoding(enc string) *ddb.Error {
	return errSerializationf("Request body is not valid " + enc + " data")
}

func errSerializationf(msg string) *ddb.Error { return apiErr(ddb.SerializationException, msg) }
