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

// Canonical header keys. The server reads and writes header maps directly
// with these, skipping http.Header's key canonicalisation on the hot path.
const (
	hdrRequestID       = "X-Amzn-Requestid" // x-amzn-RequestId
	hdrTarget          = "X-Amz-Target"
	hdrAuthorization   = "Authorization"
	hdrContentType     = "Content-Type"
	hdrContentLength   = "Content-Length"
	hdrContentEncoding = "Content-Encoding"
	hdrAcceptEncoding  = "Accept-Encoding"
	hdrCRC32           = "X-Amz-Crc32" // x-amz-crc32
)

// header returns the first value of h[key]; key must be canonical. It is
// http.Header.Get without the canonicalisation.
func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

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

// exchange is everything one request needs from the server, allocated
// once: the status-recording writer, the handlers' context, the decoded
// Request and backing for the response's header values. It is not pooled
// because handlers may keep the context or the Request.
type exchange struct {
	sw  statusWriter
	ctx reqCtx
	req Request
	// hv backs the []string values of the response headers the server
	// sets (request id, Content-Type, CRC32, Content-Length), so that
	// setting them allocates nothing.
	hv [4]string
}

// setHeader sets h[key] to the single value v, using hv[i] as its backing
// array; key must be canonical.
func (x *exchange) setHeader(h http.Header, i int, key, v string) {
	x.hv[i] = v
	h[key] = x.hv[i : i+1 : i+1]
}

// ServeHTTP serves one request. In order it: gives the request its id
// (x-amzn-RequestId), turns a panic into a 500 InternalServerError so the
// server stays up, logs the request at debug level, answers 400 to
// oversized headers, applies CORS, and routes: `POST /` straight to
// dispatch, everything else through the router. These were three chi
// middlewares; one function does the same without a closure chain and a
// copy of the request per step.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{sw: statusWriter{ResponseWriter: w}}
	id := s.ids.next()
	x.ctx = reqCtx{Context: r.Context(), id: id}
	x.setHeader(w.Header(), 0, hdrRequestID, id)
	var start time.Time
	logged := s.log.Enabled(r.Context(), slog.LevelDebug)
	if logged {
		start = time.Now()
	}
	defer s.finish(x, r, logged, start)

	if headerSize(r) > maxHeaderBytes {
		x.sw.Header()[hdrContentType] = []string{"text/plain; charset=utf-8"}
		x.sw.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(&x.sw, "Request Header Or Cookie Too Large\n")
		return
	}
	if len(s.cfg.CORSOrigins) > 0 && s.cors(&x.sw, r) {
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/" && r.URL.RawPath == "" {
		s.dispatch(x, r)
		return
	}
	s.router.ServeHTTP(&x.sw, r.WithContext(&x.ctx))
}

// finish runs after every request (deferred by ServeHTTP): it recovers a
// panic into a 500 and writes the debug log line. It must be deferred
// directly for recover to work.
func (s *server) finish(x *exchange, r *http.Request, logged bool, start time.Time) {
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler {
			panic(p)
		}
		s.log.LogAttrs(&x.ctx, slog.LevelError, "handler panic",
			slog.String("requestId", x.ctx.id), slog.String("stack", string(debug.Stack())))
		if x.sw.status == 0 {
			s.writeError(x, r, fmt.Errorf("panic: %v", p))
		}
	}
	if logged {
		s.log.LogAttrs(&x.ctx, slog.LevelDebug, "request",
			slog.String("requestId", x.ctx.id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("operation", strings.TrimPrefix(header(r.Header, hdrTarget), targetPrefix)),
			slog.Int("status", x.sw.status),
			slog.Duration("duration", time.Since(start)))
	}
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

// cors adds CORS headers for allowed origins and answers preflights,
// reporting whether it answered. Only called when origins are configured.
func (s *server) cors(w http.ResponseWriter, r *http.Request) (answered bool) {
	origin := r.Header.Get("Origin")
	h := w.Header()
	allowed := origin != "" && (s.corsAny || slices.Contains(s.cfg.CORSOrigins, origin))
	if allowed {
		if s.corsAny {
			h.Set("Access-Control-Allow-Origin", "*")
		} else {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
		}
		h.Set("Access-Control-Expose-Headers", "x-amzn-RequestId, x-amz-crc32")
	}
	if r.Method != http.MethodOptions {
		return false
	}
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
	return true
}
