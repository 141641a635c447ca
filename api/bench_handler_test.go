package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/ddb"
)

// getItemBody is a GetItem request as the SDKs send it.
const getItemBody = `{"TableName":"bench","Key":{"pk":{"S":"p0042"},"sk":{"S":"s0017"}}}`

// stubGetItemOps serves GetItem from a canned item of about 200 bytes, so
// that a benchmark measures the HTTP layer, decode and encode but no store.
func stubGetItemOps() map[string]Handler {
	out := &ddb.GetItemOutput{Item: attr.Item{
		"pk":  attr.String("p0042"),
		"sk":  attr.String("s0017"),
		"val": attr.String(strings.Repeat("v", 200)),
	}}
	return map[string]Handler{
		"GetItem": Op(func(context.Context, string, *ddb.GetItemInput) (*ddb.GetItemOutput, error) {
			return out, nil
		}),
	}
}

// setSDKHeaders gives req the headers aws-sdk-go-v2 sends with a GetItem.
func setSDKHeaders(req *http.Request) {
	h := req.Header
	h["Content-Type"] = []string{"application/x-amz-json-1.0"}
	h["X-Amz-Target"] = []string{targetPrefix + "GetItem"}
	h["Authorization"] = []string{"AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/aws4_request, " +
		"SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target, " +
		"Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	h["X-Amz-Date"] = []string{"20250101T000000Z"}
	h["Amz-Sdk-Invocation-Id"] = []string{"8c1a2e6e-2d4b-4a55-9b1e-6c1f0a7d9e21"}
	h["Amz-Sdk-Request"] = []string{"attempt=1; max=3"}
	h["User-Agent"] = []string{"aws-sdk-go-v2/1.36.0 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/dynamodb#1.43.0"}
	h["Accept-Encoding"] = []string{"identity"}
}

// BenchmarkHandlerGetItem runs a GetItem through the whole handler
// (middleware, routing, auth, decode, stub op, encode, CRC32) into an
// httptest.ResponseRecorder: the server-side cost of the API layer.
func BenchmarkHandlerGetItem(b *testing.B) {
	benchmarkHandler(b, Config{Addr: "localhost:8000"}, nil)
}

// benchmarkHandler serves getItemBody with SDK headers through a handler
// with cfg, after sign (if any) has signed the request.
func benchmarkHandler(b *testing.B, cfg Config, sign func(*http.Request, []byte)) {
	h := NewHandler(cfg, stubGetItemOps())
	body := []byte(getItemBody)
	rd := bytes.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/", rd)
	setSDKHeaders(req)
	req.ContentLength = int64(len(body))
	if sign != nil {
		sign(req, body)
	}
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkLoopbackGetItem sends GetItem over a real loopback connection,
// so net/http's own per-request cost (both ends) is included.
func BenchmarkLoopbackGetItem(b *testing.B) {
	srv := httptest.NewServer(NewHandler(Config{Addr: "localhost:8000"}, stubGetItemOps()))
	defer srv.Close()
	client := srv.Client()
	body := []byte(getItemBody)
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		setSDKHeaders(req)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkHandlerGetItemVerified is BenchmarkHandlerGetItem with
// --credentials: the request carries a real signature, which is verified.
func BenchmarkHandlerGetItemVerified(b *testing.B) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	v := auth.NewVerifier([]auth.Credential{{AccessKey: "AKID", Secret: "secret", Account: auth.DefaultAccount}},
		func() time.Time { return at })
	benchmarkHandler(b, Config{Addr: "localhost:8000", Verifier: v}, func(req *http.Request, body []byte) {
		sum := sha256.Sum256(body)
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"},
			req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at); err != nil {
			b.Fatal(err)
		}
	})
}
