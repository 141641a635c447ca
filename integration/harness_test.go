// Package integration drives a real ddblocal server with the real aws-sdk-go-v2
// client, as users do.
package integration

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// server is an in-process ddblocal over an in-memory store.
type server struct {
	URL string
	svc *table.Service
}

func startServer(t testing.TB, opts table.Options) *server {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	cfg := api.Config{Addr: "localhost:8000", Settle: svc.Settle}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	return &server{URL: ts.URL, svc: svc}
}

// client returns an SDK client for region that does not retry, so error tests
// see the first answer.
func (s *server) client(region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint:     aws.String(s.URL),
		Region:           region,
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		RetryMaxAttempts: 1,
	})
}

func newClient(t testing.TB) *dynamodb.Client {
	return startServer(t, table.Options{}).client("us-east-1")
}

// createTable creates a PAY_PER_REQUEST table pk S (+ sk S when withSort).
func createTable(t testing.TB, c *dynamodb.Client, name string, withSort bool) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	if withSort {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	if _, err := c.CreateTable(context.Background(), in); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// wantAPIError asserts err is a DynamoDB error with the given code and message.
func wantAPIError(t testing.TB, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got error %v, want %s: %s", err, code, msg)
	}
	if ae.ErrorCode() != code || (msg != "" && ae.ErrorMessage() != msg) {
		t.Fatalf("got %s: %q, want %s: %q", ae.ErrorCode(), ae.ErrorMessage(), code, msg)
	}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
