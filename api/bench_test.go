package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkRoundTrip measures the HTTP layer's overhead on a trivial Op:
// routing, request id, auth parsing, body read, decode+validate, encode,
// CRC32 — everything but the network.
func BenchmarkRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name   string
		accept string
	}{{"plain", ""}, {"gzip", "gzip"}} {
		b.Run(tc.name, func(b *testing.B) {
			h := NewHandler(Config{Addr: "localhost:8000"}, testOps())
			body := []byte(`{"TableName":"benchmark-table","Fail":""}`)
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/x-amz-json-1.0")
				req.Header.Set("X-Amz-Target", targetPrefix+"Echo")
				req.Header.Set("Authorization", testAuth)
				if tc.accept != "" {
					req.Header.Set("Accept-Encoding", tc.accept)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
