package integration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// ritem is the SDK's item shape, shortened for the read tests.
type ritem = map[string]types.AttributeValue

// createTyped creates a PAY_PER_REQUEST table with pk of pkType and, when
// skType is not empty, sk of skType.
func createTyped(t testing.TB, c *dynamodb.Client, name string, pkType, skType types.ScalarAttributeType) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: pkType}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	if skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: skType})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	if _, err := c.CreateTable(context.Background(), in); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// putAll writes items to tableName with BatchWriteItem, 25 at a time.
func putAll(t testing.TB, c *dynamodb.Client, tableName string, items []ritem) {
	t.Helper()
	for len(items) > 0 {
		chunk := items[:min(25, len(items))]
		items = items[len(chunk):]
		reqs := make([]types.WriteRequest, len(chunk))
		for i, it := range chunk {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
		}
		out, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{tableName: reqs}})
		if err != nil {
			t.Fatalf("BatchWriteItem: %v", err)
		}
		if len(out.UnprocessedItems) != 0 {
			t.Fatalf("BatchWriteItem: got %d unprocessed tables, want 0", len(out.UnprocessedItems))
		}
	}
}

// sizedItem returns {pk, (sk,) data} whose DynamoDB size (attribute names plus
// string values, in UTF-8 bytes) is exactly size.
func sizedItem(t testing.TB, pk, sk string, size int) ritem {
	t.Helper()
	it := ritem{"pk": s(pk)}
	fixed := len("pk") + len(pk) + len("data")
	if sk != "" {
		it["sk"] = s(sk)
		fixed += len("sk") + len(sk)
	}
	if size-fixed < 1 {
		t.Fatalf("sizedItem: size %d too small", size)
	}
	it["data"] = s(strings.Repeat("x", size-fixed))
	return it
}

// str returns the S value of attribute name in it, or "" when absent.
func rstr(it ritem, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// num returns the N value of attribute name in it, or "" when absent.
func rnum(it ritem, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}

// units returns the CapacityUnits of cc, failing when it is missing.
func runits(t testing.TB, cc *types.ConsumedCapacity) float64 {
	t.Helper()
	if cc == nil || cc.CapacityUnits == nil {
		t.Fatalf("ConsumedCapacity: got %+v, want CapacityUnits", cc)
	}
	return *cc.CapacityUnits
}

// vals builds ExpressionAttributeValues from alternating names and values.
func rvals(kv ...any) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return m
}

// wantAPIErrorPrefix is wantAPIError for a message known only up to prefix.
func wantAPIErrorPrefix(t testing.TB, err error, code, prefix string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got error %v, want %s: %s...", err, code, prefix)
	}
	if ae.ErrorCode() != code || !strings.HasPrefix(ae.ErrorMessage(), prefix) {
		t.Fatalf("got %s: %q, want %s: %q...", ae.ErrorCode(), ae.ErrorMessage(), code, prefix)
	}
}
