package table

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestImportVectorsMatchesPlain: a table with a vector index is built whole
// too (no change-log record), its index built from the data installed, and
// answers as the plain twin's, imported item by item with the index
// following the change log: the same table bytes and counters, the same
// import counts (an item whose vector has the wrong dimensions is a bad
// record either way), the same DescribeTable report of the index (status,
// item count, size) and the same SearchVectors results, scores and all.
func TestImportVectorsMatchesPlain(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	var src strings.Builder
	for i := range 1500 {
		k := (i * 7919) % 1300 // some keys twice, the later record winning
		v := ""
		switch {
		case i%97 == 0: // the wrong dimensions: a bad record
			v = `,"v":{"L":[{"N":"1"},{"N":"2"}]}`
		case i%10 != 0: // else no vector: not in the index
			v = fmt.Sprintf(`,"v":{"L":[{"N":"%d"},{"N":"-%d.5"},{"N":"0.%d"}]}`, i%17+1, i%5, i)
		}
		fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"g":{"S":"g%d"}%s}}`+"\n", k, k%3, v)
	}
	w, _ := st.Create(context.Background(), "src", "in/1.json")
	io.WriteString(w, src.String())
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	fast, plain := importedVectors(t, st, false), importedVectors(t, st, true)
	if fast.logged != 0 || plain.logged == 0 {
		t.Fatalf("change-log records: fast path %d (want none: built whole), plain %d (want one a put)", fast.logged, plain.logged)
	}
	if len(fast.lines) < 1000 || !slices.Equal(fast.lines, plain.lines) {
		i := firstDiff(fast.lines, plain.lines)
		t.Fatalf("table: fast %d entries, plain %d; first difference at %d", len(fast.lines), len(plain.lines), i)
	}
	for _, c := range []struct{ what, fast, plain string }{
		{"import", fast.counts, plain.counts}, {"DescribeTable", fast.desc, plain.desc}, {"SearchVectors", fast.search, plain.search}} {
		if c.fast != c.plain {
			t.Errorf("%s:\nfast:  %s\nplain: %s", c.what, c.fast, c.plain)
		}
	}
	if !strings.Contains(fast.desc, `"IndexStatus":"ACTIVE"`) || strings.Contains(fast.desc, `"ItemCount":0`) || strings.Count(fast.search, `"pk"`) != 25 {
		t.Errorf("the index is not what was imported: %s, %s", fast.desc, fast.search)
	}
}

// vectorImport is what importedVectors saw of one import.
type vectorImport struct {
	lines                []string // the table's space, as importedBytes shows it
	counts, desc, search string   // JSON of the import's counts, the index's description, a search's results
	logged               uint64   // the table's last change-log record
}

// importedVectors imports src/in/ into a new table with a vector index on
// v (3 dimensions, partitioned by g) and returns what it holds and
// answers.
func importedVectors(t *testing.T, st bucket.Store, plain bool) vectorImport {
	t.Helper()
	ctx := context.Background()
	const region = "us-east-1"
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db, Options{S3: st})
	defer s.Close()
	s.plain = plain
	dims := int64(3)
	params := &ddb.TableCreationParameters{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		VectorIndexes: []ddb.VectorIndex{{IndexName: "emb", VectorAttribute: &ddb.VectorAttributeDefinition{AttributeName: "v"},
			Dimensions: &dims, DistanceFunction: "EUCLIDEAN", Projection: &ddb.Projection{ProjectionType: "ALL"}}}}
	out, err := s.ImportTable(ctx, region, &ddb.ImportTableInput{InputFormat: "DYNAMODB_JSON",
		S3BucketSource: &ddb.S3BucketSource{S3Bucket: "src", S3KeyPrefix: "in/"}, TableCreationParameters: params})
	if err != nil {
		t.Fatal(err)
	}
	var d ddb.ImportTableDescription
	waitFor(t, func() bool {
		got, err := s.DescribeImport(ctx, region, &ddb.DescribeImportInput{ImportArn: out.ImportTableDescription.ImportArn})
		d = got.ImportTableDescription
		return err == nil && d.ImportStatus != "IN_PROGRESS"
	})
	if err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	var res vectorImport
	res.counts = mustJSON(t, []any{d.ImportStatus, d.ProcessedItemCount, d.ImportedItemCount, d.ErrorCount})
	k := int32(25)
	found, err := s.SearchVectors(ctx, region, &ddb.SearchVectorsInput{TableName: "T", IndexName: "emb", TopK: &k,
		SearchVector: []attr.Value{{T: attr.TypeN, S: "3"}, {T: attr.TypeN, S: "-1"}, {T: attr.TypeN, S: "0.5"}}})
	if err != nil {
		t.Fatal(err)
	}
	res.search = mustJSON(t, found.SearchResults)
	desc, err := s.DescribeTable(ctx, region, &ddb.TableNameInput{TableName: "T"})
	if err != nil {
		t.Fatal(err)
	}
	vx := desc.Table.VectorIndexes[0]
	vx.IndexArn = "" // the table's id differs
	res.desc = mustJSON(t, vx)
	m, err := s.catalog.get(db, region, "T")
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		res.logged = sp.LastLogSeq()
		items, size := sp.Stats()
		res.lines = append(res.lines, fmt.Sprintf("counters %d %d", items, size))
		sp.Ascend(nil, nil, func(k, v []byte) bool {
			res.lines = append(res.lines, fmt.Sprintf("%x %s", k, canonical(v, false)))
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
