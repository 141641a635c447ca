package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/api/internal/validate"
)

// targetPrefix starts every X-Amz-Target of the DynamoDB 2012-08-10 API.
const targetPrefix = "DynamoDB_20120810."

// streamsPrefix starts every X-Amz-Target of the DynamoDB Streams API, served
// on the same endpoint; its operations are keyed by the whole target.
const streamsPrefix = "DynamoDBStreams_20120810."

// msgUnknownOperation is DynamoDB's text for an operation it does not have.
const msgUnknownOperation = "Unknown operation exception"

// adminPrefix is where Config.Admin is mounted: nothing of DynamoDB's own
// lives under it.
const adminPrefix = "/_ddblocal"

// server is the state behind one NewHandler: its configuration, request
// id generator, router, operation table, validation rule cache, response
// encoder and buffer pools. It is the handler NewHandler returns (see
// ServeHTTP in middleware.go).
type server struct {
	cfg     Config
	corsAny bool // cfg.CORSOrigins holds "*"
	log     *slog.Logger
	ids     *idGen
	router  http.Handler // every route but the hot `POST /`
	ops     map[string]Handler
	vd      validate.Validator
	fd      codec.Decoder
	resp    responder
	enc     codec.Encoder
	bufs    sync.Pool // *[]byte response buffers, see encodeResult
}

// NewHandler returns the HTTP handler of the DynamoDB API: `POST /` with
// X-Amz-Target "DynamoDB_20120810.<Operation>" dispatches to ops[Operation]
// (DescribeEndpoints is answered here unless ops has it); `GET /` answers
// DynamoDB's health text; everything under /_ddblocal is cfg.Admin's (404
// when nil). ops is copied; it is not modified.
func NewHandler(cfg Config, ops map[string]Handler) http.Handler {
	s := &server{cfg: cfg, corsAny: slices.Contains(cfg.CORSOrigins, "*"), log: cfg.logger(),
		ids: newIDGen(), ops: maps.Clone(ops)}
	r := chi.NewRouter()
	// ServeHTTP sends `POST /` to dispatch before the router sees it; the
	// route is here so that the router's 404 and 405 answers stay right.
	r.Post("/", func(w http.ResponseWriter, r *http.Request) {
		x := &exchange{sw: statusWriter{ResponseWriter: w}, ctx: reqCtx{Context: r.Context(), id: RequestID(r.Context())}}
		s.dispatch(x, r)
	})
	r.Get("/", s.healthText)
	if cfg.Admin != nil {
		r.Mount(adminPrefix, cfg.Admin)
	}
	s.router = r
	return s
}

// dispatch serves one DynamoDB API call, writing through x.sw.
func (s *server) dispatch(x *exchange, r *http.Request) {
	res, err := s.call(x, r)
	if err != nil {
		s.writeError(x, r, err)
		return
	}
	bp, err := s.encodeResult(res)
	if err != nil {
		s.writeError(x, r, fmt.Errorf("encoding response: %w", err))
		return
	}
	s.resp.write(x, r, http.StatusOK, *bp)
	s.releaseBuf(bp)
}

// call resolves the operation, authenticates, reads the body and runs the
// handler with x.req and x.ctx.
func (s *server) call(x *exchange, r *http.Request) (any, error) {
	target := header(r.Header, hdrTarget)
	op, ok := strings.CutPrefix(target, targetPrefix)
	if !ok && strings.HasPrefix(target, streamsPrefix) {
		op, ok = target, true
	}
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
	id, body, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	x.req = Request{Operation: op, Region: id.Region, Account: id.Account, RequestID: x.ctx.id, Body: body, vd: &s.vd, fd: &s.fd}
	var ctx context.Context = &x.ctx
	if s.cfg.Verifier != nil {
		// Resource-based policies judge verified callers.
		// The streams API's actions are dynamodb:DescribeStream and so on.
		action := strings.TrimPrefix(op, streamsPrefix)
		ctx = access.WithCaller(ctx, access.Caller{Account: id.Account, AccessKey: id.AccessKey, Operation: action})
	}
	return h(ctx, &x.req)
}

// writeError sends err as DynamoDB's JSON error document through x.sw.
func (s *server) writeError(x *exchange, r *http.Request, err error) {
	status, doc := errorResponse(&x.ctx, s.log, x.ctx.id, err)
	body, mErr := json.Marshal(doc)
	if mErr != nil {
		// Only an attr.Item that cannot be encoded gets here; drop it.
		s.log.Error("encoding error response", slog.Any("error", mErr))
		doc.Item, doc.CancellationReasons = nil, nil
		body, _ = json.Marshal(doc)
	}
	s.resp.write(x, r, status, body)
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
