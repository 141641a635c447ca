package api

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"hash/crc32"
	"net/http"
	"strconv"
	"sync"
)

// jsonContentType is the Content-Type of every DynamoDB JSON response.
const jsonContentType = "application/x-amz-json-1.0"

// maxPooledBuf is the largest response buffer kept for reuse: a 1 MB
// Query page fits, while a rare huge BatchGetItem answer is left to the GC.
const maxPooledBuf = 2 << 20

// encodeResult serializes a handler's result into a pooled buffer; the
// caller passes the returned *[]byte to releaseBuf once the body is sent.
// A nil result encodes as {}.
func (s *server) encodeResult(v any) (*[]byte, error) {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	if v == nil {
		*bp = append((*bp)[:0], "{}"...)
		return bp, nil
	}
	b, err := s.enc.AppendValue((*bp)[:0], v)
	*bp = b
	if r, ok := v.(releaser); ok {
		r.Release() // v's bytes are in b now, or failed to encode
	}
	if err != nil {
		s.releaseBuf(bp)
		return nil, err
	}
	return bp, nil
}

// releaser is a result holding pooled buffers (table.ReadOutput) that it
// gives back once encoded; it must not be used afterwards.
type releaser interface{ Release() }

// releaseBuf returns a buffer from encodeResult to the pool.
func (s *server) releaseBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledBuf {
		s.bufs.Put(bp)
	}
}

// responder writes JSON responses, compressing them when the client asks.
// Its pools of gzip and zlib writers are owned by one handler.
type responder struct {
	gz sync.Pool // *gzip.Writer
	zl sync.Pool // *zlib.Writer
}

// write sends body with status through x.sw: compressed with gzip or
// deflate (zlib) when r accepts one and the body is at least
// minCompressed bytes, as DynamoDB does, with x-amz-crc32 computed over
// the bytes as sent on the wire. x's header value slots back the header
// values so that setting them allocates nothing.
func (rs *responder) write(x *exchange, r *http.Request, status int, body []byte) {
	w := &x.sw
	h := w.Header()
	x.setHeader(h, 1, hdrContentType, jsonContentType)
	if len(body) >= minCompressed {
		switch responseCoding(r.Header) {
		case codingGzip:
			body = rs.gzip(body)
			h[hdrContentEncoding] = []string{"gzip"}
		case codingDeflate:
			body = rs.deflate(body)
			h[hdrContentEncoding] = []string{"deflate"}
		}
	}
	// Both numbers share one string allocation.
	var nb [32]byte
	num := strconv.AppendUint(nb[:0], uint64(crc32.ChecksumIEEE(body)), 10)
	k := len(num)
	nums := string(strconv.AppendInt(num, int64(len(body)), 10))
	x.setHeader(h, 2, hdrCRC32, nums[:k])
	x.setHeader(h, 3, hdrContentLength, nums[k:])
	w.WriteHeader(status)
	// A failed write means the client has gone; nothing is left to tell it.
	_, _ = w.Write(body)
}

// gzip returns body gzip-compressed.
func (rs *responder) gzip(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := rs.gz.Get().(*gzip.Writer)
	if zw == nil {
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	} else {
		zw.Reset(&buf)
	}
	// Writes to a bytes.Buffer cannot fail.
	_, _ = zw.Write(body)
	_ = zw.Close()
	rs.gz.Put(zw)
	return buf.Bytes()
}

// deflate returns body in HTTP's deflate coding: zlib-wrapped (RFC 9110).
func (rs *responder) deflate(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := rs.zl.Get().(*zlib.Writer)
	if zw == nil {
		zw, _ = zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	} else {
		zw.Reset(&buf)
	}
	_, _ = zw.Write(body)
	_ = zw.Close()
	rs.zl.Put(zw)
	return buf.Bytes()
}
