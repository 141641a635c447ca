package validate

import (
	"bytes"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// validFast reports whether v, a GetItem, PutItem or DeleteItem request
// decoded from body, certainly passes its struct tags' rules, without
// walking it by reflection; false decides nothing (ValidateBody then walks
// v as any request). It passes a request of the SDKs' usual shape only: a
// table name (not an ARN) of 3 to 255 of [a-zA-Z0-9_.-], a Key or Item, a
// ReturnConsumedCapacity of the enum or not sent, nothing else that has a
// rule (GetItem's ConsistentRead, ProjectionExpression and
// ExpressionAttributeNames have none), and no "" in the body (a member
// sent as "" breaks an enum where absent would not).
// TestValidFastMatchesWalk holds it to the walk.
func validFast(v any, body []byte) bool {
	var table, rcc string
	switch in := v.(type) {
	case *ddb.GetItemInput:
		if in.Key == nil || in.AttributesToGet != nil {
			return false
		}
		table, rcc = in.TableName, in.ReturnConsumedCapacity
	case *ddb.PutItemInput:
		if in.Item == nil || !plainWrite(&in.WriteParams) {
			return false
		}
		table, rcc = in.TableName, in.ReturnConsumedCapacity
	case *ddb.DeleteItemInput:
		if in.Key == nil || !plainWrite(&in.WriteParams) {
			return false
		}
		table, rcc = in.TableName, in.ReturnConsumedCapacity
	default:
		return false
	}
	n := len(table)
	if n < 3 || n > 255 || strings.HasPrefix(table, "arn:") || !isName(table) || bytes.Contains(body, []byte(`""`)) {
		return false
	}
	switch rcc {
	case "", "INDEXES", "TOTAL", "NONE":
		return true
	}
	return false
}

// plainWrite reports whether p holds nothing but ReturnConsumedCapacity.
func plainWrite(p *ddb.WriteParams) bool {
	return p.ConditionExpression == nil && p.Expected == nil && p.ConditionalOperator == nil && p.ReturnValues == "" &&
		p.ReturnItemCollectionMetrics == "" && p.ReturnValuesOnConditionCheckFailure == "" &&
		p.ExpressionAttributeNames == nil && p.ExpressionAttributeValues == nil
}
