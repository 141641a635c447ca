// Package transfer moves items between JSON-lines files and any DynamoDB
// endpoint through the AWS SDK: export pages a table with parallel scan
// segments, import loads lines with BatchWriteItem, retrying unprocessed
// items with backoff. Package fixtures loads its items with the same pieces.
package transfer

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/attr"
)

// ToSDK converts an item of the value model to the SDK's attribute values.
// It shares byte slices, strings and nothing mutable the caller changes.
func ToSDK(it attr.Item) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(it))
	for k, v := range it {
		out[k] = valueToSDK(v)
	}
	return out
}

// valueToSDK is one type switch over the ten DynamoDB types.
func valueToSDK(v attr.Value) types.AttributeValue {
	switch v.T {
	case attr.TypeS:
		return &types.AttributeValueMemberS{Value: v.S}
	case attr.TypeN:
		return &types.AttributeValueMemberN{Value: v.S}
	case attr.TypeB:
		return &types.AttributeValueMemberB{Value: v.B}
	case attr.TypeBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Bool}
	case attr.TypeNULL:
		return &types.AttributeValueMemberNULL{Value: true}
	case attr.TypeM:
		return &types.AttributeValueMemberM{Value: ToSDK(attr.Item(v.M))}
	case attr.TypeL:
		l := make([]types.AttributeValue, len(v.L))
		for i, e := range v.L {
			l[i] = valueToSDK(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case attr.TypeSS:
		return &types.AttributeValueMemberSS{Value: v.SS}
	case attr.TypeNS:
		return &types.AttributeValueMemberNS{Value: v.SS}
	case attr.TypeBS:
		return &types.AttributeValueMemberBS{Value: v.BS}
	}
	panic(fmt.Sprintf("transfer: attribute value of invalid type %d", v.T))
}

// FromSDK converts the SDK's attribute values to the value model, as an
// item read from DynamoDB arrives. An unknown union member (a type newer
// than this code) is an error.
func FromSDK(m map[string]types.AttributeValue) (attr.Item, error) {
	it := make(attr.Item, len(m))
	for k, av := range m {
		v, err := valueFromSDK(av)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		it[k] = v
	}
	return it, nil
}

// valueFromSDK is one type switch over the SDK's union members.
func valueFromSDK(av types.AttributeValue) (attr.Value, error) {
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		return attr.String(av.Value), nil
	case *types.AttributeValueMemberN:
		return attr.Number(av.Value)
	case *types.AttributeValueMemberB:
		return attr.Binary(av.Value), nil
	case *types.AttributeValueMemberBOOL:
		return attr.Bool(av.Value), nil
	case *types.AttributeValueMemberNULL:
		return attr.Null(), nil
	case *types.AttributeValueMemberM:
		m, err := FromSDK(av.Value)
		return attr.Map(m), err
	case *types.AttributeValueMemberL:
		l := make([]attr.Value, len(av.Value))
		for i, e := range av.Value {
			v, err := valueFromSDK(e)
			if err != nil {
				return attr.Value{}, err
			}
			l[i] = v
		}
		return attr.List(l), nil
	case *types.AttributeValueMemberSS:
		return attr.StringSet(av.Value...), nil
	case *types.AttributeValueMemberNS:
		return attr.NumberSet(av.Value...)
	case *types.AttributeValueMemberBS:
		return attr.BinarySet(av.Value...), nil
	}
	return attr.Value{}, fmt.Errorf("unsupported attribute value %T", av)
}
