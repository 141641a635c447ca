package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBatchRequestCounts: how many keys or requests one table of a batch
// may carry is a constraint on the RequestItems map's values, reported in
// the service's words before any table is looked up (the tables here do not
// exist): BatchGetItem's in its newer form naming the member
// (paritysuite/dynamodb-conformance, us-east-1 and eu-west-2, October 2026),
// BatchWriteItem's echoing the map as Java prints it (the same suite: the
// empty list exactly, in both Regions; 26 requests as most Regions echo
// them). More than the limit over several tables is the older "Too many
// items requested" (TestBatchGetItemErrors, TestBatchWriteItemErrors).
func TestBatchRequestCounts(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	keys := make([]map[string]types.AttributeValue, 101)
	puts := make([]types.WriteRequest, 26)
	for i := range keys {
		keys[i] = map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i))}
	}
	for i := range puts {
		puts[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint("bw-", i))}}}
	}
	const mapValue = "' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: " +
		"[Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"
	batchGet := func(ka types.KeysAndAttributes) error {
		_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"BatchNone": ka}})
		return err
	}
	batchWrite := func(reqs []types.WriteRequest) error {
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"BatchNone": reqs}})
		return err
	}
	wantAPIError(t, batchGet(types.KeysAndAttributes{Keys: keys}), "ValidationException",
		"1 validation error detected: Value at 'RequestItems.BatchNone.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100")
	wantAPIError(t, batchGet(types.KeysAndAttributes{Keys: []map[string]types.AttributeValue{}}), "ValidationException",
		"1 validation error detected: Value at 'RequestItems.BatchNone.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1")
	wantAPIError(t, batchWrite([]types.WriteRequest{}), "ValidationException",
		"1 validation error detected: Value '{BatchNone=[]}"+mapValue)

	err := batchWrite(puts)
	wantAPIError(t, err, "ValidationException", "")
	msg := err.Error()
	const first = "1 validation error detected: Value '{BatchNone=[WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(s=bw-0, n=null, b=null, " +
		"iNT=null, dECIMAL=null, dOUBLE=null, sS=null, nS=null, bS=null, iNTSET=null, dECIMALSET=null, dOUBLESET=null, m=null, l=null, " +
		"nULL=null, bOOL=null)}, workloadProfileName=null), deleteRequest=null), WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(s=bw-1, "
	if !strings.Contains(msg, first) || !strings.HasSuffix(msg, "bOOL=null)}, workloadProfileName=null), deleteRequest=null)]}"+mapValue) ||
		strings.Count(msg, "WriteRequest(") != 26 {
		t.Errorf("26 requests: got %q", msg)
	}
}

// TestBatchWritePutKeyMismatch: a BatchWriteItem put whose key does not fit
// the table's key schema (missing, of another type, not a scalar) is worded
// as a key that does not match the schema, not as PutItem words it; an
// empty key value keeps its own words (paritysuite/dynamodb-conformance's
// batchWriteItem error-message tests, four Regions in June 2026, us-east-1
// and eu-west-2 in October 2026). Nothing is written.
func TestBatchWritePutKeyMismatch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "BwKeys", true)
	const mismatch = "The provided key element does not match the schema"
	for _, tt := range []struct {
		item map[string]types.AttributeValue
		want string
	}{
		{map[string]types.AttributeValue{"other": s("x")}, mismatch},
		{map[string]types.AttributeValue{"pk": s("x")}, mismatch},
		{map[string]types.AttributeValue{"pk": n("5"), "sk": s("x")}, mismatch},
		{map[string]types.AttributeValue{"pk": s("x"), "sk": exL(s("x"))}, mismatch},
		{map[string]types.AttributeValue{"pk": s(""), "sk": s("x")},
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
	} {
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"BwKeys": {{PutRequest: &types.PutRequest{Item: tt.item}}}}})
		wantAPIError(t, err, "ValidationException", tt.want)
	}
	if got := tableState(t, c, "BwKeys"); len(got) != 0 {
		t.Errorf("refused puts stored %v", got)
	}
}
