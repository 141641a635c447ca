package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTransactWriteAggregateSize: the items of one TransactWriteItems may
// weigh 4 MB together (the API reference: "The aggregate size of the items
// in the transaction cannot exceed 4 MB"); more is a ValidationException
// in the service's words ("Transaction request cannot be larger than
// 4 MB", as applications quote DynamoDB's answer) and writes nothing. The
// sizes follow nubo-db/dynamodb-conformance's transactionLimits test, run
// against DynamoDB: ten items of 350 KB pass, twelve do not.
func TestTransactWriteAggregateSize(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "TxBig", false)
	puts := func(prefix string, n int) []types.TransactWriteItem {
		var acts []types.TransactWriteItem
		for i := range n {
			acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("TxBig"),
				Item: ritem{"pk": s(fmt.Sprintf("%s-%d", prefix, i)), "payload": s(strings.Repeat("x", 350_000))}}})
		}
		return acts
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts("over", 12)})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot be larger than 4 MB")
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("TxBig"), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 0 {
		t.Fatalf("after the refused transaction: %d items, want none", out.Count)
	}
	if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts("under", 10)}); err != nil {
		t.Fatalf("ten items of 350 KB: %v", err)
	}
}
