package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDuplicateSetMembersInItems: a set with a member twice is refused
// wherever an item or key carries it (PutItem, BatchWriteItem,
// TransactWriteItems, BatchGetItem), in the words of the operation's request
// layer: BatchWriteItem and TransactWriteItems list the members as sent and
// word a number set's refusal without the prefix; PutItem (inside the
// envelope) and BatchGetItem quote the members, those before the first
// repeat in byte order, and name no member of a number set; a binary set's
// list is followed, with no space, by "of type BS"
// (paritysuite/dynamodb-conformance valueLayers, four regions, 2026-10-09).
// Nothing is written.
func TestDuplicateSetMembersInItems(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "DupSets", false)
	const pre = "One or more parameter values were invalid: Input collection "
	sets := []struct {
		v              types.AttributeValue
		older, current string
	}{
		{&types.AttributeValueMemberSS{Value: []string{"a", "b", "a"}}, pre + "[a, b, a] contains duplicates.", pre + `["a", "b", "a"] contains duplicates.`},
		{&types.AttributeValueMemberNS{Value: []string{"1", "1.0"}}, "Input collection contains duplicates", pre + "contains duplicates."},
		{&types.AttributeValueMemberBS{Value: [][]byte{[]byte("b"), []byte("b")}}, pre + "[Yg==, Yg==]of type BS contains duplicates.",
			pre + `["Yg==","Yg=="]of type BS contains duplicates.`},
	}
	for _, set := range sets {
		item := map[string]types.AttributeValue{"pk": s("k"), "v": set.v}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("DupSets"), Item: item})
		wantAPIError(t, err, "ValidationException", "1 validation error detected: "+set.current)
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"DupSets": {{PutRequest: &types.PutRequest{Item: item}}}}})
		wantAPIError(t, err, "ValidationException", set.older)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("DupSets"), Item: item}}}})
		wantAPIError(t, err, "ValidationException", set.older)
		_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"DupSets": {Keys: []map[string]types.AttributeValue{{"pk": set.v}}}}})
		wantAPIError(t, err, "ValidationException", set.current)
	}
	wantItem(t, c, "DupSets", map[string]types.AttributeValue{"pk": s("k")}, "")
}
