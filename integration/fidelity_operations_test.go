package integration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/ddblocal/ddblocal/table"
)

// sdkOperations returns the name of every operation of the linked
// aws-sdk-go-v2 service/dynamodb: the Client's methods that take a context
// and an *<Name>Input.
func sdkOperations() []string {
	var ops []string
	ct := reflect.TypeOf(&dynamodb.Client{})
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		if m.Type.NumIn() == 4 && m.Type.In(2).Kind() == reflect.Pointer && m.Type.In(2).Elem().Name() == m.Name+"Input" {
			ops = append(ops, m.Name)
		}
	}
	return ops
}

// TestEveryOperationDispatched sends every operation of the SDK (v1.74:
// 62) with an empty body: none may be an unknown operation or a server
// error (docs/differences-from-dynamodb.md says how each is answered).
func TestEveryOperationDispatched(t *testing.T) {
	srv := startServer(t, table.Options{})
	ops := sdkOperations()
	if len(ops) < 62 {
		t.Fatalf("found %d operations in the SDK, want at least 62: %v", len(ops), ops)
	}
	for _, op := range ops {
		status, typ, msg := rawCall(t, srv.URL, op, "{}")
		if strings.HasSuffix(typ, "UnknownOperationException") || status >= 500 {
			t.Errorf("%s: got %d %s %q", op, status, typ, msg)
		}
	}
}
