package table_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// TestFastPathsMatchPlain runs the same seeded random operations on two
// services, one with its fast paths (blind puts, GetItem rendered from the
// stored bytes, lazily decoded Query and Scan pages, BatchWriteItem puts
// stored without being decoded) and one with their plain twins, through the
// api layer, and requires every response byte and every DescribeTable
// counter to be equal.
func TestFastPathsMatchPlain(t *testing.T) {
	ops := 1500
	if testing.Short() {
		ops = 300
	}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			fast, plain := diffServer(t, false), diffServer(t, true)
			for _, body := range []string{diffTableT, diffTableP, diffTableG} {
				if got, _ := diffCall(t, fast, plain, "CreateTable", body); got[:4] != "200 " {
					t.Fatalf("CreateTable: %s", got)
				}
			}
			g := &diffGen{r: rand.New(rand.NewPCG(seed, 99))}
			okByOp := map[string]int{}
			for i := range ops {
				op, body := g.next()
				got, want := diffCall(t, fast, plain, op, body)
				if got != want {
					t.Fatalf("op %d %s %s:\nfast  %s\nplain %s", i, op, body, got, want)
				}
				if got[:4] == "200 " && len(got) > 40 {
					okByOp[op]++
				}
				if i%100 == 99 {
					diffCounters(t, fast, plain)
				}
			}
			diffCounters(t, fast, plain)
			// The operations must mostly succeed with content, or the test
			// compares error messages only.
			for _, op := range []string{"PutItem", "GetItem", "UpdateItem", "Query", "Scan", "BatchWriteItem", "BatchGetItem"} {
				if okByOp[op] < ops/100 {
					t.Errorf("only %d %s calls succeeded with a body (%v)", okByOp[op], op, okByOp)
				}
			}
			t.Logf("successful calls with a body: %v", okByOp)
		})
	}
}

// diffServer returns the api handler of a new in-memory service.
func diffServer(t *testing.T, plain bool) http.Handler {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	s := table.New(db, table.Options{})
	if plain {
		table.SetPlain(s)
	}
	t.Cleanup(func() {
		s.Close()
		db.Close()
	})
	return api.NewHandler(api.Config{Admin: admin.Handler(admin.Config{Settle: s.Settle})}, api.Operations(s))
}

const diffAuth = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc"

// diffCall sends op with body to both handlers and returns both answers
// (status and body).
func diffCall(t *testing.T, fast, plain http.Handler, op, body string) (got, want string) {
	t.Helper()
	answer := func(h http.Handler) string {
		req := httptest.NewRequest("POST", "/", bytes.NewReader([]byte(body)))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("Authorization", diffAuth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", op, body, rec.Code, rec.Body)
		}
		return fmt.Sprint(rec.Code, " ", rec.Body.String())
	}
	return answer(fast), answer(plain)
}

// diffCounters compares the item and size counters DescribeTable reports,
// once the global indexes have caught up.
func diffCounters(t *testing.T, fast, plain http.Handler) {
	t.Helper()
	for _, h := range []http.Handler{fast, plain} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/_ddblocal/settle", nil))
		if rec.Code != 200 {
			t.Fatalf("settle: %d %s", rec.Code, rec.Body)
		}
	}
	type counters struct {
		Table struct {
			TableName             string
			ItemCount             int64
			TableSizeBytes        int64
			LocalSecondaryIndexes []struct {
				IndexName                 string
				ItemCount, IndexSizeBytes int64
			}
			GlobalSecondaryIndexes []struct {
				IndexName                 string
				ItemCount, IndexSizeBytes int64
			}
		}
	}
	for _, name := range []string{"Tab", "Pla", "Glo"} {
		got, want := diffCall(t, fast, plain, "DescribeTable", `{"TableName":"`+name+`"}`)
		var g, w counters
		if err := json.Unmarshal([]byte(got[4:]), &g); err != nil {
			t.Fatalf("DescribeTable %s: %v in %s", name, err, got)
		}
		if err := json.Unmarshal([]byte(want[4:]), &w); err != nil {
			t.Fatalf("DescribeTable %s: %v in %s", name, err, want)
		}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("DescribeTable %s counters:\nfast  %+v\nplain %+v", name, g, w)
		}
	}
}

// Table Tab has a sort key, a local index projecting f (reads of other
// attributes fetch from the table) and a global index; Pla has only a
// partition key, so its unconditional puts are blind; Glo has a partition
// key, a global index and a stream, so its unconditional puts are blind
// and logged.
const (
	diffTableT = `{"TableName":"Tab","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},
			{"AttributeName":"l","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"LocalSecondaryIndexes":[{"IndexName":"byL","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],
			"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["f"]}}],
		"GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`
	diffTableP = `{"TableName":"Pla","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`
	diffTableG = `{"TableName":"Glo","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},
		"GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`
)

// diffGen draws random operations over a small key space, so that writes
// overwrite and reads find items.
type diffGen struct{ r *rand.Rand }

func (g *diffGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *diffGen) chance(p float64) bool    { return g.r.Float64() < p }

// value returns a random attribute value of a random type.
func (g *diffGen) value(depth int) attr.Value {
	switch n := g.r.IntN(9); {
	case n == 0:
		return attr.Int(int64(g.r.IntN(2001) - 1000))
	case n == 1:
		return attr.Value{T: attr.TypeN, S: fmt.Sprintf("%d.%03dE%d", g.r.IntN(100), g.r.IntN(1000), g.r.IntN(20)-10)}
	case n == 2:
		return attr.Binary([]byte(fmt.Sprint(g.r.Uint64())))
	case n == 3:
		return attr.Bool(g.chance(0.5))
	case n == 4:
		return attr.StringSet(fmt.Sprint("a", g.r.IntN(3)), fmt.Sprint("b", g.r.IntN(3)))
	case n == 5 && depth < 2:
		return attr.List([]attr.Value{g.value(depth + 1), g.value(depth + 1)})
	case n == 6 && depth < 2:
		return attr.Map(map[string]attr.Value{"x": g.value(depth + 1), "y<&>": g.value(depth + 1)})
	case n == 7:
		return attr.Null()
	}
	return attr.String(fmt.Sprintf("s\u00e9\"%d\\%s", g.r.IntN(100), bytes.Repeat([]byte("v"), g.r.IntN(300))))
}

func (g *diffGen) pk() attr.Value { return attr.String(fmt.Sprint("p", g.r.IntN(6))) }

// key returns a key of table tbl.
func (g *diffGen) key(tbl string) attr.Item {
	if tbl != "Tab" {
		return attr.Item{"pk": g.pk()}
	}
	return attr.Item{"pk": g.pk(), "sk": attr.Int(int64(g.r.IntN(25)))}
}

// item returns an item of table tbl, with or without the index keys.
func (g *diffGen) item(tbl string) attr.Item {
	it := g.key(tbl)
	it["f"] = attr.Int(int64(g.r.IntN(10)))
	for range g.r.IntN(4) {
		it[g.pick("v", "w", "m", "z")] = g.value(0)
	}
	if g.chance(0.8) {
		it["l"] = attr.Int(int64(g.r.IntN(50)))
	}
	if g.chance(0.7) {
		it["g"] = attr.String(g.pick("g0", "g1", "g2"))
	}
	return it
}

// next returns a random operation and its request body.
func (g *diffGen) next() (string, string) {
	tbl := g.pick("Tab", "Pla", "Glo")
	req := map[string]any{"TableName": tbl, "ReturnConsumedCapacity": g.pick("INDEXES", "TOTAL", "NONE")}
	switch n := g.r.IntN(20); {
	case n < 5:
		req["Item"] = g.item(tbl)
		g.writeOptions(req, tbl)
		return "PutItem", enc(req)
	case n < 8:
		req["Key"] = g.key(tbl)
		req["ConsistentRead"] = g.chance(0.5)
		if g.chance(0.3) {
			req["ProjectionExpression"] = g.pick("v, f", "m.x, pk", "z[0], w")
		}
		return "GetItem", enc(req)
	case n < 9:
		req["Key"] = g.key(tbl)
		g.writeOptions(req, tbl)
		return "DeleteItem", enc(req)
	case n < 11:
		req["Key"] = g.key(tbl)
		switch g.r.IntN(3) {
		case 0:
			req["UpdateExpression"] = "SET f = f + :one"
			req["ConditionExpression"] = "attribute_exists(f)"
			req["ExpressionAttributeValues"] = map[string]attr.Value{":one": attr.Int(1)}
		case 1:
			req["UpdateExpression"] = "SET v = :v REMOVE w"
			req["ExpressionAttributeValues"] = map[string]attr.Value{":v": g.value(0)}
		default:
			req["UpdateExpression"] = "ADD f :one"
			req["ExpressionAttributeValues"] = map[string]attr.Value{":one": attr.Int(1)}
		}
		req["ReturnValues"] = g.pick("NONE", "ALL_OLD", "ALL_NEW", "UPDATED_NEW")
		return "UpdateItem", enc(req)
	case n < 14:
		return "Query", enc(g.query(req))
	case n < 16:
		return "Scan", enc(g.scan(req))
	case n < 18:
		return "BatchWriteItem", enc(g.batchWrite())
	}
	return "BatchGetItem", enc(g.batchGet())
}

// writeOptions adds a put's or delete's optional members.
func (g *diffGen) writeOptions(req map[string]any, tbl string) {
	if g.chance(0.3) {
		req["ReturnValues"] = "ALL_OLD"
	}
	if g.chance(0.2) {
		req["ConditionExpression"] = g.pick("attribute_not_exists(pk)", "f < :five")
		req["ExpressionAttributeValues"] = map[string]attr.Value{":five": attr.Int(5)}
		if req["ConditionExpression"] == "attribute_not_exists(pk)" {
			delete(req, "ExpressionAttributeValues")
		}
	}
	if tbl == "Tab" && g.chance(0.5) {
		req["ReturnItemCollectionMetrics"] = "SIZE"
	}
}

// readOptions adds a Query's or Scan's filter, projection and limit.
func (g *diffGen) readOptions(req map[string]any, values map[string]attr.Value) {
	if g.chance(0.4) {
		req["FilterExpression"] = g.pick("f > :x", "attribute_exists(v)", "begins_with(z, :s) OR f = :x")
		values[":x"], values[":s"] = attr.Int(int64(g.r.IntN(10))), attr.String("s")
		if req["FilterExpression"] == "attribute_exists(v)" {
			delete(values, ":x")
			delete(values, ":s")
		} else if req["FilterExpression"] == "f > :x" {
			delete(values, ":s")
		}
	}
	if g.chance(0.3) {
		req["ProjectionExpression"] = g.pick("f, v", "pk, m.x", "w, l")
	}
	if g.chance(0.3) {
		req["Select"] = "COUNT"
		delete(req, "ProjectionExpression")
	}
	if g.chance(0.5) {
		req["Limit"] = 1 + g.r.IntN(8)
	}
	req["ConsistentRead"] = g.chance(0.5)
	if len(values) > 0 {
		req["ExpressionAttributeValues"] = values
	}
}

func (g *diffGen) query(req map[string]any) map[string]any {
	values := map[string]attr.Value{}
	switch tbl := req["TableName"]; {
	case (tbl == "Tab" || tbl == "Glo") && g.chance(0.3):
		req["IndexName"] = "byG"
		req["KeyConditionExpression"] = "g = :g"
		values[":g"] = attr.String(g.pick("g0", "g1", "g2"))
	case tbl == "Tab" && g.chance(0.4):
		req["IndexName"] = "byL"
		req["KeyConditionExpression"] = g.pick("pk = :p", "pk = :p AND l BETWEEN :a AND :b")
		values[":p"] = g.pk()
		if req["KeyConditionExpression"] != "pk = :p" {
			values[":a"], values[":b"] = attr.Int(10), attr.Int(30)
		}
	case tbl == "Tab":
		req["KeyConditionExpression"] = g.pick("pk = :p", "pk = :p AND sk > :a")
		values[":p"] = g.pk()
		if req["KeyConditionExpression"] != "pk = :p" {
			values[":a"] = attr.Int(int64(g.r.IntN(25)))
		}
	default:
		req["KeyConditionExpression"] = "pk = :p"
		values[":p"] = g.pk()
	}
	req["ScanIndexForward"] = g.chance(0.5)
	g.readOptions(req, values)
	if req["IndexName"] == "byG" {
		delete(req, "ConsistentRead")
	}
	return req
}

func (g *diffGen) scan(req map[string]any) map[string]any {
	switch {
	case req["TableName"] == "Tab" && g.chance(0.3):
		req["IndexName"] = g.pick("byL", "byG")
	case req["TableName"] == "Glo" && g.chance(0.3):
		req["IndexName"] = "byG"
	}
	if g.chance(0.3) {
		req["TotalSegments"] = 3
		req["Segment"] = g.r.IntN(3)
	}
	g.readOptions(req, map[string]attr.Value{})
	if req["IndexName"] == "byG" {
		delete(req, "ConsistentRead")
	}
	return req
}

func (g *diffGen) batchWrite() map[string]any {
	reqs := map[string][]map[string]any{}
	seen := map[string]bool{}
	for range 1 + g.r.IntN(10) {
		tbl := g.pick("Tab", "Pla", "Glo")
		var w map[string]any
		var key attr.Item
		if g.chance(0.75) {
			it := g.item(tbl)
			key = attr.Item{"pk": it["pk"], "sk": it["sk"]}
			w = map[string]any{"PutRequest": map[string]any{"Item": it}}
		} else {
			key = g.key(tbl)
			w = map[string]any{"DeleteRequest": map[string]any{"Key": key}}
		}
		if k := tbl + fmt.Sprint(key); !seen[k] {
			seen[k] = true
			reqs[tbl] = append(reqs[tbl], w)
		}
	}
	return map[string]any{"RequestItems": reqs, "ReturnConsumedCapacity": g.pick("INDEXES", "NONE"),
		"ReturnItemCollectionMetrics": g.pick("SIZE", "NONE")}
}

func (g *diffGen) batchGet() map[string]any {
	reqs := map[string]map[string]any{}
	seen := map[string]bool{}
	for range 1 + g.r.IntN(10) {
		tbl := g.pick("Tab", "Pla", "Glo")
		key := g.key(tbl)
		if k := tbl + fmt.Sprint(key); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		ka := reqs[tbl]
		if ka == nil {
			ka = map[string]any{"ConsistentRead": g.chance(0.5)}
			if g.chance(0.3) {
				ka["ProjectionExpression"] = "pk, f, v"
			}
			reqs[tbl] = ka
		}
		keys, _ := ka["Keys"].([]attr.Item)
		ka["Keys"] = append(keys, key)
	}
	return map[string]any{"RequestItems": reqs, "ReturnConsumedCapacity": g.pick("INDEXES", "TOTAL")}
}

// enc is v's JSON (attr.Item and attr.Value write DynamoDB JSON).
func enc(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
