package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/ddblocal/ddblocal/ddb"
)

func TestIDGen(t *testing.T) {
	a, b := newIDGen(), newIDGen()
	if a.prefix == b.prefix {
		t.Errorf("two generators share the prefix %s; want a random one each", a.prefix)
	}
	seen := map[string]bool{}
	for range 10000 {
		id := a.next()
		if len(id) != idLen || strings.Trim(id, idAlphabet) != "" {
			t.Fatalf("id %q: want %d characters of %s", id, idLen, idAlphabet)
		}
		if seen[id] {
			t.Fatalf("id %s repeated", id)
		}
		seen[id] = true
	}
}

func TestIDGenConcurrent(t *testing.T) {
	g := newIDGen()
	const workers, each = 4, 500
	ids := make(chan string, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				ids <- g.next()
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("id %s repeated", id)
		}
		seen[id] = true
	}
	if got, want := len(seen), workers*each; got != want {
		t.Errorf("got %d distinct ids, want %d", got, want)
	}
}

type otherKey struct{}

func TestRequestIDFromContext(t *testing.T) {
	parent := context.WithValue(context.Background(), otherKey{}, "v")
	rc := &reqCtx{Context: parent, id: "ID1"}
	derived, cancel := context.WithCancel(context.WithValue(rc, otherKey{}, "w"))
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"outside a request", context.Background(), ""},
		{"request context", rc, "ID1"},
		{"derived from it", derived, "ID1"},
	}
	for _, tt := range tests {
		if got := RequestID(tt.ctx); got != tt.want {
			t.Errorf("%s: RequestID = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got, want := rc.Value(otherKey{}), "v"; got != want {
		t.Errorf("other keys: got %v, want %v from the request's context", got, want)
	}
}

// countingHandler counts the records it is given.
type countingHandler struct {
	slog.Handler
	mu   sync.Mutex
	msgs []string
}

func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	return nil
}

func TestRequestLogLevel(t *testing.T) {
	for _, tc := range []struct {
		level slog.Level
		want  int
	}{{slog.LevelDebug, 1}, {slog.LevelInfo, 0}} {
		ch := &countingHandler{Handler: slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: tc.level})}
		h := NewHandler(Config{Logger: slog.New(ch)}, testOps())
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"abc"}`))
		req.Header.Set("X-Amz-Target", targetPrefix+"Echo")
		req.Header.Set("Authorization", testAuth)
		h.ServeHTTP(httptest.NewRecorder(), req)
		if got := len(ch.msgs); got != tc.want {
			t.Errorf("logger at %v: got %d records %q, want %d", tc.level, got, ch.msgs, tc.want)
		}
	}
}

func TestSuccessHeaders(t *testing.T) {
	h := NewHandler(Config{}, testOps())
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"abc"}`))
	req.Header.Set("X-Amz-Target", targetPrefix+"Echo")
	req.Header.Set("Authorization", testAuth)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	for _, k := range []string{"x-amzn-RequestId", "Content-Type", "Content-Length", "x-amz-crc32"} {
		if got := rec.Header().Values(k); len(got) != 1 || got[0] == "" {
			t.Errorf("header %s = %q, want one value", k, got)
		}
	}
	if got, want := rec.Header().Get("Content-Length"), "107"; got != want {
		t.Errorf("Content-Length = %s, want %s (body %s)", got, want, rec.Body)
	}
}

func TestReadCapped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		hint    int64
		tooBig  bool
		oneByte bool // the reader returns one byte per Read
	}{
		{"empty", 0, -1, false, false},
		{"small unknown size", 100, -1, false, true},
		{"small known size", 100, 100, false, false},
		{"at the limit", maxBodyBytes, -1, false, false},
		{"over the limit", maxBodyBytes + 1, -1, true, false},
		{"over the limit, size understated", maxBodyBytes + 10, 10, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rd io.Reader = bytes.NewReader(bytes.Repeat([]byte("x"), tc.n))
			if tc.oneByte {
				rd = iotest.OneByteReader(rd)
			}
			b, err := readCapped(rd, tc.hint)
			if tc.tooBig {
				var te *ddb.Error
				if !errors.As(err, &te) || te.Code != codeEntityTooLarge {
					t.Errorf("got %d bytes, %v; want Request Entity Too Large", len(b), err)
				}
				return
			}
			if err != nil || len(b) != tc.n {
				t.Errorf("got %d bytes, %v; want %d, nil", len(b), err, tc.n)
			}
		})
	}
}
