package kinesis

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// space runs fn on a fresh table space "t" inside one transaction.
func space(t *testing.T) (*store.DB, func(fn func(sp *store.Space) error) error) {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Update(context.Background(), func(tx *store.Tx) error { return tx.CreateSpace("t") }); err != nil {
		t.Fatal(err)
	}
	return db, func(fn func(sp *store.Space) error) error {
		return db.Update(context.Background(), func(tx *store.Tx) error { return fn(tx.Space("t")) })
	}
}

const arnA, arnB = "arn:aws:kinesis:us-east-1:000000000000:stream/a", "arn:aws:kinesis:us-east-1:000000000000:stream/b"

// setStatus forces a destination's status, as the Deliverer would.
func setStatus(arn, status string) func(sp *store.Space) error {
	return func(sp *store.Space) error {
		st, err := Load(sp)
		if err != nil {
			return err
		}
		st.Find(arn).Status = status
		return st.save(sp)
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		steps []func(sp *store.Space) error
		want  string // the last step's error message, "" for none
	}{
		{"enable twice while enabling", []func(sp *store.Space) error{enable(arnA, ""), enable(arnA, "")}, msgEnableState},
		{"enable another while active", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, Active), enable(arnB, "")}, msgEnableState},
		{"enable again after failure", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, EnableFailed), enable(arnA, Microsecond)}, ""},
		{"enable another beside a failure", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, EnableFailed), enable(arnB, "")}, ""},
		{"disable never enabled", []func(sp *store.Space) error{disable(arnA, false)}, msgDisableState},
		{"disable enabling", []func(sp *store.Space) error{enable(arnA, ""), disable(arnA, false)}, msgDisableState},
		{"disable with configuration", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, Active), disable(arnA, true)}, msgDisableConf},
		{"disable disabling again", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, Active), disable(arnA, false), disable(arnA, false)}, ""},
		{"disable disabled", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, Disabled), disable(arnA, false)}, msgDisableState},
		{"update without precision", []func(sp *store.Space) error{update(arnA, "")}, msgUpdateNull},
		{"update unknown", []func(sp *store.Space) error{update(arnA, Microsecond)}, notValidState + "No streaming destination with streamArn: " + arnA},
		{"update enabling", []func(sp *store.Space) error{enable(arnA, ""), update(arnA, Microsecond)},
			notValidState + "Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. TableName: T"},
		{"update to the default", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, Active), update(arnA, Millisecond)},
			"Invalid Request: Precision is already set to the desired value of MILLISECOND for tableId: id-1, kdsArn: " + arnA},
		{"update for real", []func(sp *store.Space) error{enable(arnA, ""), setStatus(arnA, Active), update(arnA, Microsecond)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, run := space(t)
			var err error
			for i, step := range tt.steps {
				if err = run(step); err != nil && i < len(tt.steps)-1 {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			switch e, _ := err.(*Error); {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want success", err)
			case tt.want != "" && (e == nil || e.Code != "ValidationException" || e.Message != tt.want):
				t.Fatalf("got %v, want ValidationException: %s", err, tt.want)
			}
		})
	}
}

func enable(arn, precision string) func(sp *store.Space) error {
	return func(sp *store.Space) error { _, err := Enable(sp, arn, precision, 1); return err }
}

func disable(arn string, conf bool) func(sp *store.Space) error {
	return func(sp *store.Space) error { _, err := Disable(sp, arn, conf); return err }
}

func update(arn, precision string) func(sp *store.Space) error {
	return func(sp *store.Space) error { _, err := Update(sp, arn, precision, "T", "id-1"); return err }
}

// TestEnableFlips checks that enabling a failed destination again reuses
// its entry, puts it first and resets it.
func TestEnableFlips(t *testing.T) {
	db, run := space(t)
	for _, step := range []func(sp *store.Space) error{enable(arnA, Microsecond), setStatus(arnA, EnableFailed), enable(arnB, ""),
		setStatus(arnB, EnableFailed), enable(arnA, "")} {
		if err := run(step); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.View(func(tx *store.Tx) error {
		st, err := Load(tx.Space("t"))
		if err != nil || len(st.Destinations) != 2 || st.Destinations[0].StreamArn != arnA || st.Destinations[0].Status != Enabling ||
			st.Destinations[0].Precision != "" || st.Destinations[1].StreamArn != arnB {
			t.Fatalf("got %+v, %v", st, err)
		}
		return nil
	})
}

func TestParseStreamARN(t *testing.T) {
	tests := []struct {
		arn  string
		want StreamARN
		ok   bool
	}{
		{"arn:aws:kinesis:us-east-1:123456789012:stream/orders", StreamARN{"us-east-1", "123456789012", "orders"}, true},
		{"arn:aws-cn:kinesis:cn-north-1:123456789012:stream/o.r-d_s", StreamARN{"cn-north-1", "123456789012", "o.r-d_s"}, true},
		{"arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/c:1", StreamARN{}, false},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/orders", StreamARN{}, false},
		{"arn:aws:kinesis::123456789012:stream/orders", StreamARN{}, false},
		{"not-an-arn-but-long-enough-to-pass-37", StreamARN{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseStreamARN(tt.arn)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseStreamARN(%q) = %+v, %v; want %+v, %v", tt.arn, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRender(t *testing.T) {
	tbl := Table{Name: "Orders", Region: "eu-west-1", KeyNames: []string{"pk"}}
	item := func(pk, v string) []byte {
		return attr.AppendBinary(nil, attr.Item{"pk": {T: attr.TypeS, S: pk}, "v": {T: attr.TypeN, S: v}})
	}
	at := time.Date(2026, 12, 5, 10, 0, 0, 123456789, time.UTC).UnixNano()
	tests := []struct {
		name            string
		rec             changelog.Record
		precision       string
		event           string
		when            int64
		newImg, oldImg  bool
		identity, delta bool
	}{
		{"insert", changelog.Record{Time: at, Key: []byte("a"), New: item("a", "1")}, Millisecond, "INSERT", at / 1e6, true, false, false, true},
		{"modify", changelog.Record{Time: at, Key: []byte("a"), Old: item("a", "1"), New: item("a", "2")}, Microsecond, "MODIFY", at / 1e3, true, true, false, true},
		{"ttl remove", changelog.Record{Time: at, Key: []byte("a"), Old: item("a", "1"), Expired: true}, Millisecond, "REMOVE", at / 1e6, false, true, true, true},
		{"no change", changelog.Record{Time: at, Key: []byte("a"), Old: item("a", "1"), New: item("a", "1")}, Millisecond, "", 0, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := Render(tbl, "tid", 7, changelog.Append(nil, tt.rec), tt.precision)
			if err != nil || ok != tt.delta {
				t.Fatalf("Render: %v, %v", ok, err)
			}
			if !ok {
				return
			}
			var r struct {
				AwsRegion, EventID, EventName, RecordFormat, TableName, EventSource string
				UserIdentity                                                        *UserIdentity
				Dynamodb                                                            map[string]json.RawMessage
			}
			if err := json.Unmarshal(e.Data, &r); err != nil {
				t.Fatal(err)
			}
			if r.AwsRegion != "eu-west-1" || r.EventName != tt.event || r.RecordFormat != "application/json" || r.TableName != "Orders" ||
				r.EventSource != "aws:dynamodb" || (r.UserIdentity != nil) != tt.identity || len(r.EventID) != 36 || e.Seq != 7 {
				t.Fatalf("record: %s", e.Data)
			}
			_, hasNew := r.Dynamodb["NewImage"]
			_, hasOld := r.Dynamodb["OldImage"]
			if string(r.Dynamodb["ApproximateCreationDateTime"]) != jsonInt(tt.when) || hasNew != tt.newImg || hasOld != tt.oldImg ||
				string(r.Dynamodb["ApproximateCreationDateTimePrecision"]) != `"`+tt.precision+`"` || string(r.Dynamodb["Keys"]) != `{"pk":{"S":"a"}}` {
				t.Fatalf("dynamodb: %s", e.Data)
			}
			again, _, _ := Render(tbl, "tid", 7, changelog.Append(nil, tt.rec), tt.precision)
			if string(again.Data) != string(e.Data) || again.PartitionKey != e.PartitionKey {
				t.Fatal("a change renders differently on redelivery")
			}
		})
	}
}

func jsonInt(v int64) string { b, _ := json.Marshal(v); return string(b) }

// sink is a Kinesis endpoint in memory that can be made to fail.
type sink struct {
	mu   chan struct{} // a lock that select can wait on
	fail bool
	got  []Entry
}

func newSink() *sink { s := &sink{mu: make(chan struct{}, 1)}; return s }

func (s *sink) StreamStatus(context.Context, StreamARN) (string, error) { return Active, nil }

func (s *sink) PutRecords(_ context.Context, _ StreamARN, entries []Entry) ([]int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	if s.fail {
		return nil, &APIError{Status: 500, Code: "InternalFailure"}
	}
	s.got = append(s.got, entries...)
	return nil, nil
}

func (s *sink) seqs() []uint64 {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	var out []uint64
	for _, e := range s.got {
		out = append(out, e.Seq)
	}
	return out
}

// TestDelivererResumes writes through a deliverer, stops it with the sink
// failing, writes more, and checks that a new deliverer (a restart)
// delivers exactly the records not yet delivered, in order.
func TestDelivererResumes(t *testing.T) {
	db, run := space(t)
	write := func(pk string) {
		t.Helper()
		err := run(func(sp *store.Space) error {
			_, err := sp.AppendLog(changelog.Append(nil, changelog.Record{Time: time.Now().UnixNano(), Key: []byte(pk),
				New: attr.AppendBinary(nil, attr.Item{"pk": {T: attr.TypeS, S: pk}})}))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	write("before") // before Enable: never delivered
	if err := run(enable(arnA, "")); err != nil {
		t.Fatal(err)
	}
	s := newSink()
	opts := Options{DB: db, TableID: "t", Sink: s, Table: func() (Table, bool) { return Table{Name: "T", Region: "us-east-1", KeyNames: []string{"pk"}}, true }}
	d := Start(context.Background(), opts)
	write("one")
	write("two")
	d.Notify()
	waitSeqs(t, s, []uint64{2, 3})
	s.mu <- struct{}{}
	s.fail = true
	<-s.mu
	write("three")
	d.Notify()
	time.Sleep(300 * time.Millisecond)
	d.Close()
	s.mu <- struct{}{}
	s.fail = false
	<-s.mu
	d = Start(context.Background(), opts)
	defer d.Close()
	write("four")
	d.Notify()
	waitSeqs(t, s, []uint64{2, 3, 4, 5})
}

func waitSeqs(t *testing.T, s *sink, want []uint64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := s.seqs()
		if len(got) == len(want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("delivered %v, want %v", got, want)
				}
			}
			return
		}
		if len(got) > len(want) || time.Now().After(deadline) {
			t.Fatalf("delivered %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
