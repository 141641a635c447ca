package table

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
	if err := batchMapError(map[string][]ddb.WriteRequest{"T_1": make([]ddb.WriteRequest, 25)}); err != nil {
		t.Errorf("25 requests: %v", err)
	}
	if err := batchMapError(items); err == nil || !strings.HasPrefix(err.Error(), "ValidationException: 1 validation error detected: Value '{Tbl1=[WriteRequest(") ||
		!strings.HasSuffix(err.Error(), msgMapValue) {
		t.Errorf("an empty list: got %v", err)
	}
}
