package table

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestBulkPreparedIsPlain: a bulk load keys, sizes and encodes each item on
// the goroutine that decodes it (bulkPrep), a record of an item alone read
// straight into its storage encoding (prepareEncoded); the plain twin
// (Service.plain) decodes every item into a map and does the rest on the
// goroutine that writes. Both store, index and log the same: for a table
// with a stream, two global indexes (ALL, and INCLUDE) and Time to Live
// (the blind put's path), one with a local index too and one with a vector
// index too (the envelope's path), items there before the load, records
// with conditions that hold and that fail, the same key twice, bad records
// (no key, a condition that does not compile, a key of the wrong type),
// items the one-pass decoder takes and items it leaves to the map (a
// binary), three chunks, decoded on one goroutine (STANDARD) or by a
// chunk's workers (ACCELERATED): every entry of the table's and its
// indexes' spaces and their counters, every change-log record (time, key,
// old and new item), what a search of the vector index finds, the load's
// description (counts, usage, status) and its report objects.
func TestBulkPreparedIsPlain(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	var src strings.Builder
	for i := range 2600 {
		k := (i * 7919) % 2300 // i and i+2300 share a key, in other chunks
		switch {
		case i%97 == 0:
			fmt.Fprintf(&src, `{"Item":{"sk":{"N":"%d"},"v":{"N":"%d"}}}`+"\n", i%5, i) // no pk
		case i%89 == 0:
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"sk":{"N":"1"}},"ConditionExpression":"attribute_exists("}`+"\n", k)
		case i%83 == 0:
			fmt.Fprintf(&src, `{"Item":{"pk":{"N":"%d"},"sk":{"N":"1"}}}`+"\n", k) // pk of the wrong type
		case i%7 == 0: // holds for new keys, fails for those put before the load
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"sk":{"N":"%d"},"g":{"S":"g%d"},"l":{"N":"%d"}},"ConditionExpression":"attribute_not_exists(pk)"}`+"\n", k, k%3, k%11, i)
		case i%5 == 0: // the same key again in the same chunk, the later one winning
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"sk":{"N":"%d"},"v":{"N":"1"}}}`+"\n", k, k%3)
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"sk":{"N":"%d"},"v":{"N":"2"},"ss":{"SS":["a","b%d"]},"b":{"B":"AAEC"},"exp":{"N":"1700000100"}}}`+"\n", k, k%3, i)
		case i%3 == 0: // a vector (an attribute like any other where the table has no vector index)
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"sk":{"N":"%d"},"g":{"S":"g%d"},"e":{"L":[{"N":"1"},{"N":"%d"},{"N":"-0.5"}]},"v":{"N":"3"}}}`+"\n", k, k%3, k%13, i)
		default:
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"sk":{"N":"%d"},"g":{"S":"g%d"},"l":{"N":"%d"},"n":{"N":"12345678901234567890123456789012345678"},"m":{"M":{"x":{"NULL":true},"e":{"S":""}}}}}`+"\n", k, k%3, k%13, i)
		}
	}
	w, _ := st.Create(context.Background(), "src", "in/1.json")
	io.WriteString(w, src.String())
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []bulkCase{{tier: "STANDARD"}, {lsi: true, tier: "STANDARD"}, {tier: "ACCELERATED"}, {vector: true, tier: "STANDARD"}} {
		fast := bulkLoaded(t, st, false, tc)
		plain := bulkLoaded(t, st, true, tc)
		if len(fast) < 2000 || !slices.Equal(fast, plain) {
			i := firstDiff(fast, plain)
			t.Fatalf("%+v: prepared load gave %d lines, plain %d; first difference at %d:\n%s\n%s", tc, len(fast), len(plain), i, at(fast, i), at(plain, i))
		}
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

// bulkLoaded loads src/in/ into table T (pk, sk; a stream of both images,
// Time to Live on exp, global indexes on g (ALL) and on g and sk (INCLUDE
// n and v), with tc.lsi a local one on l, with tc.vector a vector index
// on e (INCLUDE v)), which holds a few items before, in performance tier
// tc.tier (ACCELERATED: decoded by a chunk's workers), on a Service with the fast paths off when plain, and returns
// what the load left, as lines (see TestBulkPreparedIsPlain).
// bulkCase is one table and tier of TestBulkPreparedIsPlain.
type bulkCase struct {
	lsi, vector bool
	tier        string
}

func bulkLoaded(t *testing.T, st bucket.Dir, plain bool, tc bulkCase) []string {
	t.Helper()
	ctx := context.Background()
	const region = "us-east-1"
	if err := os.RemoveAll(filepath.Join(st.Root, "out")); err != nil { // the other twin's report
		t.Fatal(err)
	}
	s, _ := clockService(t, Options{S3: st})
	s.plain = plain
	on := true
	in := &ddb.CreateTableInput{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "N"},
			{AttributeName: "g", AttributeType: "S"}},
		KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "G", KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: &ddb.Projection{ProjectionType: "ALL"}},
			{IndexName: "H", KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
				Projection: &ddb.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"n", "v"}}}},
		StreamSpecification: &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "NEW_AND_OLD_IMAGES"}}
	indexes := []string{"G", "H"}
	if tc.vector {
		dims := int64(3)
		in.VectorIndexes = []ddb.VectorIndex{{IndexName: "E", VectorAttribute: &ddb.VectorAttributeDefinition{AttributeName: "e"},
			Dimensions: &dims, DistanceFunction: "EUCLIDEAN", Projection: &ddb.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"v"}}}}
	}
	if tc.lsi {
		in.AttributeDefinitions = append(in.AttributeDefinitions, ddb.AttributeDefinition{AttributeName: "l", AttributeType: "N"})
		in.LocalSecondaryIndexes = []ddb.LocalSecondaryIndex{{IndexName: "L", KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"},
			{AttributeName: "l", KeyType: "RANGE"}}, Projection: &ddb.Projection{ProjectionType: "KEYS_ONLY"}}}
		indexes = append(indexes, "L")
	}
	if _, err := s.CreateTable(ctx, region, in); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateTimeToLive(ctx, region, &ddb.UpdateTimeToLiveInput{TableName: "T",
		TimeToLiveSpecification: &ddb.TimeToLiveSpecification{AttributeName: "exp", Enabled: &on}}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 2300; k += 9 { // items the load replaces, or whose condition fails
		item := attr.Item{"pk": sv(fmt.Sprintf("k%d", k)), "sk": nv(fmt.Sprint(k % 3)), "g": sv("before"), "v": nv("0")}
		if _, err := s.PutItem(ctx, region, &ddb.PutItemInput{TableName: "T", Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := s.StartBulkPutItems(ctx, region, &ddb.StartBulkPutItemsInput{TableName: "T",
		InputS3Configuration:  &ddb.InputS3Configuration{S3Bucket: "src", S3KeyPrefix: "in/", InputFormat: "DYNAMODB_JSON"},
		OutputS3Configuration: &ddb.OutputS3Configuration{S3Bucket: "out", OutputType: []string{"ERROR", "CONDITION_CHECK_FAILURE"}},
		PerformanceTier:       tc.tier})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BulkOperationDescription.BulkOperationArn
	var d ddb.BulkOperationDescription
	waitFor(t, func() bool {
		o, err := s.DescribeBulkOperation(ctx, region, &ddb.DescribeBulkOperationInput{BulkOperationArn: arn})
		d = o.BulkOperationDescription
		return err == nil && d.BulkOperationStatus != "IN_PROGRESS"
	})
	if err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	lines := []string{fmt.Sprintf("status %s processed %d failed %d bytes %v usage %s", d.BulkOperationStatus, d.ProcessedItemCount,
		d.FailedItemCount, *d.ProcessedInputBytes, mustJSON(t, d.BulkOperationUsage))}
	lines = append(lines, storedLines(t, s, region, indexes)...)
	if tc.vector {
		lines = append(lines, vectorLines(t, s, region)...)
	}
	return append(lines, reportLines(t, st)...)
}

// storedLines are T's entries and those of its indexes, their counters,
// and T's change-log records, items in canonical form.
func storedLines(t *testing.T, s *Service, region string, indexes []string) []string {
	t.Helper()
	m, err := s.catalog.get(s.db, region, "T")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = s.db.View(func(tx *store.Tx) error {
		for _, id := range append([]string{m.ID}, mapIDs(m, indexes)...) {
			sp := tx.Space(id)
			items, size := sp.Stats()
			lines = append(lines, fmt.Sprintf("%s counters %d %d", id[len(m.ID):], items, size))
			sp.Ascend(nil, nil, func(k, v []byte) bool {
				lines = append(lines, fmt.Sprintf("%s %x %s", id[len(m.ID):], k, canonical(v, id != m.ID)))
				return true
			})
		}
		return tx.Space(m.ID).AscendLog(0, func(seq uint64, raw []byte) bool {
			rec, err := changelog.Decode(raw)
			lines = append(lines, fmt.Sprintf("log %d %v time %d key %x old %s new %s expired %v", seq, err, rec.Time, rec.Key,
				canonicalOrNil(rec.Old), canonicalOrNil(rec.New), rec.Expired))
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// vectorLines are the nearest items a search of T's vector index E finds,
// with their distances, and the index's description.
func vectorLines(t *testing.T, s *Service, region string) []string {
	t.Helper()
	k := int32(40)
	found, err := s.SearchVectors(context.Background(), region, &ddb.SearchVectorsInput{TableName: "T", IndexName: "E", TopK: &k,
		SearchVector: []attr.Value{nv("1"), nv("1000"), nv("0")}})
	if err != nil || len(found.SearchResults) < 20 {
		t.Fatalf("search of the vector index: %v, %d results", err, len(found.SearchResults))
	}
	desc, err := s.DescribeTable(context.Background(), region, &ddb.TableNameInput{TableName: "T"})
	if err != nil {
		t.Fatal(err)
	}
	vx := desc.Table.VectorIndexes[0]
	vx.IndexArn = "" // the table's id differs
	return []string{"search " + mustJSON(t, found.SearchResults), "vector index " + mustJSON(t, vx)}
}

func mapIDs(m *tableMeta, indexes []string) []string {
	out := make([]string, len(indexes))
	for i, name := range indexes {
		out[i] = indexSpaceID(m, name)
	}
	return out
}

func canonicalOrNil(v []byte) string {
	if v == nil {
		return "nil"
	}
	return canonical(v, false)
}

// reportLines are the load's report objects in the out bucket, by name.
func reportLines(t *testing.T, st bucket.Dir) []string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	err := st.List(ctx, "out", "", func(o bucket.Object) error {
		r, err := st.Open(ctx, "out", o.Key)
		if err != nil {
			return err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		_, name, _ := strings.Cut(o.Key, "/") // without the load's id, random
		lines = append(lines, "report "+name)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			lines = append(lines, canonicalReportLine(t, l))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// canonicalReportLine is a report's JSON line with its objects' members
// in name order (an item's follow its map's order).
func canonicalReportLine(t *testing.T, line string) string {
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("report line %q: %v", line, err)
	}
	return mustJSON(t, v)
}

// BenchmarkBulkPrepared loads 100,000 items of ~100 bytes (in 4 gzip
// objects, as BenchmarkBulkLoad's) into an empty in-memory table, prepared
// on the decoding goroutine ("prepared") or by the plain twin ("plain"),
// and reports the process's CPU per item, which the machine's other work
// does not inflate as it does wall time:
//
//	go test ./table -run '^$' -bench BenchmarkBulkPrepared -count 5
func BenchmarkBulkPrepared(b *testing.B) {
	const n = 100000
	st := bucket.Dir{Root: b.TempDir()}
	for f := range 4 {
		w, _ := st.Create(context.Background(), "src", fmt.Sprintf("in/%d.gz", f))
		zw := gzip.NewWriter(w)
		for i := f; i < n; i += 4 {
			fmt.Fprintf(zw, `{"Item":{"pk":{"S":"user-%09d"},"n":{"N":"%d"},"name":{"S":"some name %d"},"tags":{"SS":["a","b%d"]},"ok":{"BOOL":true}}}`+"\n", i, i*7, i, i%13)
		}
		zw.Close()
		if _, err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	for _, plain := range []bool{false, true} {
		b.Run(map[bool]string{false: "prepared", true: "plain"}[plain], func(b *testing.B) {
			var cpu time.Duration
			for range b.N {
				s := memService(b, Options{S3: st})
				s.plain = plain
				if _, err := s.CreateTable(context.Background(), "r", &ddb.CreateTableInput{TableName: "T", BillingMode: "PAY_PER_REQUEST",
					AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
					KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}); err != nil {
					b.Fatal(err)
				}
				start := cpuTime(b)
				bulkLoadAll(b, s, n)
				cpu += cpuTime(b) - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/item")
		})
	}
}

// bulkLoadAll loads src/in/ into T and waits until n items are in.
func bulkLoadAll(b *testing.B, s *Service, n int) {
	ctx := context.Background()
	out, err := s.StartBulkPutItems(ctx, "r", &ddb.StartBulkPutItemsInput{TableName: "T",
		InputS3Configuration:  &ddb.InputS3Configuration{S3Bucket: "src", S3KeyPrefix: "in/", InputFormat: "DYNAMODB_JSON", InputCompressionType: "GZIP"},
		OutputS3Configuration: &ddb.OutputS3Configuration{OutputType: []string{"ERROR"}}})
	if err != nil {
		b.Fatal(err)
	}
	for {
		o, err := s.DescribeBulkOperation(ctx, "r", &ddb.DescribeBulkOperationInput{BulkOperationArn: out.BulkOperationDescription.BulkOperationArn})
		if err != nil {
			b.Fatal(err)
		}
		if d := o.BulkOperationDescription; d.BulkOperationStatus != "IN_PROGRESS" {
			if d.ProcessedItemCount != int64(n) || d.BulkOperationStatus != "COMPLETED" {
				b.Fatalf("%s after %d items, want COMPLETED after %d", d.BulkOperationStatus, d.ProcessedItemCount, n)
			}
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
