package integration

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ddblocal/ddblocal/table"
)

// TestCompressedResponsesSDK: a client that accepts gzip
// (EnableAcceptEncodingGzip, as the SDK offers it) gets answers of 4 KB or
// more compressed and smaller ones as they are, as DynamoDB answers
// (ScyllaDB's test_compressed_response.py, run against DynamoDB); the SDK
// checks x-amz-crc32 over the bytes sent and decodes the same items.
func TestCompressedResponsesSDK(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, table.Options{})
	var encoding string
	peek := func(stack *middleware.Stack) error {
		return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("PeekEncoding",
			func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleDeserialize(ctx, in)
				if resp, ok := out.RawResponse.(*smithyhttp.Response); ok {
					encoding = resp.Header.Get("Content-Encoding")
				}
				return out, md, err
			}), middleware.After)
	}
	c := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(srv.URL), Region: "us-east-1",
		Credentials:              srv.client("us-east-1").Options().Credentials,
		Retryer:                  closedConnRetryer(),
		EnableAcceptEncodingGzip: true,
		APIOptions:               []func(*middleware.Stack) error{peek},
	}, readOnlyBodies)
	createTable(t, c, "Zipped", false)
	big := strings.Repeat("x", 4096)
	for _, it := range []map[string]types.AttributeValue{
		{"pk": s("big"), "x": s(big)},
		{"pk": s("small"), "x": s("tiny")},
	} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Zipped"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		key, want, encoding string
	}{{"big", big, "gzip"}, {"small", "tiny", ""}} {
		encoding = "unset"
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Zipped"), Key: map[string]types.AttributeValue{"pk": s(tc.key)}})
		if err != nil {
			t.Fatalf("GetItem %s: %v", tc.key, err)
		}
		if got, ok := out.Item["x"].(*types.AttributeValueMemberS); !ok || got.Value != tc.want {
			t.Errorf("GetItem %s: got x %v, want %d bytes", tc.key, out.Item["x"], len(tc.want))
		}
		if encoding != tc.encoding {
			t.Errorf("GetItem %s: got Content-Encoding %q, want %q", tc.key, encoding, tc.encoding)
		}
	}
}

// TestHealthNamesTheServer: GET / answers "healthy: <host> " naming the
// server's own address whatever Host the client used, as DynamoDB names
// its own endpoint (Istio's locality failover example sends Host mydb.com
// to two Regions' endpoints and is answered "healthy:
// dynamodb.us-east-1.amazonaws.com" and "healthy:
// dynamodb.us-west-1.amazonaws.com").
func TestHealthNamesTheServer(t *testing.T) {
	srv := startServer(t, table.Options{})
	for _, host := range []string{"", "mydb.example.com", "127.0.0.1:9"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(body), "healthy: localhost:8000 "; resp.StatusCode != http.StatusOK || got != want {
			t.Errorf("Host %q: got %d %q, want 200 %q", host, resp.StatusCode, got, want)
		}
	}
}
