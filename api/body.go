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

	"github.com/ddblocal/ddblocal/table"
)

// maxBodyBytes caps a request body, on the wire and after decompression:
// DynamoDB's largest requests (BatchWriteItem, TransactWriteItems) are
// limited to 16 MB.
const maxBodyBytes = 16 << 20

// errTooLarge is the answer to a body over maxBodyBytes.
func errTooLarge() *table.Error {
	return apiErr(codeEntityTooLarge, "Request Entity Too Large")
}

// readBody reads the request body, undoing a gzip or deflate
// Content-Encoding, and refuses bodies over maxBodyBytes.
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > maxBodyBytes {
		return nil, errTooLarge()
	}
	raw, err := readCapped(r.Body)
	if err != nil {
		return nil, err
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
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
func readCapped(rd io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, maxBodyBytes+1))
	if len(b) > maxBodyBytes {
		return nil, errTooLarge()
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errTooLarge()
	}
	return b, err
}

// decompress reads a decompressing reader to the end, capped.
func decompress(rc io.ReadCloser, enc string) ([]byte, error) {
	defer rc.Close()
	b, err := readCapped(rc)
	if err != nil {
		var te *table.Error
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, badEncoding(enc)
	}
	return b, nil
}

func badEncoding(enc string) *table.Error {
	return errSerializationf("Request body is not valid " + enc + " data")
}

func errSerializationf(msg string) *table.Error { return apiErr(codeSerialization, msg) }
