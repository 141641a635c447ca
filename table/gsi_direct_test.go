package table

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// directTable creates table "A" (pk HASH, sk RANGE) with three global
// indexes, one per projection, and a NEW_AND_OLD_IMAGES stream when
// stream is set.
func directTable(t *testing.T, s *Service, stream bool) {
	t.Helper()
	ks := func(h, r string) []ddb.KeySchemaElement {
		out := []ddb.KeySchemaElement{{AttributeName: h, KeyType: "HASH"}}
		if r != "" {
			out = append(out, ddb.KeySchemaElement{AttributeName: r, KeyType: "RANGE"})
		}
		return out
	}
	in := &ddb.CreateTableInput{TableName: "A", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"},
			{AttributeName: "g", AttributeType: "S"}, {AttributeName: "h", AttributeType: "N"}},
		KeySchema: ks("pk", "sk"),
		GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{
			{IndexName: "all", KeySchema: ks("g", "sk"), Projection: &ddb.Projection{ProjectionType: "ALL"}},
			{IndexName: "keys", KeySchema: ks("h", ""), Projection: &ddb.Projection{ProjectionType: "KEYS_ONLY"}},
			{IndexName: "inc", KeySchema: ks("g", "h"), Projection: &ddb.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"v"}}}}}
	if stream {
		on := true
		in.StreamSpecification = &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "NEW_AND_OLD_IMAGES"}
	}
	if _, err := s.CreateTable(context.Background(), "r", in); err != nil {
		t.Fatal(err)
	}
}

// directWrites are writes that put items into, move them between, keep
// them in and take them out of directTable's indexes, through every write
// operation.
func directWrites(t *testing.T, s *Service) {
	t.Helper()
	ctx := context.Background()
	key := func(pk, sk string) attr.Item { return attr.Item{"pk": sv(pk), "sk": sv(sk)} }
	with := func(it attr.Item, kv ...any) attr.Item {
		out := attr.Item{}
		for k, v := range it {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(attr.Value)
		}
		return out
	}
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for i := range 12 {
		it := with(key(fmt.Sprint("p", i%5), fmt.Sprint("s", i)), "v", sv("value"), "w", attr.Int(int64(i)))
		if i%3 != 0 {
			it["g"] = sv(fmt.Sprint("g", i%4))
		}
		if i%2 == 0 {
			it["h"] = attr.Int(int64(i % 3))
		}
		_, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: it})
		check("PutItem", err)
	}
	_, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: with(key("p1", "s1"), "g", sv("g1"), "v", sv("value"), "w", attr.Int(1))})
	check("PutItem, the same item again", err)
	for _, u := range []struct {
		expr   string
		values ddb.ExprParams
	}{
		{"SET g = :g", values(":g", sv("moved"))}, {"SET w = :h", values(":h", attr.Int(7))}, {"REMOVE g", ddb.ExprParams{}},
		{"SET h = :h, g = :g", values(":g", sv("back"), ":h", attr.Int(7))}, {"REMOVE h", ddb.ExprParams{}}, {"SET v = :g", values(":g", sv("v2"))},
	} {
		_, err := s.UpdateItem(ctx, "r", &ddb.UpdateItemInput{TableName: "A", Key: key("p2", "s2"), UpdateExpression: ptr(u.expr),
			WriteParams: ddb.WriteParams{ExprParams: u.values}})
		check("UpdateItem "+u.expr, err)
	}
	_, err = s.DeleteItem(ctx, "r", &ddb.DeleteItemInput{TableName: "A", Key: key("p4", "s4")})
	check("DeleteItem", err)
	_, err = s.DeleteItem(ctx, "r", &ddb.DeleteItemInput{TableName: "A", Key: key("nobody", "s")})
	check("DeleteItem of an absent item", err)
	_, err = s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"A": {
		{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(with(key("b", "1"), "g", sv("g1"), "h", attr.Int(1), "v", sv("b")))}},
		{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(with(key("p5", "s5"), "g", sv("g9")))}},
		{DeleteRequest: &ddb.DeleteRequest{Key: key("p0", "s10")}}}}})
	check("BatchWriteItem", err)
	_, err = s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{TransactItems: []ddb.TransactWriteItem{
		{Put: &ddb.TransactPut{TableName: "A", Item: with(key("t", "1"), "g", sv("g2"), "h", attr.Int(2))}},
		{Update: &ddb.TransactUpdate{TableName: "A", Key: key("p1", "s6"), UpdateExpression: ptr("SET g = :g"), ExprParams: values(":g", sv("tx"))}},
		{Delete: &ddb.TransactDelete{TableName: "A", Key: key("p3", "s8")}}}})
	check("TransactWriteItems", err)
	check("Settle", s.Settle(ctx))
}

// directState is what a write leaves in table "A"'s global indexes and
// change log: each index's entries (key, decoded item), counters and
// watermark, and the log's last sequence.
type directState struct {
	entries  map[string][]directEntry
	counters map[string][2]int64
	wms      map[string]uint64
	lastSeq  uint64
}

// directEntry is one index entry: its key, projected size and item.
type directEntry struct {
	key  []byte
	size int
	item attr.Item
}

func (e directEntry) equal(o directEntry) bool {
	return bytes.Equal(e.key, o.key) && e.size == o.size && attr.Equal(attr.Map(e.item), attr.Map(o.item))
}

func directStateOf(t *testing.T, s *Service) directState {
	t.Helper()
	m, err := s.table(context.Background(), "r", "A")
	if err != nil {
		t.Fatal(err)
	}
	st := directState{entries: map[string][]directEntry{}, counters: map[string][2]int64{}, wms: map[string]uint64{}}
	if err := s.db.View(func(tx *store.Tx) error {
		st.lastSeq = tx.Space(m.ID).LastLogSeq()
		for _, d := range m.gsis {
			sp := tx.Space(indexSpaceID(m, d.Name))
			items, size := sp.Stats()
			st.counters[d.Name] = [2]int64{items, size}
			st.wms[d.Name], _ = gsi.Watermark(tx, m.ID, d.Name)
			sp.Ascend(nil, nil, func(k, v []byte) bool {
				size, n, err := index.SplitEntry(v)
				if err != nil {
					t.Fatalf("%s entry %x: %v", d.Name, k, err)
				}
				it, err := attr.DecodeBinary(v[n:])
				if err != nil {
					t.Fatalf("%s entry %x: %v", d.Name, k, err)
				}
				st.entries[d.Name] = append(st.entries[d.Name], directEntry{bytes.Clone(k), size, it})
				return true
			})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestDirectMatchesApplier: the writes of directWrites leave the same index
// entries and counters when each write changes the indexes itself (direct)
// as when the applier applies their change-log records (the plain twin);
// direct, a table without a stream appends no record and one with a stream
// the same records, the watermarks at its last.
func TestDirectMatchesApplier(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			fast, plain := memService(t, Options{}), memService(t, Options{})
			plain.plain = true
			var got, want directState
			for _, s := range []*Service{fast, plain} {
				directTable(t, s, stream)
				directWrites(t, s)
			}
			got, want = directStateOf(t, fast), directStateOf(t, plain)
			for name, es := range want.entries {
				if len(es) == 0 {
					t.Errorf("index %s is empty: the writes test nothing", name)
				}
				if len(got.entries[name]) != len(es) {
					t.Errorf("index %s: direct %d entries, applier %d", name, len(got.entries[name]), len(es))
				}
				for i := range min(len(es), len(got.entries[name])) {
					if g := got.entries[name][i]; !g.equal(es[i]) {
						t.Errorf("index %s entry %d: direct %x %d %v, applier %x %d %v", name, i, g.key, g.size, g.item, es[i].key, es[i].size, es[i].item)
					}
				}
				if got.counters[name] != want.counters[name] {
					t.Errorf("index %s counters: direct %v, applier %v", name, got.counters[name], want.counters[name])
				}
				if got.wms[name] != got.lastSeq {
					t.Errorf("index %s watermark %d, last log record %d", name, got.wms[name], got.lastSeq)
				}
			}
			if want.lastSeq == 0 {
				t.Fatal("the applier's twin logged nothing")
			}
			if wantSeq := map[bool]uint64{false: 0, true: want.lastSeq}[stream]; got.lastSeq != wantSeq {
				t.Errorf("direct: last log record %d, want %d", got.lastSeq, wantSeq)
			}
		})
	}
}

// TestDirectEntryIsStoredItem: an index projecting every attribute stores
// the item's stored bytes after its size as its entry, the form the
// applier's twin stores from the record (gsi.storedDiff), where the other
// projections encode their projected item.
func TestDirectEntryIsStoredItem(t *testing.T) {
	ctx := context.Background()
	s := memService(t, Options{})
	directTable(t, s, false)
	it := attr.Item{"pk": sv("a"), "sk": sv("b"), "g": sv("c"), "v": sv("d"), "n": attr.Int(5)}
	if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: it}); err != nil {
		t.Fatal(err)
	}
	m, err := s.table(ctx, "r", "A")
	if err != nil {
		t.Fatal(err)
	}
	key, err := m.itemKey(it)
	if err != nil {
		t.Fatal(err)
	}
	var entry, stored []byte
	if err := s.db.View(func(tx *store.Tx) error {
		stored = bytes.Clone(tx.Space(m.ID).Get(key))
		return tx.Space(indexSpaceID(m, "all")).Ascend(nil, nil, func(_, v []byte) bool {
			entry = bytes.Clone(v)
			return false
		})
	}); err != nil {
		t.Fatal(err)
	}
	want := append(binary.AppendUvarint(nil, uint64(it.Size())), stored...)
	if stored == nil || !bytes.Equal(entry, want) {
		t.Errorf("entry %x, want %x (size, then the stored item)", entry, want)
	}
}

// TestGSISpacesDerived: the index spaces a direct write opens (derive's
// gsiSpaces, built once) are indexSpaceID's for every global index, after
// CreateTable and after UpdateTable adds and deletes one; a wrong one
// would not fail a write (gsi.Direct finds no space and the write takes
// the applier's path), so it is checked here.
func TestGSISpacesDerived(t *testing.T) {
	ctx := context.Background()
	s := memService(t, Options{})
	directTable(t, s, false)
	check := func(step string, want int) {
		t.Helper()
		m, err := s.table(ctx, "r", "A")
		if err != nil {
			t.Fatal(err)
		}
		if len(m.gsis) != want || len(m.gsiSpaces) != want {
			t.Fatalf("%s: %d indexes, %d spaces; want %d", step, len(m.gsis), len(m.gsiSpaces), want)
		}
		for i, d := range m.gsis {
			if got := m.gsiSpace(d.Name); got != m.gsiSpaces[i] || got != indexSpaceID(m, d.Name) {
				t.Errorf("%s: space of %s = %q (gsiSpaces %q), want %q", step, d.Name, got, m.gsiSpaces[i], indexSpaceID(m, d.Name))
			}
		}
	}
	check("created", 3)
	_, err := s.UpdateTable(ctx, "r", &ddb.UpdateTableInput{TableName: "A",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "h", AttributeType: "N"}},
		GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{{Create: &ddb.GlobalSecondaryIndex{
			IndexName: "added", KeySchema: []ddb.KeySchemaElement{{AttributeName: "h", KeyType: "HASH"}},
			Projection: &ddb.Projection{ProjectionType: "ALL"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	check("one added", 4)
	del := ddb.GlobalSecondaryIndexUpdate{}
	del.Delete = &struct {
		IndexName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	}{IndexName: "keys"}
	_, err = s.UpdateTable(ctx, "r", &ddb.UpdateTableInput{TableName: "A", GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{del}})
	if err != nil {
		t.Fatal(err)
	}
	check("one deleted", 3)
}
