package codec

import "github.com/ddblocal/ddblocal/ddb"

// decodeGetItem is the fast path's fast path: a GetItem as the SDKs send
// it, {"TableName":"t","Key":{...}} with at most ConsistentRead and
// ReturnConsumedCapacity besides, decoded without reflection. The Key is
// decoded by attr.Item's own UnmarshalJSON, as the reflective path does.
// Anything else (another member, a member twice, null, an escape in a
// name) gives up, leaving the reflective path and encoding/json to decide;
// in may then be partly filled. TestGetItemFastPath holds it to them.
func decodeGetItem(body []byte, in *ddb.GetItemInput) bool {
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
		bit, ok := getItemMember(string(name))
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case memberTableName:
			str, ok := s.plainBytes()
			in.TableName = string(str)
			return ok
		case memberKey:
			start := s.i
			if s.i >= len(s.b) || s.b[s.i] != '{' || !s.skip(0) {
				return false
			}
			return in.Key.UnmarshalJSON(s.b[start:s.i]) == nil
		case memberConsistentRead:
			var v bool
			switch {
			case s.literal("true"):
				v = true
			case s.literal("false"):
			default:
				return false
			}
			in.ConsistentRead = &v
			return true
		default: // memberReturnConsumedCapacity
			str, ok := s.plainBytes()
			in.ReturnConsumedCapacity = string(str)
			return ok
		}
	})
	if !ok {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// The members decodeGetItem takes, as bits of a set.
const (
	memberTableName uint8 = 1 << iota
	memberKey
	memberConsistentRead
	memberReturnConsumedCapacity
)

// getItemMember returns the bit of a member decodeGetItem takes.
func getItemMember(name string) (uint8, bool) {
	switch name {
	case "TableName":
		return memberTableName, true
	case "Key":
		return memberKey, true
	case "ConsistentRead":
		return memberConsistentRead, true
	case "ReturnConsumedCapacity":
		return memberReturnConsumedCapacity, true
	}
	return 0, false
}
