package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// sdkRetrying is a client of url with the SDK's standard retry rules (what
// an application gets by default), without waiting between attempts.
func sdkRetrying(url string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		}),
	}, readOnlyBodies)
}

// TestStoreErrorsOnTheWire: the two store failures a client can meet in
// cluster mode reach the SDK as DynamoDB would answer: a commit whose
// outcome etcd lost is an InternalServerError (500), which the SDK
// retries; a transaction beyond the etcd cluster's limits is a
// ValidationException (400) naming the limit, which it does not.
func TestStoreErrorsOnTheWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		err      error
		status   int
		attempts int32
		check    func(t *testing.T, err error)
	}{
		{"unknown outcome", fmt.Errorf("table: put: %w: context deadline exceeded", store.ErrUnknownOutcome), http.StatusInternalServerError, 3,
			func(t *testing.T, err error) {
				var ise *types.InternalServerError
				if !errors.As(err, &ise) || ise.ErrorMessage() != "The server encountered an internal error trying to fulfill the request." {
					t.Errorf("got %v, want InternalServerError with its documented message", err)
				}
			}},
		{"transaction too large", fmt.Errorf("table: put: %w: it needs 203 operations in one etcd transaction and the cluster's --max-txn-ops is 128", store.ErrTxnTooLarge), http.StatusBadRequest, 1,
			func(t *testing.T, err error) {
				wantAPIError(t, err, "ValidationException", "Transaction exceeds the etcd cluster's limits: it needs 203 operations in one etcd transaction and the cluster's --max-txn-ops is 128")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			put := api.Op(func(ctx context.Context, region string, in *ddb.PutItemInput) (*ddb.WriteOutput, error) {
				calls.Add(1)
				return nil, tc.err
			})
			ts := httptest.NewServer(api.NewHandler(api.Config{Addr: "localhost:8000", Verifier: testVerifier()}, map[string]api.Handler{"PutItem": put}))
			defer ts.Close()
			_, err := sdkRetrying(ts.URL).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"),
				Item: map[string]types.AttributeValue{"pk": s("a")}})
			var re *awshttp.ResponseError
			if !errors.As(err, &re) || re.HTTPStatusCode() != tc.status {
				t.Errorf("got %v, want HTTP %d", err, tc.status)
			}
			tc.check(t, err)
			if got := calls.Load(); got != tc.attempts {
				t.Errorf("the SDK sent it %d times, want %d", got, tc.attempts)
			}
		})
	}
}

// TestClusterTransactionBeyondEtcdLimits: against an etcd with its stock
// limits (--max-txn-ops 128, --max-request-bytes 1.5 MiB), a
// TransactWriteItems of ten 300 KB items (3 MB: within DynamoDB's 4 MB)
// cannot be one etcd transaction: the SDK gets a ValidationException
// naming the flag, once (not retried), and nothing of it is written; a
// small transaction still works.
func TestClusterTransactionBeyondEtcdLimits(t *testing.T) {
	t.Parallel()
	small, err := etcdtest.StartWith(t.TempDir(), 1, func(cfg *etcdtest.Config) {
		cfg.MaxTxnOps, cfg.MaxRequestBytes = 128, 1536<<10 // etcd's defaults
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(small.Close)
	fe := startFrontEnd(t, small.Endpoints(), "limits/")
	c := fe.client("us-east-1")
	createTable(t, c, "small", false)
	items := func(n, size int) []types.TransactWriteItem {
		var out []types.TransactWriteItem
		for i := range n {
			out = append(out, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("small"),
				Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i)), "v": s(strings.Repeat("v", size))}}})
		}
		return out
	}
	ctx := context.Background()
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items(10, 300<<10)})
	wantAPIErrorPrefix(t, err, "ValidationException", "Transaction exceeds the etcd cluster's limits: ")
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusBadRequest || !strings.Contains(err.Error(), "--max-request-bytes") {
		t.Errorf("got %v, want a 400 naming --max-request-bytes", err)
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("small"), ConsistentRead: aws.Bool(true)})
	if err != nil || out.Count != 0 {
		t.Errorf("Scan after the refused transaction: %v items, %v; want none", out, err)
	}
	if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items(5, 10)}); err != nil {
		t.Errorf("a 5-item transaction: %v", err)
	}
}
