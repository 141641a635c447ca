package integration

import (
	"context"
	"encoding/base64"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The expression tests share one rich item and render items as canonical
// text, so that a whole expected item fits on one line of a test table.

// exSeed returns a fresh copy of the item most expression tests run against.
func exSeed(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":        s(pk),
		"num":       n("10"),
		"str":       s("hello world"),
		"bin":       &types.AttributeValueMemberB{Value: []byte{1, 2, 3}},
		"flag":      &types.AttributeValueMemberBOOL{Value: true},
		"nul":       &types.AttributeValueMemberNULL{Value: true},
		"ss":        &types.AttributeValueMemberSS{Value: []string{"a", "b", "c"}},
		"ns":        &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs":        &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
		"lst":       exL(n("1"), s("x"), exM("deep", s("y"))),
		"mp":        exM("in1", exM("v", n("5")), "nm", s("n"), "tags", exL(s("t1"))),
		"status":    s("active"),
		"my.dotted": s("dot"),
	}
}

func exL(vs ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: vs}
}

// exM builds a map from alternating names and values.
func exM(kv ...any) types.AttributeValue {
	m := map[string]types.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return &types.AttributeValueMemberM{Value: m}
}

func exSS(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
func exNS(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }
func exB(v ...byte) types.AttributeValue    { return &types.AttributeValueMemberB{Value: v} }

// exRender renders an item canonically: attributes and set members sorted
// (DynamoDB promises no set order), lists in order.
func exRender(item map[string]types.AttributeValue) string {
	if item == nil {
		return "<nil>"
	}
	return exRenderV(&types.AttributeValueMemberM{Value: item})
}

func exRenderV(v types.AttributeValue) string {
	sorted := func(xs []string) string {
		xs = append([]string(nil), xs...)
		sort.Strings(xs)
		return strings.Join(xs, ",")
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + v.Value
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return "B:" + base64.StdEncoding.EncodeToString(v.Value)
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			return "BOOL:true"
		}
		return "BOOL:false"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS[" + sorted(v.Value) + "]"
	case *types.AttributeValueMemberNS:
		return "NS[" + sorted(v.Value) + "]"
	case *types.AttributeValueMemberBS:
		var xs []string
		for _, b := range v.Value {
			xs = append(xs, base64.StdEncoding.EncodeToString(b))
		}
		return "BS[" + sorted(xs) + "]"
	case *types.AttributeValueMemberL:
		var xs []string
		for _, e := range v.Value {
			xs = append(xs, exRenderV(e))
		}
		return "[" + strings.Join(xs, ",") + "]"
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(v.Value))
		for k := range v.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var xs []string
		for _, k := range keys {
			xs = append(xs, k+"="+exRenderV(v.Value[k]))
		}
		return "{" + strings.Join(xs, ",") + "}"
	}
	return "?"
}

// exPut writes item, failing the test on error.
func exPut(t *testing.T, c *dynamodb.Client, tableName string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(tableName), Item: item}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

// exGet reads the item with hash key pk, strongly consistent.
func exGet(t *testing.T, c *dynamodb.Client, tableName, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(tableName), Key: map[string]types.AttributeValue{"pk": s(pk)}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	return out.Item
}

// exIsCCF reports whether err is the typed ConditionalCheckFailedException.
func exIsCCF(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// exValues builds ExpressionAttributeValues holding only the placeholders that
// expr mentions (DynamoDB rejects unused values), taken from all.
func exValues(all map[string]types.AttributeValue, exprs ...string) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for k, v := range all {
		for _, e := range exprs {
			if exMentions(e, k) {
				out[k] = v
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// exNames is exValues for ExpressionAttributeNames.
func exNames(all map[string]string, exprs ...string) map[string]string {
	out := map[string]string{}
	for k, v := range all {
		for _, e := range exprs {
			if exMentions(e, k) {
				out[k] = v
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// exMentions reports whether placeholder ph occurs in expr as a whole token.
func exMentions(expr, ph string) bool {
	for i := 0; ; {
		j := strings.Index(expr[i:], ph)
		if j < 0 {
			return false
		}
		end := i + j + len(ph)
		if end == len(expr) || !exIdentChar(expr[end]) {
			return true
		}
		i = end
	}
}

func exIdentChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
