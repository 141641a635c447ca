package integration

import (
	"bytes"
	"compress/gzip"
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestCompressedBodies: a gzip body is decoded; a body that does not decode
// as its Content-Encoding says is a 400 SerializationException, never a 5xx
// (DynamoDB answers 500 InternalServerError, which SDKs retry; see
// api/body.go), and writes nothing.
func TestCompressedBodies(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	ctx := context.Background()
	createTable(t, c, "GzT", false)
	put := func(v string) string {
		return `{"TableName":"GzT","Item":{"pk":{"S":"k"},"v":{"S":"` + v + `"}}}`
	}
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	if status, typ, msg := rawCallWith(t, srv.URL, "PutItem", gz(put("first")), map[string]string{"Content-Encoding": "gzip"}); status != 200 {
		t.Fatalf("valid gzip PutItem: got %d %s %q, want 200", status, typ, msg)
	}
	tests := []struct {
		name, enc, body, msg string
	}{
		{"not compressed", "gzip", put("plain"), "Request body is not valid gzip data"},
		{"truncated", "gzip", gz(put("cut"))[:20], "Request body is not valid gzip data"},
		{"empty", "gzip", "", "Request body is not valid gzip data"},
		{"trailing junk", "gzip", gz(put("junk")) + "junk", "Request body is not valid gzip data"},
		{"not deflate", "deflate", put("deflate"), "Request body is not valid deflate data"},
		{"unknown encoding", "garbage", put("garbage"), "Unsupported Content-Encoding: garbage"},
	}
	for _, tt := range tests {
		status, typ, msg := rawCallWith(t, srv.URL, "PutItem", tt.body, map[string]string{"Content-Encoding": tt.enc})
		if status != 400 || !strings.HasSuffix(typ, "#SerializationException") || msg != tt.msg {
			t.Errorf("%s: got %d %s %q, want 400 SerializationException %q", tt.name, status, typ, msg, tt.msg)
		}
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("GzT"), Key: map[string]types.AttributeValue{"pk": s("k")}, ConsistentRead: aws.Bool(true)})
	if err != nil || canon(&types.AttributeValueMemberM{Value: got.Item}) != canon(&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"pk": s("k"), "v": s("first")}}) {
		t.Errorf("stored item after the refused bodies: got %v, %v; want the first put's", got.Item, err)
	}
}
