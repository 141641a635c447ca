package table

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// BatchWriteItem's request counts. A table given no request, or more than
// 25, fails the RequestItems map's value constraint, which the service
// reports before it looks at anything else of the request, echoing the whole map as Java prints its request model: "{T=[WriteRequest(putRequest=
// PutRequest(item={pk=AttributeValue(s=a, n=null, ...)}, workloadProfileName=
// null), deleteRequest=null)]}" (paritysuite/dynamodb-conformance's
// batchWriteItem error-message tests and cross-Region captures: the empty
// list exactly, "{T=[]}", in us-east-1 and eu-west-2 in October 2026; the
// 26-request echo in most Regions in September 2026). Where a detail of the
// echo is not recorded (binary values, delete requests, the order of an
// item's attributes, which Java takes from a hash map) it is printed the
// same way as what is: attributes in name order.

const msgMapValue = "failed to satisfy constraint: Map value must satisfy constraint: " +
	"[Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"

// msgMapKeys is the RequestItems map's key constraint, which a key that is
// no table name fails, every constraint listed whichever failed
// (paritysuite/dynamodb-conformance's batchWriteItem error-message test,
// us-east-1 and eu-west-2, 2026-10-09: "bad!name"; an ARN is checked when
// the table is looked up).
const msgMapKeys = "failed to satisfy constraint: Map keys must satisfy constraint: " +
	"[Member must have length less than or equal to 255, Member must have length greater than or equal to 3, " +
	"Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"

// batchMapError is that refusal of a BatchWriteItem's RequestItems, or nil.
func batchMapError(items map[string][]ddb.WriteRequest) error {
	for _, reqs := range items {
		if len(reqs) == 0 || len(reqs) > maxBatchWriteRequests {
			return ddb.Errorf(ddb.ValidationException, "1 validation error detected: Value '%s' at 'requestItems' %s", javaRequestItems(items), msgMapValue)
		}
	}
	return nil
}

// CheckBatchWriteRequestItems is the service's refusal of a client's
// BatchWriteItem by its RequestItems map, or nil: the value constraint
// first, then the key constraint, echoing the map as Java prints it. The
// service checks the keys after every other member's constraint (an
// unknown ReturnConsumedCapacity is reported alone: the same suite's
// batchOperations validation-ordering test), before any table is looked up.
// api calls it where a client's request is validated; BatchWriteItem itself
// checks only the value constraint, so that the service's own callers may
// name a table as they like.
func (s *Service) CheckBatchWriteRequestItems(items map[string][]ddb.WriteRequest) error {
	if err := batchMapError(items); err != nil {
		return err
	}
	for name := range items {
		if !ddb.TableNameOrARN(name) {
			return ddb.Errorf(ddb.ValidationException, "1 validation error detected: Value '%s' at 'requestItems' %s", javaRequestItems(items), msgMapKeys)
		}
	}
	return nil
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
