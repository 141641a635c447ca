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

// TestBatchGetItem16MB: a BatchGetItem whose items add up to more than 16 MB
// returns what fits and the rest as UnprocessedKeys, which a retry then reads.
func TestBatchGetItem16MB(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Big", false)
	big := strings.Repeat("x", 390*1024)
	var keys []map[string]types.AttributeValue
	for i := 0; i < 50; i++ { // 50 × 390 KB ≈ 19 MB
		k := fmt.Sprintf("k%02d", i)
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Big"),
			Item: map[string]types.AttributeValue{"pk": s(k), "v": s(big)}}); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, map[string]types.AttributeValue{"pk": s(k)})
	}
	seen := map[string]bool{}
	req := map[string]types.KeysAndAttributes{"Big": {Keys: keys}}
	for round := 0; len(req) > 0; round++ {
		if round > 3 {
			t.Fatal("UnprocessedKeys never drained")
		}
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, item := range out.Responses["Big"] {
			k := item["pk"].(*types.AttributeValueMemberS).Value
			if seen[k] {
				t.Fatalf("item %s returned twice", k)
			}
			seen[k] = true
			size += len(item["v"].(*types.AttributeValueMemberS).Value)
		}
		if size > 16<<20 {
			t.Fatalf("round %d returned %d bytes, over the 16 MB limit", round, size)
		}
		if round == 0 && len(out.UnprocessedKeys) == 0 {
			t.Fatal("first round: got no UnprocessedKeys for 19 MB of items")
		}
		req = out.UnprocessedKeys
	}
	if len(seen) != 50 {
		t.Fatalf("got %d items in all, want 50", len(seen))
	}
}
