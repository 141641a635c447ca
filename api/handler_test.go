package api

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

const testAuth = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-west-2/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=abc"

type echoIn struct {
	TableName string `ddb:"required;len=3..255"`
	Fail      string
	Pad       string // echoed, to make an answer of a given size
}

type echoOut struct {
	TableName string
	Region    string
	RequestID string
	Pad       string `json:",omitempty"`
}

// testOps is a fake operation table: Echo echoes, Fail returns the error
// named by its Fail member, Panic panics, Nil returns no result.
func testOps() map[string]Handler {
	return map[string]Handler{
		"Echo": Op(func(ctx context.Context, region string, in *echoIn) (*echoOut, error) {
			if err := failure(in.Fail); err != nil {
				return nil, err
			}
			return &echoOut{TableName: in.TableName, Region: region, RequestID: RequestID(ctx), Pad: in.Pad}, nil
		}),
		"Panic": func(context.Context, *Request) (any, error) { panic("boom") },
		"Nil": Op(func(context.Context, string, *struct{}) (*echoOut, error) {
			return nil, nil
		}),
	}
}

func failure(name string) error {
	switch name {
	case "rnf":
		return ddb.Errorf(ddb.ResourceNotFoundException, "Requested resource not found")
	case "ccf":
		return &ddb.Error{Code: ddb.ConditionalCheckFailedException, Message: "The conditional request failed",
			Item: attr.Item{"pk": attr.String("a")}}
	case "tx":
		return &ddb.Error{Code: ddb.TransactionCanceledException,
			Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]",
			CancellationReasons: []ddb.CancellationReason{
				{Code: "ConditionalCheckFailed", Message: "The conditional request failed"}, {Code: "None"}}}
	case "throttle":
		return ddb.Errorf(ddb.ThrottlingException, "Rate of requests exceeds the allowed throughput.")
	case "internal":
		return errors.New("disk on fire")
	case "wrapped":
		return errors.Join(errors.New("context"), ddb.Errorf(ddb.ResourceInUseException, "in use"))
	case "attrval":
		return &attr.Error{Msg: "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"}
	case "attrser":
		return &attr.SerializationError{Msg: "Start of list found where not expected"}
	}
	return nil
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestServer(t *testing.T, cfg Config) (*httptest.Server, *syncBuffer) {
	t.Helper()
	logs := new(syncBuffer)
	if cfg.Addr == "" {
		cfg.Addr = "localhost:8000"
	}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := httptest.NewServer(NewHandler(cfg, testOps()))
	t.Cleanup(srv.Close)
	return srv, logs
}

// call is one request in a table-driven test.
type call struct {
	method  string
	path    string
	target  string // operation name; "-" sends no X-Amz-Target
	auth    string // "-" sends no Authorization
	body    []byte
	headers map[string]string
}

type reply struct {
	status int
	header http.Header
	raw    []byte // as on the wire
	doc    map[string]any
}

func do(t *testing.T, srv *httptest.Server, c call) reply {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodPost
	}
	if c.path == "" {
		c.path = "/"
	}
	req, err := http.NewRequest(c.method, srv.URL+c.path, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if c.target != "-" && c.target != "" {
		req.Header.Set("X-Amz-Target", targetPrefix+c.target)
	}
	switch c.auth {
	case "":
		req.Header.Set("Authorization", testAuth)
	case "-":
	default:
		req.Header.Set("Authorization", c.auth)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	// The transport must not negotiate or undo gzip, so that the test sees the wire.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	plain := raw
	switch resp.Header.Get("Content-Encoding") {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	case "deflate":
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/") {
		if err := json.Unmarshal(plain, &r.doc); err != nil {
			t.Fatalf("response body %q is not JSON: %v", plain, err)
		}
	}
	return r
}

func TestErrors(t *testing.T) {
	srv, _ := newTestServer(t, Config{})
	echo := func(fail string) []byte { return []byte(`{"TableName":"abc","Fail":"` + fail + `"}`) }
	tests := []errorCase{
		{"unknown operation", call{target: "Frobnicate", body: []byte(`{}`)}, 400,
			"com.amazon.coral.service#UnknownOperationException", "message", "Unknown operation exception"},
		{"missing target", call{target: "-", body: []byte(`{}`)}, 400,
			"com.amazon.coral.service#UnknownOperationException", "message", "Unknown operation exception"},
		{"wrong target version", call{target: "-", body: []byte(`{}`), headers: map[string]string{"X-Amz-Target": "DynamoDB_20111205.Echo"}}, 400,
			"com.amazon.coral.service#UnknownOperationException", "message", "Unknown operation exception"},
		{"missing auth", call{target: "Echo", auth: "-", body: echo("")}, 400,
			"com.amazon.coral.service#MissingAuthenticationTokenException", "message", "Request is missing Authentication Token"},
		{"auth without parameters", call{target: "Echo", auth: "AWS4-HMAC-SHA256", body: echo("")}, 400,
			"com.amazon.coral.service#IncompleteSignatureException", "message",
			"Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4-HMAC-SHA256"},
		{"auth missing signature", call{target: "Echo", auth: "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host", body: echo("")}, 400,
			"com.amazon.coral.service#IncompleteSignatureException", "message",
			"Authorization header requires 'Signature' parameter. Authorization=AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host"},
		{"auth pair without equals", call{target: "Echo", auth: "AWS4-HMAC-SHA256 Credential=AKID /2025/r/s/t, Signature=x", body: echo("")}, 400,
			"com.amazon.coral.service#IncompleteSignatureException", "message",
			"'/2025/r/s/t' not a valid key=value pair (missing equal-sign) in Authorization header: 'AWS4-HMAC-SHA256 Credential=AKID /2025/r/s/t, Signature=x'."},
		{"short credential", call{target: "Echo", auth: "AWS4-HMAC-SHA256 Credential=AKID/us-east-1, SignedHeaders=host, Signature=x", body: echo("")}, 400,
			"com.amazon.coral.service#IncompleteSignatureException", "message",
			"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'AKID/us-east-1'"},
		{"malformed json", call{target: "Echo", body: []byte(`{"TableName":`)}, 400,
			"com.amazon.coral.service#SerializationException", "Message", "Malformed JSON at offset 13: unexpected end of JSON input"},
		{"type mismatch", call{target: "Echo", body: []byte(`{"TableName":5}`)}, 400,
			"com.amazon.coral.service#SerializationException", "Message", "NUMBER_VALUE cannot be converted to String"},
		{"validation", call{target: "Echo", body: []byte(`{"TableName":"ab"}`)}, 400,
			"com.amazon.coral.validate#ValidationException", "message",
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"resource not found", call{target: "Echo", body: echo("rnf")}, 400,
			"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "message", "Requested resource not found"},
		{"wrapped table error", call{target: "Echo", body: echo("wrapped")}, 400,
			"com.amazonaws.dynamodb.v20120810#ResourceInUseException", "message", "in use"},
		{"throttling", call{target: "Echo", body: echo("throttle")}, 400,
			"com.amazon.coral.availability#ThrottlingException", "message", "Rate of requests exceeds the allowed throughput."},
		{"attr validation", call{target: "Echo", body: echo("attrval")}, 400,
			"com.amazon.coral.validate#ValidationException", "message",
			"Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"attr serialization", call{target: "Echo", body: echo("attrser")}, 400,
			"com.amazon.coral.service#SerializationException", "Message", "Start of list found where not expected"},
		{"internal", call{target: "Echo", body: echo("internal")}, 500,
			"com.amazonaws.dynamodb.v20120810#InternalServerError", "message", "Internal server error"},
		{"panic", call{target: "Panic", body: []byte(`{}`)}, 500,
			"com.amazonaws.dynamodb.v20120810#InternalServerError", "message", "Internal server error"},
		{"body too large", call{target: "Echo", body: bytes.Repeat([]byte(" "), maxBodyBytes+1)}, 413,
			"com.amazon.coral.service#RequestEntityTooLargeException", "message", "Request Entity Too Large"},
		{"gzip bomb", call{target: "Echo", body: gzipBytes(t, bytes.Repeat([]byte(" "), maxBodyBytes+1)),
			headers: map[string]string{"Content-Encoding": "gzip"}}, 413,
			"com.amazon.coral.service#RequestEntityTooLargeException", "message", "Request Entity Too Large"},
		{"corrupt gzip", call{target: "Echo", body: []byte("not gzip"), headers: map[string]string{"Content-Encoding": "gzip"}}, 400,
			"com.amazon.coral.service#SerializationException", "Message", "Request body is not valid gzip data"},
		{"corrupt deflate", call{target: "Echo", body: []byte("not deflate"), headers: map[string]string{"Content-Encoding": "deflate"}}, 400,
			"com.amazon.coral.service#SerializationException", "Message", "Request body is not valid deflate data"},
		{"truncated gzip", call{target: "Echo", body: gzipBytes(t, []byte(`{"TableName":"abc"}`))[:12], headers: map[string]string{"Content-Encoding": "gzip"}}, 400,
			"com.amazon.coral.service#SerializationException", "Message", "Request body is not valid gzip data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkErrorCase(t, srv, tt) })
	}
}

// errorCase is one request TestErrors sends and the error it must get.
type errorCase struct {
	name       string
	c          call
	wantStatus int
	wantType   string
	msgKey     string
	wantMsg    string
}

// checkErrorCase sends tt's request and checks status, __type and message.
func checkErrorCase(t *testing.T, srv *httptest.Server, tt errorCase) {
	t.Helper()
	r := do(t, srv, tt.c)
	if r.status != tt.wantStatus {
		t.Errorf("status = %d, want %d (body %s)", r.status, tt.wantStatus, r.raw)
	}
	if got := r.doc["__type"]; got != tt.wantType {
		t.Errorf("__type = %v, want %s", got, tt.wantType)
	}
	if got := r.doc[tt.msgKey]; got != tt.wantMsg {
		t.Errorf("%s = %v, want %q (body %s)", tt.msgKey, got, tt.wantMsg, r.raw)
	}
	if len(r.doc) != 2 {
		t.Errorf("body has members %v, want only __type and %s", r.doc, tt.msgKey)
	}
}

// TestBodyNotUTF8: DynamoDB answers a body that is not UTF-8, sent plain or
// compressed, with a SerializationException that has no message.
func TestBodyNotUTF8(t *testing.T) {
	srv, _ := newTestServer(t, Config{})
	bad := []byte("{\"TableName\":\"abc\",\"X\":\"a\xff\xfeb\"}")
	for _, c := range []call{
		{target: "Echo", body: bad},
		{target: "Echo", body: gzipBytes(t, bad), headers: map[string]string{"Content-Encoding": "gzip"}},
	} {
		r := do(t, srv, c)
		if got, want := string(r.raw), `{"__type":"com.amazon.coral.service#SerializationException"}`; r.status != 400 || got != want {
			t.Errorf("got %d %s, want 400 %s", r.status, got, want)
		}
	}
}

func TestErrorExtras(t *testing.T) {
	srv, _ := newTestServer(t, Config{})
	r := do(t, srv, call{target: "Echo", body: []byte(`{"TableName":"abc","Fail":"ccf"}`)})
	if got, want := string(r.raw), `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed","Item":{"pk":{"S":"a"}}}`; got != want {
		t.Errorf("ConditionalCheckFailed body\n got: %s\nwant: %s", got, want)
	}
	r = do(t, srv, call{target: "Echo", body: []byte(`{"TableName":"abc","Fail":"tx"}`)})
	if got, want := string(r.raw), `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",`+
		`"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]",`+
		`"CancellationReasons":[{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},{"Code":"None"}]}`; got != want {
		t.Errorf("TransactionCanceled body\n got: %s\nwant: %s", got, want)
	}
}

func TestInternalErrorLoggedNotLeaked(t *testing.T) {
	srv, logs := newTestServer(t, Config{})
	r := do(t, srv, call{target: "Echo", body: []byte(`{"TableName":"abc","Fail":"internal"}`)})
	id := r.header.Get("x-amzn-RequestId")
	if strings.Contains(string(r.raw), "disk on fire") {
		t.Errorf("response %s leaks the internal error", r.raw)
	}
	if l := logs.String(); !strings.Contains(l, "disk on fire") || !strings.Contains(l, id) {
		t.Errorf("log %q does not hold the cause and request id %s", l, id)
	}
}

func TestPanicKeepsServing(t *testing.T) {
	srv, logs := newTestServer(t, Config{})
	if r := do(t, srv, call{target: "Panic", body: []byte(`{}`)}); r.status != 500 {
		t.Fatalf("panic status = %d, want 500", r.status)
	}
	r := do(t, srv, call{target: "Echo", body: []byte(`{"TableName":"abc"}`)})
	if r.status != 200 || r.doc["TableName"] != "abc" {
		t.Errorf("after panic: status %d body %s, want 200 echo", r.status, r.raw)
	}
	if !strings.Contains(logs.String(), "handler panic") {
		t.Errorf("panic not logged: %s", logs.String())
	}
}

func TestSuccess(t *testing.T) {
	srv, _ := newTestServer(t, Config{Addr: "localhost:8123"})
	tests := []struct {
		name string
		c    call
		want string
	}{
		{"echo", call{target: "Echo", body: []byte(`{"TableName":"abc"}`)}, `"TableName":"abc","Region":"us-west-2"`},
		{"nil result", call{target: "Nil", body: []byte(`{}`)}, `{}`},
		{"empty body", call{target: "Nil"}, `{}`},
		{"describe endpoints", call{target: "DescribeEndpoints", body: []byte(`{}`)},
			`{"Endpoints":[{"Address":"localhost:8123","CachePeriodInMinutes":1440}]}`},
		{"json 1.1 content type", call{target: "Echo", body: []byte(`{"TableName":"abc"}`),
			headers: map[string]string{"Content-Type": "application/x-amz-json-1.1"}}, `"TableName":"abc"`},
		{"presigned credential", call{path: "/?X-Amz-Credential=AKID%2F20250101%2Feu-west-1%2Fdynamodb%2Faws4_request",
			target: "Echo", auth: "-", body: []byte(`{"TableName":"abc"}`)}, `"Region":"eu-west-1"`},
		{"region with other credential", call{target: "Echo", body: []byte(`{"TableName":"abc"}`),
			auth: "AWS4-HMAC-SHA256 Credential=x/20150320/ap-south-2/dynamodb/aws4_request,SignedHeaders=host,Signature=1"},
			`"Region":"ap-south-2"`},
		{"gzip request", call{target: "Echo", body: gzipBytes(t, []byte(`{"TableName":"gzipped"}`)),
			headers: map[string]string{"Content-Encoding": "gzip"}}, `"TableName":"gzipped"`},
		{"zlib deflate request", call{target: "Echo", body: zlibBytes(t, []byte(`{"TableName":"zlibbed"}`)),
			headers: map[string]string{"Content-Encoding": "deflate"}}, `"TableName":"zlibbed"`},
		{"raw deflate request", call{target: "Echo", body: flateBytes(t, []byte(`{"TableName":"deflated"}`)),
			headers: map[string]string{"Content-Encoding": "deflate"}}, `"TableName":"deflated"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, srv, tt.c)
			if r.status != 200 || !strings.Contains(string(r.raw), tt.want) {
				t.Errorf("got %d %s, want 200 containing %s", r.status, r.raw, tt.want)
			}
			if got := r.header.Get("Content-Type"); got != jsonContentType {
				t.Errorf("Content-Type = %q, want %q", got, jsonContentType)
			}
		})
	}
}

// TestCompressedResponse: an answer of 4096 bytes or more is compressed
// with the coding the request's Accept-Encoding prefers (gzip or deflate,
// chosen as DynamoDB chooses: see responseCoding), a smaller one never; the
// CRC and length are those of the bytes sent.
func TestCompressedResponse(t *testing.T) {
	srv, _ := newTestServer(t, Config{})
	for _, tc := range []struct {
		name, accept string
		pad          int
		want         string
	}{
		{"plain", "", 5000, ""},
		{"identity", "identity", 5000, ""},
		{"gzip", "gzip", 5000, "gzip"},
		{"deflate", "deflate", 5000, "deflate"},
		{"gzip among others", "br;q=1.0, gzip;q=0.8", 5000, "gzip"},
		{"gzip refused", "gzip;q=0", 5000, ""},
		{"first named of equal q", "br, identity, deflate, gzip", 5000, "deflate"},
		{"small answer", "gzip", 3900, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pad := strings.Repeat("p", tc.pad)
			body := []byte(`{"TableName":"abc","Pad":"` + pad + `"}`)
			c := call{target: "Echo", body: body}
			if tc.accept != "" {
				c.headers = map[string]string{"Accept-Encoding": tc.accept}
			}
			r := do(t, srv, c)
			if got := r.header.Get("Content-Encoding"); got != tc.want {
				t.Errorf("Content-Encoding = %q, want %q", got, tc.want)
			}
			want := strconv.FormatUint(uint64(crc32.ChecksumIEEE(r.raw)), 10)
			if got := r.header.Get("x-amz-crc32"); got != want {
				t.Errorf("x-amz-crc32 = %s, want %s (CRC of the %d wire bytes)", got, want, len(r.raw))
			}
			if got := r.header.Get("Content-Length"); got != strconv.Itoa(len(r.raw)) {
				t.Errorf("Content-Length = %s, want %d", got, len(r.raw))
			}
			if r.doc["Pad"] != pad {
				t.Errorf("decoded Pad has %d bytes, want %d", len(fmt.Sprint(r.doc["Pad"])), len(pad))
			}
		})
	}
}

// TestResponseCoding: the coding chosen for each Accept-Encoding value,
// as ScyllaDB's test_compressed_response.py records DynamoDB choosing it.
func TestResponseCoding(t *testing.T) {
	names := map[int]string{codingNone: "none", codingGzip: "gzip", codingDeflate: "deflate"}
	for _, tc := range []struct {
		accept string
		want   int
	}{
		{"", codingNone}, {"identity", codingNone}, {"br", codingNone}, {"zstd", codingNone},
		{"compress", codingNone}, {"x-gzip", codingNone},
		{"gzip, deflate", codingGzip}, {"br, identity, deflate, gzip", codingDeflate},
		{"GZIP, identity", codingGzip}, {"dog, gzip ,, cat", codingGzip},
		{"gzip;q=0.8, deflate;q=0.5", codingGzip}, {"br, gzip;q=0, deflate; q = 0.5 , identity;q=0", codingDeflate},
		{"*", codingGzip}, {"*, deflate;q=0.5", codingGzip}, {"*, deflate", codingDeflate},
		{"*, identity", codingGzip}, {"*, gzip;q=0.5", codingDeflate}, {"gzip ;q=0", codingNone},
		{"identity;q=0", codingNone}, {"*;q=0", codingNone}, {"*;q=0.5,identity", codingGzip},
		{"gzip;q=0.5,identity;q=0.8", codingGzip}, {"br;q=0.8,identity;q=0.5,*;q=0", codingNone},
		{`"gzip"`, codingNone}, {"gzip br", codingNone}, {"gzip:q=1", codingNone},
		{"deflate;q=0.5, gzip;q=31", codingGzip}, {"gzip;q=31,deflate;q=51", codingGzip},
		{"deflate;q=0.5, gzip;q=0.2", codingDeflate}, {"deflate;q=0.5, gzip;q=1;q=0.2", codingGzip},
		{"deflate;q=0.5,gzip;q=0.", codingDeflate}, {"deflate;q=0.5,gzip;q=0.x", codingGzip},
		{"deflate;q=-0.5,gzip;q=0.2", codingGzip}, {"gzip;nq=1;q=0 ", codingNone},
		{"gzip;q=0, gzip;q=1, gzip;q=0", codingGzip}, {"br,identity;q=0.5,gzip;q=0.0001", codingGzip},
	} {
		h := http.Header{}
		h.Set("Accept-Encoding", tc.accept)
		if got := responseCoding(h); got != tc.want {
			t.Errorf("Accept-Encoding %q: got %s, want %s", tc.accept, names[got], names[tc.want])
		}
	}
	// Of two Accept-Encoding lines, the last counts.
	h := http.Header{"Accept-Encoding": {"gzip", "identity"}}
	if got := responseCoding(h); got != codingNone {
		t.Errorf("lines gzip then identity: got %s, want none", names[got])
	}
	h = http.Header{"Accept-Encoding": {"identity", "gzip"}}
	if got := responseCoding(h); got != codingGzip {
		t.Errorf("lines identity then gzip: got %s, want gzip", names[got])
	}
}

func TestRequestID(t *testing.T) {
	// Routes under /_ddblocal (Config.Admin) get ids too.
	srv, _ := newTestServer(t, Config{Admin: http.NotFoundHandler()})
	seen := map[string]bool{}
	for _, c := range []call{
		{target: "Echo", body: []byte(`{"TableName":"abc"}`)},
		{target: "Frob"},
		{method: http.MethodGet},
		{method: http.MethodGet, path: "/_ddblocal/health"},
	} {
		r := do(t, srv, c)
		id := r.header.Get("x-amzn-RequestId")
		if len(id) != 52 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			t.Errorf("x-amzn-RequestId = %q, want 52 upper-case alphanumerics", id)
		}
		if seen[id] {
			t.Errorf("request id %s repeated", id)
		}
		seen[id] = true
		if rid, ok := r.doc["RequestID"]; ok && rid != id {
			t.Errorf("handler saw request id %v, header says %s", rid, id)
		}
	}
}

// TestHealth checks DynamoDB's own health text; /_ddblocal/health is
// package admin's.
func TestHealth(t *testing.T) {
	srv, _ := newTestServer(t, Config{})
	r := do(t, srv, call{method: http.MethodGet, path: "/"})
	if want := "healthy: localhost:8000 "; r.status != 200 || string(r.raw) != want {
		t.Errorf("GET / = %d %q, want 200 %q", r.status, r.raw, want)
	}
}

func TestHeaderLimit(t *testing.T) {
	srv, _ := newTestServer(t, Config{})
	r := do(t, srv, call{target: "Echo", body: []byte(`{"TableName":"abc"}`),
		headers: map[string]string{"X-Big": strings.Repeat("a", maxHeaderBytes)}})
	if r.status != 400 {
		t.Errorf("oversized headers: status %d, want 400", r.status)
	}
	r = do(t, srv, call{target: "Echo", body: []byte(`{"TableName":"abc"}`),
		headers: map[string]string{"X-Big": strings.Repeat("a", maxHeaderBytes/2)}})
	if r.status != 200 {
		t.Errorf("headers under the limit: status %d, want 200", r.status)
	}
}

func TestCORS(t *testing.T) {
	preflight := map[string]string{"Origin": "http://app.test", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type,x-amz-target"}
	tests := []struct {
		name        string
		origins     []string
		c           call
		wantStatus  int
		wantOrigin  string
		wantHeaders string
		wantExpose  string
	}{
		{"preflight any", []string{"*"}, call{method: http.MethodOptions, headers: preflight}, 200, "*", "content-type,x-amz-target", ""},
		{"preflight listed", []string{"http://app.test"}, call{method: http.MethodOptions, headers: preflight}, 200, "http://app.test", "content-type,x-amz-target", ""},
		{"preflight unlisted", []string{"http://other.test"}, call{method: http.MethodOptions, headers: preflight}, 200, "", "", ""},
		{"request exposes headers", []string{"*"}, call{target: "Echo", body: []byte(`{"TableName":"abc"}`),
			headers: map[string]string{"Origin": "http://app.test"}}, 200, "*", "", "x-amzn-RequestId, x-amz-crc32"},
		{"cors off", nil, call{target: "Echo", body: []byte(`{"TableName":"abc"}`),
			headers: map[string]string{"Origin": "http://app.test"}}, 200, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newTestServer(t, Config{CORSOrigins: tt.origins})
			r := do(t, srv, tt.c)
			if r.status != tt.wantStatus {
				t.Errorf("status = %d, want %d", r.status, tt.wantStatus)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tt.wantOrigin {
				t.Errorf("Allow-Origin = %q, want %q", got, tt.wantOrigin)
			}
			if got := r.header.Get("Access-Control-Allow-Headers"); got != tt.wantHeaders {
				t.Errorf("Allow-Headers = %q, want %q", got, tt.wantHeaders)
			}
			if tt.wantExpose != "" && r.header.Get("Access-Control-Expose-Headers") != tt.wantExpose {
				t.Errorf("Expose-Headers = %q, want %q", r.header.Get("Access-Control-Expose-Headers"), tt.wantExpose)
			}
		})
	}
}

func TestNewServer(t *testing.T) {
	s := NewServer(Config{Addr: "127.0.0.1:0"}, http.NotFoundHandler())
	if s.Addr != "127.0.0.1:0" || s.ReadHeaderTimeout == 0 || s.MaxHeaderBytes <= maxHeaderBytes || s.ErrorLog == nil {
		t.Errorf("NewServer = %+v, want Addr set, timeouts, MaxHeaderBytes > %d, ErrorLog", s, maxHeaderBytes)
	}
}

func gzipBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zlibBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func flateBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
