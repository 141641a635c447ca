package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
)

// targetPrefix starts every X-Amz-Target of the DynamoDB 2012-08-10 API.
const targetPrefix = "DynamoDB_20120810."

// msgUnknownOperation is DynamoDB's text for an operation it does not have.
const msgUnknownOperation = "Unknown operation exception"

// server is the state behind one NewHandler: its configuration, operation
// table, validation rule cache, response encoder and buffer pools.
type server struct {
	cfg  Config
	log  *slog.Logger
	ops  map[string]Handler
	vd   validator
	fd   fastDecoder
	resp responder
	enc  encoder
	bufs sync.Pool // *[]byte response buffers, see encodeResult
}

// NewHandler returns the HTTP handler of the DynamoDB API: `POST /` with
// X-Amz-Target "DynamoDB_20120810.<Operation>" dispatches to ops[Operation]
// (DescribeEndpoints is answered here unless ops has it); `GET /` answers
// DynamoDB's health text; `GET /_ddblocal/health` reports cfg.Ready as JSON
// (200 or 503). ops is copied; it is not modified.
func NewHandler(cfg Config, ops map[string]Handler) http.Handler {
	s := &server{cfg: cfg, log: cfg.logger(), ops: maps.Clone(ops)}
	r := chi.NewRouter()
	r.Use(s.base, s.limitHeaders, s.cors)
	r.Post("/", s.dispatch)
	r.Get("/", s.healthText)
	r.Get("/_ddblocal/health", s.readiness)
	if cfg.Settle != nil {
		r.Post("/_ddblocal/settle", s.settle)
	}
	return r
}

// settle serves POST /_ddblocal/settle: 200 {"settled":true} once cfg.Settle
// returns, 503 with the error otherwise (the client gave up, or shutdown).
func (s *server) settle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if err := s.cfg.Settle(r.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	w.Write([]byte(`{"settled":true}`))
}

// dispatch serves one DynamoDB API call.
func (s *server) dispatch(w http.ResponseWriter, r *http.Request) {
	res, err := s.call(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	bp, err := s.encodeResult(res)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("encoding response: %w", err))
		return
	}
	s.resp.write(w, r, http.StatusOK, *bp)
	s.releaseBuf(bp)
}

// call resolves the operation, authenticates, reads the body and runs the handler.
func (s *server) call(r *http.Request) (any, error) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	var h Handler
	if ok && op != "" {
		h = s.ops[op]
		if h == nil && op == "DescribeEndpoints" {
			h = s.describeEndpoints
		}
	}
	if h == nil {
		return nil, apiErr(codeUnknownOperation, msgUnknownOperation)
	}
	region, err := regionOf(r)
	if err != nil {
		return nil, err
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	req := &Request{Operation: op, Region: region, RequestID: RequestID(r.Context()), Body: body, vd: &s.vd, fd: &s.fd}
	return h(r.Context(), req)
}

// writeError sends err as DynamoDB's JSON error document.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, doc := errorResponse(r.Context(), s.log, RequestID(r.Context()), err)
	body, mErr := json.Marshal(doc)
	if mErr != nil {
		// Only an attr.Item that cannot be encoded gets here; drop it.
		s.log.Error("encoding error response", slog.Any("error", mErr))
		doc.Item, doc.CancellationReasons = nil, nil
		body, _ = json.Marshal(doc)
	}
	s.resp.write(w, r, status, body)
}

// endpoint is one entry of a DescribeEndpoints response.
type endpoint struct {
	Address              string
	CachePeriodInMinutes int64
}

// describeEndpoints answers DescribeEndpoints with the server's own address.
func (s *server) describeEndpoints(context.Context, *Request) (any, error) {
	return struct{ Endpoints []endpoint }{[]endpoint{{Address: s.cfg.Addr, CachePeriodInMinutes: 1440}}}, nil
}

// healthText answers `GET /` as DynamoDB does: "healthy: <host> ".
func (s *server) healthText(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, "healthy: "+s.cfg.Addr+" ")
}

// readiness reports cfg.Ready as JSON: 200 {"status":"ok"} or
// 503 {"status":"unavailable","error":"…"}.
func (s *server) readiness(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	var err error
	if s.cfg.Ready != nil {
		err = s.cfg.Ready()
	}
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "unavailable", "error": err.Error()})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
}
