package api

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// maxHeaderBytes is the request line plus headers DynamoDB's front end
// accepts; larger requests get a plain 400 (not Go's 431). The
// http.Server's own MaxHeaderBytes is set far higher so that this check,
// not Go's, answers.
const maxHeaderBytes = 16 << 10

// statusWriter remembers the status sent, for logging and for the panic
// handler to know whether a response has started.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (sw *statusWriter) WriteHeader(code int) {
	if sw.status == 0 {
		sw.status = code
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *statusWriter) Write(b []byte) (int, error) {
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	return sw.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (sw *statusWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// base gives every request its id (x-amzn-RequestId), turns a panic into a
// 500 InternalServerError so the server stays up, and logs each request at
// debug level.
func (s *server) base(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := newRequestID()
		w.Header().Set("X-Amzn-Requestid", id)
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(withRequestID(r.Context(), id))
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.LogAttrs(r.Context(), slog.LevelError, "handler panic",
					slog.String("requestId", id), slog.String("stack", string(debug.Stack())))
				if sw.status == 0 {
					s.writeError(sw, r, fmt.Errorf("panic: %v", p))
				}
			}
			s.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
				slog.String("requestId", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("operation", strings.TrimPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)),
				slog.Int("status", sw.status),
				slog.Duration("duration", time.Since(start)))
		}()
		next.ServeHTTP(sw, r)
	})
}

// limitHeaders answers 400 to a request whose request line and headers
// exceed maxHeaderBytes.
func (s *server) limitHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerSize(r) > maxHeaderBytes {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "Request Header Or Cookie Too Large\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerSize approximates the bytes of the request line and header block.
func headerSize(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	n += len("Host: ") + len(r.Host) + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// corsAllowHeaders is offered to a preflight that names no headers.
const corsAllowHeaders = "Content-Type, Content-Encoding, Authorization, X-Amz-Target, X-Amz-Date, " +
	"X-Amz-Security-Token, X-Amz-User-Agent, X-Amz-Content-Sha256, Amz-Sdk-Invocation-Id, Amz-Sdk-Request"

// cors adds CORS headers for allowed origins and answers preflights. It is
// a no-op when no origins are configured.
func (s *server) cors(next http.Handler) http.Handler {
	if len(s.cfg.CORSOrigins) == 0 {
		return next
	}
	any := slices.Contains(s.cfg.CORSOrigins, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		h := w.Header()
		allowed := origin != "" && (any || slices.Contains(s.cfg.CORSOrigins, origin))
		if allowed {
			if any {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Add("Vary", "Origin")
			}
			h.Set("Access-Control-Expose-Headers", "x-amzn-RequestId, x-amz-crc32")
		}
		if r.Method == http.MethodOptions {
			if allowed {
				h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
				reqHeaders := r.Header.Get("Access-Control-Request-Headers")
				if reqHeaders == "" {
					reqHeaders = corsAllowHeaders
				}
				h.Set("Access-Control-Allow-Headers", reqHeaders)
				h.Set("Access-Control-Max-Age", "172800")
			}
			h.Set("Content-Length", "0")
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}
