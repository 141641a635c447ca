package table

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// envelopeService returns a Service with opts on a clock that stands still,
// and creates, for each of names, a table with hash key pk S and range key
// sk S (tags, when not nil, are given to every table).
func envelopeService(t *testing.T, opts Options, tags []ddb.Tag, names ...string) *Service {
	t.Helper()
	s, _ := clockService(t, opts)
	for _, name := range names {
		envelopeTable(t, s, name, tags)
	}
	return s
}

func pkSK(pk, sk string) attr.Item { return attr.Item{"pk": sv(pk), "sk": sv(sk)} }

// loadCounter counts, by table and key, the old items writes read and
// decode (Service.loadSeam). The seam runs on the store's committer.
type loadCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func countLoads(s *Service) *loadCounter {
	c := &loadCounter{n: map[string]int{}}
	s.loadSeam = func(mu *mutation) {
		c.mu.Lock()
		c.n[mu.meta.Name+"/"+string(mu.key)]++
		c.mu.Unlock()
	}
	return c
}

// take returns the counts so far, one per key, and starts again.
func (c *loadCounter) take() (perKey []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.n {
		perKey = append(perKey, n)
	}
	clear(c.n)
	return perKey
}

// envelopeOp is one write operation of TestWriteAdmittedOnce.
type envelopeOp struct {
	name string
	keys int // items written
	// loadsOff is how many old items each key reads with throttling off:
	// 0 for a batch put, which stores its item blind.
	loadsOff int
	run      func(s *Service) error
}

// envelopeOps writes with every write operation to tables A and B, whose
// items p/1 and p/2 exist.
func envelopeOps(ctx context.Context) []envelopeOp {
	cond := ddb.WriteParams{ConditionExpression: ptr("attribute_exists(pk) OR attribute_not_exists(pk)")}
	return []envelopeOp{
		{"PutItem", 1, 1, func(s *Service) error {
			_, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: attr.Item{"pk": sv("p"), "sk": sv("1"), "v": nv("2")}, WriteParams: cond})
			return err
		}},
		{"UpdateItem", 1, 1, func(s *Service) error {
			_, err := s.UpdateItem(ctx, "r", &ddb.UpdateItemInput{TableName: "A", Key: pkSK("p", "1"), UpdateExpression: ptr("SET v = :v"),
				WriteParams: ddb.WriteParams{ExprParams: values(":v", nv("3"))}})
			return err
		}},
		{"DeleteItem", 1, 1, func(s *Service) error {
			_, err := s.DeleteItem(ctx, "r", &ddb.DeleteItemInput{TableName: "A", Key: pkSK("p", "1"), WriteParams: cond})
			return err
		}},
		{"BatchWriteItem deletes", 2, 1, func(s *Service) error {
			_, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{
				"A": {{DeleteRequest: &ddb.DeleteRequest{Key: pkSK("p", "2")}}},
				"B": {{DeleteRequest: &ddb.DeleteRequest{Key: pkSK("p", "1")}}},
			}})
			return err
		}},
		{"BatchWriteItem puts", 2, 0, func(s *Service) error {
			_, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{
				"A": {{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(pkSK("p", "2"))}}},
				"B": {{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(pkSK("p", "1"))}}},
			}})
			return err
		}},
		{"TransactWriteItems", 3, 1, func(s *Service) error {
			_, err := s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{TransactItems: []ddb.TransactWriteItem{
				{Put: &ddb.TransactPut{TableName: "A", Item: attr.Item{"pk": sv("p"), "sk": sv("1"), "v": nv("4")}}},
				{Update: &ddb.TransactUpdate{TableName: "A", Key: pkSK("p", "2"), UpdateExpression: ptr("SET v = :v"), ExprParams: values(":v", nv("5"))}},
				{ConditionCheck: &ddb.ConditionCheck{TableName: "B", Key: pkSK("p", "1"), ConditionExpression: ptr("attribute_exists(pk)")}},
			}})
			return err
		}},
	}
}

// TestWriteAdmittedOnce checks that every write operation reads and decodes
// each item's old version once, throttling on or off: admission happens in
// the write's own transaction, on the item read there.
func TestWriteAdmittedOnce(t *testing.T) {
	ctx := context.Background()
	ops := envelopeOps(ctx)
	for _, throttling := range []bool{false, true} {
		t.Run(fmt.Sprintf("throttling=%v", throttling), func(t *testing.T) {
			s := envelopeService(t, Options{Throttling: throttling}, nil, "A", "B")
			for _, k := range []attr.Item{pkSK("p", "1"), pkSK("p", "2")} {
				for _, tbl := range []string{"A", "B"} {
					if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: tbl, Item: k}); err != nil {
						t.Fatal(err)
					}
				}
			}
			loads := countLoads(s)
			for _, op := range ops {
				if err := op.run(s); err != nil {
					t.Fatalf("%s: %v", op.name, err)
				}
				want := op.loadsOff
				if throttling {
					want = 1 // admission needs the old item: no write is blind
				}
				got := loads.take()
				if want == 0 {
					if len(got) != 0 {
						t.Errorf("%s: old items read %v, want none", op.name, got)
					}
					continue
				}
				if len(got) != op.keys {
					t.Errorf("%s: old items of %d keys read, want %d", op.name, len(got), op.keys)
				}
				for _, n := range got {
					if n != want {
						t.Errorf("%s: an old item read %d times, want %d", op.name, n, want)
					}
				}
			}
			a, err := s.table(ctx, "r", "A")
			if err != nil {
				t.Fatal(err)
			}
			if _, touched := s.Partitions(a.ID, ""); touched != throttling {
				t.Errorf("table A's partitions touched by throttling: %v, want %v", touched, throttling)
			}
		})
	}
}

// TestBatchWriteRefusedUnprocessed checks that BatchWriteItem returns
// exactly the requests throttling refused as UnprocessedItems, writes the
// others (and only those) and charges only them; requests on a table that
// is not throttled are always written; a batch whose every request is
// refused fails with the throttling exception and writes nothing.
func TestBatchWriteRefusedUnprocessed(t *testing.T) {
	ctx := context.Background()
	s := envelopeService(t, Options{Throttling: true, CapacityScale: 0.01}, nil, "hot")
	envelopeTable(t, s, "free", []ddb.Tag{{Key: throttlingTag, Value: "off"}})
	var hot, free []ddb.WriteRequest
	for i := range 20 {
		hot = append(hot, ddb.WriteRequest{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(pkSK("h", fmt.Sprintf("%02d", i)))}})
	}
	for i := range 5 {
		free = append(free, ddb.WriteRequest{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(pkSK("h", fmt.Sprintf("%02d", i)))}})
	}
	out, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"hot": hot, "free": free},
		ReturnConsumedCapacity: "TOTAL"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.UnprocessedItems["free"]); n != 0 {
		t.Errorf("%d requests on the unthrottled table unprocessed, want 0", n)
	}
	unprocessed := map[string]bool{}
	for _, r := range out.UnprocessedItems["hot"] {
		if r.PutRequest == nil {
			t.Fatalf("unprocessed request %+v, want the put as sent", r)
		}
		it, err := r.PutRequest.Item.Item()
		if err != nil {
			t.Fatal(err)
		}
		unprocessed[it["sk"].S] = true
	}
	if n := len(unprocessed); n == 0 || n == len(hot) || n != len(out.UnprocessedItems["hot"]) {
		t.Fatalf("%d distinct of %d hot requests unprocessed, want some but not all, each once", n, len(out.UnprocessedItems["hot"]))
	}
	for i := range hot {
		sk := fmt.Sprintf("%02d", i)
		stored := batchTestGet(t, s, "hot", sk) != nil
		if stored == unprocessed[sk] {
			t.Errorf("hot item %s: stored %v, unprocessed %v; want exactly one", sk, stored, unprocessed[sk])
		}
	}
	for i := range free {
		if batchTestGet(t, s, "free", fmt.Sprintf("%02d", i)) == nil {
			t.Errorf("free item %02d not stored", i)
		}
	}
	units := map[string]float64{}
	for _, cc := range out.ConsumedCapacity {
		units[cc.TableName] = cc.CapacityUnits
	}
	if want := float64(len(hot) - len(unprocessed)); units["hot"] != want || units["free"] != float64(len(free)) {
		t.Errorf("consumed capacity %v, want hot %v (the written items) and free %d", units, want, len(free))
	}

	// The partition is spent: a batch of only refused requests fails.
	_, err = s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"hot": {
		{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(pkSK("h", "x"))}},
		{DeleteRequest: &ddb.DeleteRequest{Key: pkSK("h", "00")}},
	}}})
	var e *ddb.Error
	if !errors.As(err, &e) || e.Code != ddb.ThrottlingException {
		t.Fatalf("a batch of refused requests: %v, want a ThrottlingException", err)
	}
	if batchTestGet(t, s, "hot", "x") != nil || batchTestGet(t, s, "hot", "00") == nil {
		t.Errorf("a refused batch wrote")
	}
}

// envelopeTable creates envelopeService's table name with tags.
func envelopeTable(t *testing.T, s *Service, name string, tags []ddb.Tag) {
	t.Helper()
	_, err := s.CreateTable(context.Background(), "r", &ddb.CreateTableInput{
		TableName:   name,
		BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{
			{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}},
		KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		Tags:      tags,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// batchTestGet reads table's item pk h, sk sk without throttling's
// admission (it looks in the store).
func batchTestGet(t *testing.T, s *Service, table, sk string) attr.Item {
	t.Helper()
	m, err := s.table(context.Background(), "r", table)
	if err != nil {
		t.Fatal(err)
	}
	key, err := m.lookupKey(pkSK("h", sk))
	if err != nil {
		t.Fatal(err)
	}
	var item attr.Item
	err = s.db.View(func(tx *store.Tx) error {
		raw := tx.Space(m.ID).Get(key)
		if raw == nil {
			return nil
		}
		var err error
		item, err = attr.DecodeBinary(raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return item
}

// TestAdmissionDecidedOnce checks that a write's admission takes its units
// once however often its transaction runs (the store may run it again):
// the same mutation admitted many times stays admitted, where as many
// distinct writes of the same item exhaust the partition.
func TestAdmissionDecidedOnce(t *testing.T) {
	s := envelopeService(t, Options{Throttling: true, CapacityScale: 0.01}, nil, "hot")
	m, err := s.table(context.Background(), "r", "hot")
	if err != nil {
		t.Fatal(err)
	}
	key, err := m.lookupKey(pkSK("h", "1"))
	if err != nil {
		t.Fatal(err)
	}
	item := pkSK("h", "1")
	newMutation := func() *mutation {
		return &mutation{meta: m, key: key, adm: &admission{mult: 1}, next: func(attr.Item) (attr.Item, error) { return item, nil }}
	}
	once := newMutation()
	for i := range 50 {
		if reasons := s.admit(once, &loaded{}); reasons != nil {
			t.Fatalf("run %d of one write: refused (%v), want the first run's admission kept", i, reasons)
		}
	}
	refused := 0
	for range 50 {
		if s.admit(newMutation(), &loaded{}) != nil {
			refused++
		}
	}
	if refused == 0 {
		t.Fatalf("50 distinct writes to one partition: none refused, want the partition exhausted")
	}
}
