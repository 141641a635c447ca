package validate

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// BatchWriteItem's RequestItems (the writerequestitems rule). The service
// checks the map after every other member's constraint and reports it alone
// (an unknown ReturnConsumedCapacity is reported instead:
// paritysuite/dynamodb-conformance's batchOperations validation-ordering
// test), before any table is looked up: first its value constraint, a table
// given no request or more than 25, then its key constraint, a key that is
// no table name (msgTableNameKeys, every constraint listed whichever
// failed; an ARN is checked when the table is looked up). Either way it
// echoes the whole map as Java prints its request model: "{T=[WriteRequest(
// putRequest=PutRequest(item={pk=AttributeValue(s=a, n=null, ...)},
// workloadProfileName=null), deleteRequest=null)]}" (the same suite's
// batchWriteItem error-message tests and cross-Region captures: the empty
// list exactly, "{T=[]}", in us-east-1 and eu-west-2 in October 2026; the
// 26-request echo in most Regions in September 2026; "bad!name" in
// us-east-1 and eu-west-2, 2026-10-09). Where a detail of the echo is not
// recorded (binary values, delete requests, the order of an item's
// attributes, which Java takes from a hash map) it is printed the same way
// as what is: attributes in name order.

// maxBatchWriteRequests is the most requests one table of a BatchWriteItem
// may carry.
const maxBatchWriteRequests = 25

// msgMapValue is the RequestItems map's value constraint.
const msgMapValue = "Map value must satisfy constraint: " +
	"[Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"

// writeRequestItems is the constraint text of BatchWriteItem's RequestItems
// v (a map[string][]ddb.WriteRequest) if it breaks one, else "".
func writeRequestItems(v reflect.Value) string {
	iter := v.MapRange()
	for iter.Next() {
		if n := iter.Value().Len(); n == 0 || n > maxBatchWriteRequests {
			return msgMapValue
		}
	}
	return tableNameKeys(v)
}

// javaRequestItems renders RequestItems as the service echoes it, tables
// in name order.
func javaRequestItems(items map[string][]ddb.WriteRequest) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range slices.Sorted(maps.Keys(items)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString("=[")
		for j, r := range items[name] {
			if j > 0 {
				b.WriteString(", ")
			}
			javaWriteRequest(&b, r)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// javaWriteRequest renders one WriteRequest.
func javaWriteRequest(b *strings.Builder, r ddb.WriteRequest) {
	b.WriteString("WriteRequest(putRequest=")
	if r.PutRequest != nil {
		item, _ := r.PutRequest.Item.Item()
		b.WriteString("PutRequest(item=")
		javaItem(b, item)
		b.WriteString(", workloadProfileName=null)")
	} else {
		b.WriteString("null")
	}
	b.WriteString(", deleteRequest=")
	if r.DeleteRequest != nil {
		b.WriteString("DeleteRequest(key=")
		javaItem(b, r.DeleteRequest.Key)
		b.WriteString(", workloadProfileName=null)")
	} else {
		b.WriteString("null")
	}
	b.WriteByte(')')
}

// javaItem renders an item or a map value: {name=AttributeValue(...), ...}.
func javaItem(b *strings.Builder, m map[string]attr.Value) {
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		javaValue(b, m[k])
	}
	b.WriteByte('}')
}

// javaValue renders one AttributeValue with every member the service's
// model has, in its order, the unset ones null.
func javaValue(b *strings.Builder, v attr.Value) {
	members := [...]string{"s", "n", "b", "iNT", "dECIMAL", "dOUBLE", "sS", "nS", "bS", "iNTSET", "dECIMALSET", "dOUBLESET", "m", "l", "nULL", "bOOL"}
	set := map[attr.Type]string{attr.TypeS: "s", attr.TypeN: "n", attr.TypeB: "b", attr.TypeSS: "sS", attr.TypeNS: "nS",
		attr.TypeBS: "bS", attr.TypeM: "m", attr.TypeL: "l", attr.TypeNULL: "nULL", attr.TypeBOOL: "bOOL"}[v.T]
	b.WriteString("AttributeValue(")
	for i, name := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		if name != set {
			b.WriteString("null")
			continue
		}
		javaMember(b, v)
	}
	b.WriteByte(')')
}

// javaMember renders the member v sets.
func javaMember(b *strings.Builder, v attr.Value) {
	switch v.T {
	case attr.TypeS, attr.TypeN:
		b.WriteString(v.S)
	case attr.TypeB:
		b.WriteString(javaBytes(v.B))
	case attr.TypeSS, attr.TypeNS:
		b.WriteString("[" + strings.Join(v.SS, ", ") + "]")
	case attr.TypeBS:
		parts := make([]string, len(v.BS))
		for i, x := range v.BS {
			parts[i] = javaBytes(x)
		}
		b.WriteString("[" + strings.Join(parts, ", ") + "]")
	case attr.TypeM:
		javaItem(b, v.M)
	case attr.TypeL:
		b.WriteByte('[')
		for i, x := range v.L {
			if i > 0 {
				b.WriteString(", ")
			}
			javaValue(b, x)
		}
		b.WriteByte(']')
	case attr.TypeNULL:
		b.WriteString("true")
	case attr.TypeBOOL:
		b.WriteString(strconv.FormatBool(v.Bool))
	}
}

// javaBytes renders a binary as Java prints a heap ByteBuffer.
func javaBytes(p []byte) string {
	n := strconv.Itoa(len(p))
	return "java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]"
}
