package validate

import (
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

func TestJavaValue(t *testing.T) {
	nulls := func(set, value string) string {
		var parts []string
		for _, m := range []string{"s", "n", "b", "iNT", "dECIMAL", "dOUBLE", "sS", "nS", "bS", "iNTSET", "dECIMALSET", "dOUBLESET", "m", "l", "nULL", "bOOL"} {
			v := "null"
			if m == set {
				v = value
			}
			parts = append(parts, m+"="+v)
		}
		return "AttributeValue(" + strings.Join(parts, ", ") + ")"
	}
	num, _ := attr.Number("1.5")
	ns, _ := attr.NumberSet("2", "1")
	tests := []struct {
		v    attr.Value
		want string
	}{
		{attr.String("bw-0"), nulls("s", "bw-0")},
		{num, nulls("n", "1.5")},
		{attr.Binary([]byte{1, 2, 3}), nulls("b", "java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]")},
		{attr.Value{T: attr.TypeSS, SS: []string{"a", "b"}}, nulls("sS", "[a, b]")},
		{ns, nulls("nS", "[1, 2]")},
		{attr.Value{T: attr.TypeBS, BS: [][]byte{{1}}}, nulls("bS", "[java.nio.HeapByteBuffer[pos=0 lim=1 cap=1]]")},
		{attr.Map(map[string]attr.Value{"y": attr.Bool(true), "x": attr.Null()}), nulls("m", "{x="+nulls("nULL", "true")+", y="+nulls("bOOL", "true")+"}")},
		{attr.List([]attr.Value{attr.Bool(false)}), nulls("l", "["+nulls("bOOL", "false")+"]")},
	}
	for _, tt := range tests {
		var b strings.Builder
		javaValue(&b, tt.v)
		if b.String() != tt.want {
			t.Errorf("%v:\n got %s\nwant %s", tt.v, b.String(), tt.want)
		}
	}
}

func TestJavaRequestItems(t *testing.T) {
	key := attr.Item{"pk": attr.String("a")}
	items := map[string][]ddb.WriteRequest{
		"Tbl2": {},
		"Tbl1": {{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(key)}}, {DeleteRequest: &ddb.DeleteRequest{Key: key}}},
	}
	var b strings.Builder
	javaValue(&b, attr.String("a"))
	v := b.String()
	want := "{Tbl1=[WriteRequest(putRequest=PutRequest(item={pk=" + v + "}, workloadProfileName=null), deleteRequest=null), " +
		"WriteRequest(putRequest=null, deleteRequest=DeleteRequest(key={pk=" + v + "}, workloadProfileName=null))], Tbl2=[]}"
	if got := javaRequestItems(items); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestValidateWriteRequestItems: BatchWriteItem's RequestItems fails its
// value constraint (1 to 25 requests a table) before its key constraint,
// both echoing the map as Java prints it, and only when every other member
// holds: an unknown ReturnConsumedCapacity is reported alone.
func TestValidateWriteRequestItems(t *testing.T) {
	const (
		keys = "failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, " +
			"Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"
		value = "failed to satisfy constraint: Map value must satisfy constraint: " +
			"[Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"
		rcc = "Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
		del = `[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]`
	)
	var b strings.Builder
	javaValue(&b, attr.String("a"))
	delJava := "[WriteRequest(putRequest=null, deleteRequest=DeleteRequest(key={pk=" + b.String() + "}, workloadProfileName=null))]"
	dels := func(n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(del[1:len(del)-1]+",", n), ",") + "]"
	}
	tests := []struct{ name, body, want string }{
		{"names", `{"RequestItems":{"Orders":` + del + `,"a.b-c_1":` + dels(25) + `}}`, ""},
		{"arn", `{"RequestItems":{"arn:aws:dynamodb:us-east-1:123456789012:table/x":` + del + `}}`, ""},
		{"bad name", `{"RequestItems":{"bad!name":` + del + `}}`, "1 validation error detected: Value '{bad!name=" + delJava + "}' at 'requestItems' " + keys},
		{"short name beside a good one", `{"RequestItems":{"ab":` + del + `,"Orders":` + del + `}}`,
			"1 validation error detected: Value '{Orders=" + delJava + ", ab=" + delJava + "}' at 'requestItems' " + keys},
		{"no request", `{"RequestItems":{"Orders":[]}}`, "1 validation error detected: Value '{Orders=[]}' at 'requestItems' " + value},
		{"26 requests", `{"RequestItems":{"Orders":` + dels(26) + `}}`, "1 validation error detected: Value '{Orders=[" +
			strings.TrimSuffix(strings.Repeat(delJava[1:len(delJava)-1]+", ", 26), ", ") + "]}' at 'requestItems' " + value},
		{"value before key", `{"RequestItems":{"ab":[]}}`, "1 validation error detected: Value '{ab=[]}' at 'requestItems' " + value},
		{"other members first", `{"RequestItems":{"ab":[]},"ReturnConsumedCapacity":"BOGUS"}`, "1 validation error detected: " + rcc},
	}
	vd := new(Validator)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v ddb.BatchWriteItemInput
			err := decode(vd, []byte(tt.body), &v)
			if got := errText(err); got != tt.want {
				t.Errorf("Decode(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
		})
	}
}
