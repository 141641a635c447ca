package codec

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// The fast path's fast path: a GetItem, PutItem or DeleteItem as the SDKs
// send it, {"TableName":"t","Key":{...}} (or "Item"), with at most
// ConsistentRead (GetItem) and ReturnConsumedCapacity besides, decoded
// without reflection. The Key or Item is decoded by attr.Item's own
// UnmarshalJSON, as the reflective path does. Anything else (another
// member, a member twice, null, an escape in a name) gives up, leaving the
// reflective path and encoding/json to decide; the target may then be
// partly filled. TestItemFastPath holds it to them.

// flatTarget says where decodeFlat puts each member it takes.
type flatTarget struct {
	table      *string
	itemName   string // "Key" or "Item"
	item       *attr.Item
	consistent **bool // nil: ConsistentRead is not a member
	rcc        *string
}

// decodeFast decodes v by decodeFlat when v is one of the requests it
// serves (tried), reporting whether it could (ok).
func decodeFast(body []byte, v any) (tried, ok bool) {
	switch in := v.(type) {
	case *ddb.GetItemInput:
		return true, decodeFlat(body, flatTarget{&in.TableName, "Key", &in.Key, &in.ConsistentRead, &in.ReturnConsumedCapacity})
	case *ddb.PutItemInput:
		return true, decodeFlat(body, flatTarget{&in.TableName, "Item", &in.Item, nil, &in.ReturnConsumedCapacity})
	case *ddb.DeleteItemInput:
		return true, decodeFlat(body, flatTarget{&in.TableName, "Key", &in.Key, nil, &in.ReturnConsumedCapacity})
	}
	return false, false
}

// The members decodeFlat takes, as bits of a set.
const (
	memberTableName uint8 = 1 << iota
	memberItem
	memberConsistentRead
	memberReturnConsumedCapacity
)

// decodeFlat decodes body into t's members, reporting whether it could.
func decodeFlat(body []byte, t flatTarget) bool {
	s := scanner{b: body}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	var seen uint8
	ok := s.elements('}', func() bool {
		name, ok := s.plainBytes()
		if !ok || !s.colon() {
			return false
		}
		bit := t.member(string(name))
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case memberTableName:
			str, ok := s.plainBytes()
			*t.table = string(str)
			return ok
		case memberItem:
			start := s.i
			if s.i >= len(s.b) || s.b[s.i] != '{' || !s.skip(0) {
				return false
			}
			return t.item.UnmarshalJSON(s.b[start:s.i]) == nil
		case memberConsistentRead:
			var v bool
			switch {
			case s.literal("true"):
				v = true
			case s.literal("false"):
			default:
				return false
			}
			*t.consistent = &v
			return true
		default: // memberReturnConsumedCapacity
			str, ok := s.plainBytes()
			*t.rcc = string(str)
			return ok
		}
	})
	if !ok {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// member returns the bit of a member t takes, or 0.
func (t flatTarget) member(name string) uint8 {
	switch {
	case name == "TableName":
		return memberTableName
	case name == t.itemName:
		return memberItem
	case name == "ConsistentRead" && t.consistent != nil:
		return memberConsistentRead
	case name == "ReturnConsumedCapacity":
		return memberReturnConsumedCapacity
	}
	return 0
}
