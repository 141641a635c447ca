package integration

import (
	"compress/zlib"
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestCORSPreflightEchoesHeaders: a browser's preflight is answered with
// the headers it asked for echoed in Access-Control-Allow-Headers (so a
// browser SDK's own x-amz-* and amz-sdk-* headers pass, whatever they are),
// POST allowed, and the answer cacheable; a preflight that names no headers
// is offered the ones the SDKs send.
func TestCORSPreflightEchoesHeaders(t *testing.T) {
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0") // CORS is on, for any origin, by default
	for _, tc := range []struct {
		asked string
		want  []string
	}{
		{"content-type,x-amz-target,x-amz-user-agent,amz-sdk-invocation-id,x-custom-thing", []string{"content-type,x-amz-target,x-amz-user-agent,amz-sdk-invocation-id,x-custom-thing"}},
		{"", []string{"Content-Type", "Authorization", "X-Amz-Target", "X-Amz-Date", "X-Amz-Security-Token", "Amz-Sdk-Invocation-Id"}},
	} {
		req, err := http.NewRequest(http.MethodOptions, p.URL+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "http://app.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		if tc.asked != "" {
			req.Header.Set("Access-Control-Request-Headers", tc.asked)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != http.StatusOK || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
			h.Get("Access-Control-Max-Age") == "" {
			t.Errorf("preflight asking %q: got %d %v", tc.asked, resp.StatusCode, h)
		}
		got := h.Get("Access-Control-Allow-Headers")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("preflight asking %q: Allow-Headers %q lacks %q", tc.asked, got, w)
			}
		}
	}
	p.stopOK()
}

// TestDeflateResponses: a client whose Accept-Encoding names deflate (and
// not gzip first) gets an answer of 4 KB or more in HTTP's deflate coding
// (zlib), x-amz-crc32 over the bytes sent, and the same JSON inside; a
// smaller answer is sent as it is.
func TestDeflateResponses(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createTable(t, c, "Deflated", false)
	for pk, size := range map[string]int{"big": 6000, "small": 10} {
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Deflated"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "x": s(strings.Repeat("y", size))}}); err != nil {
			t.Fatal(err)
		}
	}
	for pk, coding := range map[string]string{"big": "deflate", "small": ""} {
		body := `{"TableName":"Deflated","Key":{"pk":{"S":"` + pk + `"}}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("Accept-Encoding", "deflate")
		signRaw(t, req, body, time.Now())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Header.Get("Content-Encoding"); got != coding {
			t.Errorf("%s: Content-Encoding %q, want %q", pk, got, coding)
		}
		if got, want := resp.Header.Get("x-amz-crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE(raw)), 10); got != want {
			t.Errorf("%s: x-amz-crc32 %s, want %s (of the bytes sent)", pk, got, want)
		}
		plain := raw
		if coding == "deflate" {
			zr, err := zlib.NewReader(strings.NewReader(string(raw)))
			if err != nil {
				t.Fatalf("%s: not zlib: %v", pk, err)
			}
			if plain, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", pk, err)
			}
		}
		var doc struct{ Item map[string]map[string]string }
		if err := json.Unmarshal(plain, &doc); err != nil || doc.Item["pk"]["S"] != pk {
			t.Errorf("%s: answer %q (%v)", pk, plain, err)
		}
	}
}
