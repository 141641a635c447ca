package api

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// The whole server side of a GetItem and a PutItem in process: the
// handler, decode, the table service over an in-memory store (insights
// recording included, as in the server), and the response, 20,000 items of
// 200 bytes read or written at random, as `go run ./bench` does over HTTP.
//
//	go test -run '^$' -bench 'Service(GetItem|PutItem)' -benchmem ./api/

// benchItems is how many items the service benchmarks load.
const benchItems = 20000

// discardWriter is an http.ResponseWriter that keeps the status and
// headers and drops the body: a recorder's buffers would be measured too.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// benchServiceHandler returns the API handler over a fresh in-memory
// service whose table "bench" (pk S, sk S) holds benchItems items.
func benchServiceHandler(b *testing.B) http.Handler {
	b.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	svc := table.New(db, table.Options{})
	b.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	h := NewHandler(Config{Addr: "localhost:8000"}, Operations(svc))
	serve(b, h, "CreateTable", `{"TableName":"bench","BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],`+
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`)
	for i := range benchItems {
		serve(b, h, "PutItem", benchPutBody(i))
	}
	return h
}

// benchKey is the Key member of item i.
func benchKey(i int) string {
	return fmt.Sprintf(`{"pk":{"S":"p%05d"},"sk":{"S":"s%03d"}}`, i/100, i%100)
}

// benchPutBody is a PutItem of item i with a 200-byte value.
func benchPutBody(i int) string {
	return fmt.Sprintf(`{"TableName":"bench","Item":{"pk":{"S":"p%05d"},"sk":{"S":"s%03d"},"v":{"S":"%s"}}}`,
		i/100, i%100, strings.Repeat("v", 200))
}

// serve sends one request through h and fails b unless it is answered 200.
func serve(b *testing.B, h http.Handler, op, body string) {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	setSDKHeaders(req)
	req.Header["X-Amz-Target"] = []string{targetPrefix + op}
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != http.StatusOK {
		b.Fatalf("%s: status %d", op, w.status)
	}
}

// benchmarkService sends bodies[i % len] as op through a handler built by
// benchServiceHandler, one request per iteration, reusing one request
// whose body is reset each time (as net/http reuses a connection's).
func benchmarkService(b *testing.B, op string, bodies [][]byte) {
	h := benchServiceHandler(b)
	rd := bytes.NewReader(nil)
	req := httptest.NewRequest(http.MethodPost, "/", rd)
	setSDKHeaders(req)
	req.Header["X-Amz-Target"] = []string{targetPrefix + op}
	w := &discardWriter{}
	b.ReportAllocs()
	i := 0
	start := processCPU(b)
	for b.Loop() {
		body := bodies[i%len(bodies)]
		i++
		rd.Reset(body)
		req.ContentLength = int64(len(body))
		w.h, w.status = http.Header{}, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time (user and system) the process has used: on a
// shared machine it varies far less than wall time, and it includes the
// collector's work, which a server pays too.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchOrder visits the items in a scattered order (a stride prime to
// benchItems), as random keys would.
func benchOrder(f func(i int) string) [][]byte {
	out := make([][]byte, benchItems)
	for n := range out {
		out[n] = []byte(f(n * 7919 % benchItems))
	}
	return out
}

func BenchmarkServiceGetItem(b *testing.B) {
	benchmarkService(b, "GetItem", benchOrder(func(i int) string {
		return `{"TableName":"bench","Key":` + benchKey(i) + `}`
	}))
}

func BenchmarkServicePutItem(b *testing.B) {
	benchmarkService(b, "PutItem", benchOrder(benchPutBody))
}
