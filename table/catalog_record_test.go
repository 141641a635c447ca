package table

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// loadCatalogFixture decodes each line of a catalog fixture and checks that
// encoding it again gives the same bytes: the file format did not move.
func loadCatalogFixture(t *testing.T, name string) []*tableMeta {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var metas []*tableMeta
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		m, err := decodeMeta(line)
		if err != nil {
			t.Fatalf("decodeMeta(%s): %v", line, err)
		}
		again, err := encodeMeta(m)
		if err != nil || !bytes.Equal(again, line) {
			t.Errorf("encodeMeta(decodeMeta(x)):\n got %s, %v\nwant %s", again, err, line)
		}
		metas = append(metas, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return metas
}

// TestCatalogFixtureLoads loads catalog records written before the catalog
// had a record type of its own, and checks what they decode to:
// testdata/catalog-2026-12.jsonl sets every stored field at least once;
// catalog-server-2026-12.jsonl holds the records a server of that time
// wrote for two tables created through the API (copied out of its file).
func TestCatalogFixtureLoads(t *testing.T) {
	server := loadCatalogFixture(t, "testdata/catalog-server-2026-12.jsonl")
	if len(server) != 2 || server[0].Name != "Orders" || len(server[0].gsis) != 1 || server[0].TTLAttribute != "expires" ||
		server[1].Name != "Plain" || *server[1].OnDemandThroughput.MaxReadRequestUnits != 100 {
		t.Errorf("server records: got %+v", server)
	}
	metas := loadCatalogFixture(t, "testdata/catalog-2026-12.jsonl")
	if len(metas) != 3 {
		t.Fatalf("got %d records, want 3", len(metas))
	}
	o := metas[0]
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"name", o.Region + "/" + o.Name, "us-east-1/Orders"},
		{"schema", o.schema, keySchema{PK: "pk", SK: "sk", PKType: attr.TypeS, SKType: attr.TypeN}},
		{"lsi", o.lsis[0].Name + "/" + o.lsis[0].ProjectionType, "byD/INCLUDE"},
		{"lsi non-key", o.LocalSecondaryIndexes[0].Projection.NonKeyAttributes, []string{"x", "y"}},
		{"gsi", o.gsis[0].Partition[0].Name, "c"},
		{"gsi capacity", [2]int64{o.GlobalSecondaryIndexes[0].ReadCapacity, o.GlobalSecondaryIndexes[0].WriteCapacity}, [2]int64{5, 7}},
		{"stream", o.Stream.StreamViewType + " " + o.StreamLabel, "NEW_AND_OLD_IMAGES 2023-11-14T22:13:20.123"},
		{"sse", *o.SSE.Enabled && o.SSE.KMSMasterKeyId == "alias/k", true},
		{"deleting", [2]any{o.DeletingIndexes[0].Name, o.DeletingIndexes[0].Until}, [2]any{"old", int64(1700000102000000000)}},
		{"tags", o.Tags, []ddb.Tag{{Key: "ddblocal:eventual-lag", Value: "750ms"}, {Key: "team", Value: ""}}},
		{"ttl, protection, class", [3]any{o.TTLAttribute, o.DeletionProtection, o.TableClass}, [3]any{"expires", true, "STANDARD_INFREQUENT_ACCESS"}},
		{"on demand", [2]int64{*metas[1].OnDemandThroughput.MaxReadRequestUnits, *metas[1].OnDemandThroughput.MaxWriteRequestUnits}, [2]int64{100, -1}},
		{"bare", [3]any{metas[2].OnDemandThroughput == nil, metas[2].lsis == nil, metas[2].Tags == nil}, [3]any{true, true, true}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestCatalogRecordCoversMeta checks that every stored (exported) field of
// tableMeta and indexMeta has a member of the same name in the catalog
// record: a field added to one and not the other would be silently lost on
// restart.
func TestCatalogRecordCoversMeta(t *testing.T) {
	for _, c := range []struct{ meta, record reflect.Type }{
		{reflect.TypeFor[tableMeta](), reflect.TypeFor[catalogRecord]()},
		{reflect.TypeFor[indexMeta](), reflect.TypeFor[recordIndex]()},
	} {
		for i := range c.meta.NumField() {
			f := c.meta.Field(i)
			if !f.IsExported() {
				continue
			}
			if _, ok := c.record.FieldByName(f.Name); !ok {
				t.Errorf("%s.%s is not stored: add a member to %s (table/catalog_record.go) and to encodeMeta and decodeMeta", c.meta.Name(), f.Name, c.record.Name())
			}
		}
		for i := range c.record.NumField() {
			f := c.record.Field(i)
			if _, ok := c.meta.FieldByName(f.Name); !ok {
				t.Errorf("%s.%s stores nothing: %s has no field %s", c.record.Name(), f.Name, c.meta.Name(), f.Name)
			}
		}
	}
}

// TestCatalogRoundTrip checks that a definition made through CreateTable
// reads back from the store as it was written.
func TestCatalogRoundTrip(t *testing.T) {
	s, _ := txService(t)
	m, err := s.table(context.Background(), "r", "A")
	if err != nil || m == nil {
		t.Fatalf("table A: %v, %v", m, err)
	}
	b, err := encodeMeta(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	got.collectionLimit = m.collectionLimit
	if !reflect.DeepEqual(got, m) {
		t.Errorf("decodeMeta(encodeMeta(m)):\n got %+v\nwant %+v", got, m)
	}
}
