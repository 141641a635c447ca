package table

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/ddb"
	gsiindex "github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestImportSortedMatchesPlain: an import builds the table whole (its fast
// path); with the fast paths off (Service.plain) it puts the items in the
// order read. Both store the same bytes: every entry of the table's space
// and of its global indexes', and the same counters, for a
// source of three chunks whose keys come in no order, some twice in one
// chunk and some in two (the later record wins either way). The change
// log's records, which only the index applier reads here, come in the
// order put, so they are not compared.
func TestImportSortedMatchesPlain(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	var src strings.Builder
	for i := range 2500 {
		k := (i * 7919) % 2200 // i and i+2200 share a key, in other chunks
		x := ""                // an attribute only an INCLUDE index projects, on some items
		if i%3 == 0 {
			x = fmt.Sprintf(`,"x":{"SS":["x%d","y"]},"z":{"BOOL":true}`, i)
		}
		fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"g":{"S":"g%d"},"v":{"N":"%d"}%s}}`+"\n", k, k%13, i, x)
		if i%100 == 0 { // the same key again at once, in the same chunk
			fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"v":{"N":"-%d"}}}`+"\n", k, i)
		}
	}
	w, _ := st.Create(context.Background(), "src", "in/1.json")
	io.WriteString(w, src.String())
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, gsi := range []bool{true, false} {
		fast, _ := importedBytes(t, st, false, gsi, 0)
		plain, _ := importedBytes(t, st, true, gsi, 0)
		if len(fast) < 2200 || !slices.Equal(fast, plain) {
			i := firstDiff(fast, plain)
			t.Fatalf("gsi %v: import stored %d entries, plain %d; first difference at %d:\n%s\n%s", gsi, len(fast), len(plain), i, fast[i], plain[i])
		}
	}
}

// TestImportLaggingMatchesPlain: a table whose reads and indexes lag
// (Options.EventualLag) is built whole by an import too, writing no
// change-log record, and stores what the plain twin stores item by item
// with the lag's change log, once that has settled: the same entries of
// the table and its global indexes, and the same counters.
func TestImportLaggingMatchesPlain(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	var src strings.Builder
	for i := range 1200 {
		k := (i * 7919) % 1000 // some keys twice, the later record winning
		fmt.Fprintf(&src, `{"Item":{"pk":{"S":"k%d"},"g":{"S":"g%d"},"v":{"N":"%d"}}}`+"\n", k, k%13, i)
	}
	w, _ := st.Create(context.Background(), "src", "in/1.json")
	io.WriteString(w, src.String())
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, gsi := range []bool{true, false} {
		fast, fastLogged := importedBytes(t, st, false, gsi, time.Hour)
		plain, plainLogged := importedBytes(t, st, true, gsi, time.Hour)
		if fastLogged != 0 || plainLogged == 0 {
			t.Errorf("gsi %v: change-log records: fast path %d (want none: built whole), plain %d (want one a put)", gsi, fastLogged, plainLogged)
		}
		if len(fast) < 1000 || !slices.Equal(fast, plain) {
			i := firstDiff(fast, plain)
			t.Fatalf("gsi %v: import stored %d entries, plain %d; first difference at %d", gsi, len(fast), len(plain), i)
		}
	}
}

// The fast import builds the table, and its global indexes, whole
// (transfer_import_bulk.go) and the plain twin writes it item by item,
// the index applier following: TestImportSortedMatchesPlain shows they
// store the same.

// importedBytes imports src/in/ into a new table, with global indexes on
// g (ALL), on g, v (KEYS_ONLY) and on v (INCLUDE g and x) when gsi is
// set, on a server whose reads and indexes lag by lag, and returns what
// the store holds for it once settled: each entry of the table's and the
// indexes' spaces, and their counters, as lines; and the table's last
// change-log record.
func importedBytes(t *testing.T, st bucket.Store, plain, gsi bool, lag time.Duration) (lines []string, logged uint64) {
	t.Helper()
	ctx := context.Background()
	const region = "us-east-1"
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db, Options{S3: st, EventualLag: consistency.Lag{Min: lag, Max: lag}})
	defer s.Close()
	s.plain = plain
	params := &ddb.TableCreationParameters{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}
	spaces := []func(*tableMeta) string{func(m *tableMeta) string { return m.ID }}
	if gsi {
		params.AttributeDefinitions = append(params.AttributeDefinitions, ddb.AttributeDefinition{AttributeName: "g", AttributeType: "S"},
			ddb.AttributeDefinition{AttributeName: "v", AttributeType: "N"})
		params.GlobalSecondaryIndexes = []ddb.GlobalSecondaryIndex{{IndexName: "G", KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: &ddb.Projection{ProjectionType: "ALL"}},
			{IndexName: "V", KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}, {AttributeName: "v", KeyType: "RANGE"}},
				Projection: &ddb.Projection{ProjectionType: "KEYS_ONLY"}},
			{IndexName: "I", KeySchema: []ddb.KeySchemaElement{{AttributeName: "v", KeyType: "HASH"}},
				Projection: &ddb.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"g", "x"}}}}
		spaces = append(spaces, func(m *tableMeta) string { return indexSpaceID(m, "G") }, func(m *tableMeta) string { return indexSpaceID(m, "V") },
			func(m *tableMeta) string { return indexSpaceID(m, "I") })
	}
	out, err := s.ImportTable(ctx, region, &ddb.ImportTableInput{InputFormat: "DYNAMODB_JSON",
		S3BucketSource: &ddb.S3BucketSource{S3Bucket: "src", S3KeyPrefix: "in/"}, TableCreationParameters: params})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		d, err := s.DescribeImport(ctx, region, &ddb.DescribeImportInput{ImportArn: out.ImportTableDescription.ImportArn})
		return err == nil && d.ImportTableDescription.ImportStatus != "IN_PROGRESS"
	})
	if err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := s.catalog.get(db, region, "T")
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		logged = tx.Space(m.ID).LastLogSeq()
		for _, space := range spaces {
			id := space(m)
			sp := tx.Space(id)
			items, size := sp.Stats()
			lines = append(lines, fmt.Sprintf("%s counters %d %d", id[len(m.ID):], items, size))
			sp.Ascend(nil, nil, func(k, v []byte) bool {
				lines = append(lines, fmt.Sprintf("%s %x %s", id[len(m.ID):], k, canonical(v, id != m.ID)))
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, logged
}

// canonical is a stored item, or an index entry (index: the size it
// records, then its item), with its attributes in name order: an item's
// encoding follows the map's order, which varies from run to run.
func canonical(v []byte, index bool) string {
	decode := attr.DecodeBinary
	prefix := ""
	if index {
		decode = gsiindex.DecodeEntry
		n, err := gsiindex.EntrySize(v)
		prefix = fmt.Sprintf("size %d (%v) ", n, err)
	}
	it, err := decode(v)
	if err != nil {
		return fmt.Sprintf("undecodable %x: %v", v, err)
	}
	return prefix + string(attr.AppendItemJSON(nil, it))
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
