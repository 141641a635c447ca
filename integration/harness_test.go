// Package integration drives a real ddblocal server with the real aws-sdk-go-v2
// client, as users do.
package integration

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/sdkhttp"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// The suite runs twice (see TestSuiteWithCredentials): as users run
// ddblocal by default, accepting any signature, and a second time with
// DDBLOCAL_TEST_SIGNED=1, where every server verifies signatures
// (--credentials) and every client signs with testKey and testSecret.
const (
	signedPassEnv = "DDBLOCAL_TEST_SIGNED"
	testKey       = "AKIDEXAMPLE"
	testSecret    = "secret"
	// builtBinaryEnv hands the signed pass the binary its parent built.
	builtBinaryEnv = "DDBLOCAL_TEST_BINARY"
)

// signedPass reports whether this run is the verifying one.
func signedPass() bool { return os.Getenv(signedPassEnv) == "1" }

// testVerifier returns the verifier in-process servers use: nil, unless
// this is the signed pass.
func testVerifier() *auth.Verifier {
	if !signedPass() {
		return nil
	}
	return auth.NewVerifier([]auth.Credential{{AccessKey: testKey, Secret: testSecret, Account: auth.DefaultAccount}}, nil)
}

// server is an in-process ddblocal over an in-memory store.
type server struct {
	URL string
	svc *table.Service
}

func startServer(t testing.TB, opts table.Options) *server {
	t.Helper()
	db, err := store.Open(testStoreOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	v := testVerifier()
	cfg := api.Config{Addr: "localhost:8000", Verifier: v,
		Admin: admin.Handler(admin.Config{Settle: svc.Settle, Insights: svc, Verifier: v})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	return &server{URL: ts.URL, svc: svc}
}

// client returns an SDK client for region that retries nothing but a
// connection closed under it, so error tests see the first answer. It
// sends through sdkhttp.ReadOnly (readOnlyBodies), which keeps the
// known client-side race of net/http and the SDK (aws-sdk-go-v2 issues
// 1825 and 2737: the SDK closes a request body net/http may still be
// checking, and the transport drops the connection mid-response) from
// happening; the retryer is left for a connection closed otherwise.
func (s *server) client(region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(s.URL),
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		Retryer:      closedConnRetryer(),
	}, readOnlyBodies)
}

// readOnlyBodies is the option that makes a DynamoDB client of the tests
// send through sdkhttp.ReadOnly, over the HTTP client it has.
func readOnlyBodies(o *dynamodb.Options) { o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient) }

func closedConnRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if errors.Is(err, net.ErrClosed) {
				return aws.TrueTernary
			}
			return aws.FalseTernary
		})}
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
