package table

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// TestItemsAt checks the undo of the change log: an item changed at or
// after the cut is its first such change's old image, absent when that
// change created it; items changed only before the cut are as they are now.
func TestItemsAt(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// History (time: change): 10 a=1 (insert), 20 b=1, 30 a=2, 40 del b, 50 c=1.
	type change struct {
		at        int64
		key, old  string
		new       string // "" deletes
		oldExists bool
	}
	history := []change{{10, "a", "", "1", false}, {20, "b", "", "1", false}, {30, "a", "1", "2", true},
		{40, "b", "1", "", true}, {50, "c", "", "1", false}}
	err = db.Update(context.Background(), func(tx *store.Tx) error {
		if err := tx.CreateSpace("t"); err != nil {
			return err
		}
		sp := tx.Space("t")
		for _, c := range history {
			var old, new []byte
			if c.oldExists {
				old = []byte(c.old)
			}
			if c.new != "" {
				new = []byte(c.new)
				if err := sp.Put([]byte(c.key), new); err != nil {
					return err
				}
			} else if err := sp.Delete([]byte(c.key)); err != nil {
				return err
			}
			if _, err := sp.AppendLog(changelog.Append(nil, changelog.Record{Time: c.at, Key: []byte(c.key), Old: old, New: new})); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cut  int64
		want string
	}{
		{0, ""},
		{15, "a=1"},
		{25, "a=1 b=1"},
		{35, "a=2 b=1"},
		{45, "a=2"},
		{55, "a=2 c=1"},
		{math.MaxInt64, "a=2 c=1"},
	} {
		var got []string
		err := db.View(func(tx *store.Tx) error {
			each, err := itemsAt(tx.Space("t"), tc.cut)
			if err != nil {
				return err
			}
			return each(func(k, v []byte) error {
				got = append(got, string(k)+"="+string(v))
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("cut %d: got %q, want %q", tc.cut, g, tc.want)
		}
	}
}

// TestRestoreInstant checks the restorable window in whole seconds.
func TestRestoreInstant(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &pitrMeta{Since: base.Add(1500 * time.Millisecond).UnixNano(), Days: 1}
	now := base.Add(10*time.Second + 300*time.Millisecond)
	late := base.Add(26 * time.Hour)
	for _, tc := range []struct {
		now  time.Time
		at   time.Time
		fail bool
	}{
		{now, base.Add(1 * time.Second), false}, // the enabling second
		{now, base.Add(999 * time.Millisecond), true},
		{now, base.Add(10*time.Second + 900*time.Millisecond), false}, // now's second
		{now, base.Add(11 * time.Second), true},
		{late, late.Add(-24 * time.Hour), false}, // the recovery period's start
		{late, late.Add(-24*time.Hour - time.Second), true},
	} {
		secs := float64(tc.at.UnixMilli()) / 1000
		got, err := restoreInstant(p, secs, tc.now)
		var te *ddb.Error
		switch {
		case tc.fail && (!errors.As(err, &te) || te.Code != ddb.InvalidRestoreTimeException):
			t.Errorf("restore to %s at %s: got %v, want InvalidRestoreTimeException", tc.at, tc.now, err)
		case !tc.fail && (err != nil || !got.Equal(tc.at)):
			t.Errorf("restore to %s at %s: got %s, %v; want it accepted", tc.at, tc.now, got, err)
		}
	}
	if got, want := restoreCut(base.Add(1500*time.Millisecond), false), base.Add(2*time.Second).UnixNano(); got != want {
		t.Errorf("restoreCut: got %d, want %d (the next whole second)", got, want)
	}
}

func TestParseBackupARN(t *testing.T) {
	for _, tc := range []struct{ arn, id string }{
		{"arn:aws:dynamodb:us-east-1:000000000000:table/T/backup/01767225600000-0badf00d", "01767225600000-0badf00d"},
		{"arn:aws:dynamodb:eu-west-1:123456789012:table/T/backup/x", "x"}, // the region and account are not checked
		{"arn:aws:dynamodb:us-east-1:000000000000:table/T", ""},
		{"arn:aws:dynamodb:us-east-1:000000000000:table/T/stream/2026", ""},
		{"arn:aws:s3:us-east-1:000000000000:table/T/backup/x", ""},
		{"nonsense", ""},
	} {
		id, err := parseBackupARN(tc.arn)
		if id != tc.id || (tc.id == "") != (err != nil) {
			t.Errorf("parseBackupARN(%q): got %q, %v; want %q", tc.arn, id, err, tc.id)
		}
	}
}

func TestBackupFilter(t *testing.T) {
	b := func(typ string, ms int64, table string) *backupMeta {
		return &backupMeta{Type: typ, Created: ms * int64(time.Millisecond), Table: tableMeta{Name: table}}
	}
	f64 := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in   ddb.ListBackupsInput
		b    *backupMeta
		want bool
	}{
		{ddb.ListBackupsInput{}, b("USER", 1, "T"), true},
		{ddb.ListBackupsInput{}, b("SYSTEM", 1, "T"), false}, // USER by default
		{ddb.ListBackupsInput{BackupType: "ALL"}, b("SYSTEM", 1, "T"), true},
		{ddb.ListBackupsInput{BackupType: "SYSTEM"}, b("USER", 1, "T"), false},
		{ddb.ListBackupsInput{TableName: "arn:aws:dynamodb:r:000000000000:table/T"}, b("USER", 1, "T"), true},
		{ddb.ListBackupsInput{TableName: "U"}, b("USER", 1, "T"), false},
		{ddb.ListBackupsInput{TimeRangeLowerBound: f64(2)}, b("USER", 2000, "T"), true},  // lower bound inclusive
		{ddb.ListBackupsInput{TimeRangeUpperBound: f64(2)}, b("USER", 2000, "T"), false}, // upper bound exclusive
		{ddb.ListBackupsInput{TimeRangeUpperBound: f64(2.001)}, b("USER", 2000, "T"), true},
	} {
		f, err := newBackupFilter(&tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.match(tc.b, 0); got != tc.want {
			t.Errorf("%+v matching %s at %d ms of %s: got %v, want %v", tc.in, tc.b.Type, tc.b.Created/1e6, tc.b.Table.Name, got, tc.want)
		}
	}
	if _, err := newBackupFilter(&ddb.ListBackupsInput{TimeRangeLowerBound: f64(3), TimeRangeUpperBound: f64(2)}); err == nil {
		t.Error("lower bound above upper: got no error")
	}
	if f, _ := newBackupFilter(&ddb.ListBackupsInput{}); f.match(&backupMeta{Type: "SYSTEM", Expiry: 5}, 5) {
		t.Error("an expired SYSTEM backup matched")
	}
}

func TestCheckPolicy(t *testing.T) {
	for _, tc := range []struct{ doc, err string }{
		{`{"Statement":[{"Effect":"Allow","Resource":"*"}]}`, ""},
		{`{"Statement":{"Effect":"Allow","Resource":"*"}}`, ""}, // one statement needs no list
		{`{"Statement":[{"Sid":"a","Resource":"*"},{"Sid":"b","Resource":"*"}]}`, ""},
		{`[`, "This policy contains invalid Json"},
		{`{}`, "Could not parse the policy: Statement is empty!"},
		{`{"Statement":[]}`, "Could not parse the policy: Statement is empty!"},
		{`{"Statement":[{"Effect":"Allow"}]}`, "Missing required field Resource"},
		{`{"Statement":[{"Sid":"a","Resource":"*"},{"Sid":"a","Resource":"*"}]}`, "The Statement Ids in the policy are not unique"},
		{`{"Statement":"` + strings.Repeat("x", maxPolicySize) + `"}`, "Maximum policy size of 20480 bytes exceeded"},
	} {
		err := checkPolicy(tc.doc)
		got := ""
		if err != nil {
			got = err.(*ddb.Error).Message
		}
		if (tc.err == "") != (got == "") || !strings.HasSuffix(got, tc.err) {
			t.Errorf("checkPolicy(%.40s): got %q, want …%q", tc.doc, got, tc.err)
		}
	}
}

func TestNextRevision(t *testing.T) {
	for _, tc := range []struct {
		nanos int64
		prev  string
		want  string
	}{
		{1_700_000_000_123_456_789, "", "1700000000123"},
		{1_700_000_000_123_456_789, "1700000000123", "1700000000124"}, // never repeats
		{1_700_000_000_123_456_789, "1700000000999", "1700000001000"},
		{1_700_000_000_123_456_789, "1600000000000", "1700000000123"},
	} {
		if got := nextRevision(tc.nanos, tc.prev); got != tc.want {
			t.Errorf("nextRevision(%d, %q): got %q, want %q", tc.nanos, tc.prev, got, tc.want)
		}
	}
}

func TestOverrideBilling(t *testing.T) {
	one := int64(1)
	pt := &ddb.ProvisionedThroughput{ReadCapacityUnits: &one, WriteCapacityUnits: &one}
	for _, tc := range []struct {
		from string
		o    ddb.RestoreOverrides
		mode string
		err  string
	}{
		{"PROVISIONED", ddb.RestoreOverrides{}, "PROVISIONED", ""},
		{"PROVISIONED", ddb.RestoreOverrides{BillingModeOverride: "PAY_PER_REQUEST"}, "PAY_PER_REQUEST", ""},
		{"PAY_PER_REQUEST", ddb.RestoreOverrides{BillingModeOverride: "PROVISIONED", ProvisionedThroughputOverride: pt}, "PROVISIONED", ""},
		{"PAY_PER_REQUEST", ddb.RestoreOverrides{BillingModeOverride: "PROVISIONED"}, "", "Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED"},
		{"PAY_PER_REQUEST", ddb.RestoreOverrides{ProvisionedThroughputOverride: pt}, "", "Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED"},
		{"PROVISIONED", ddb.RestoreOverrides{BillingModeOverride: "PAY_PER_REQUEST", ProvisionedThroughputOverride: pt}, "",
			"Cannot override ProvisionedThroughput if BillingMode is overridden to PAY_PER_REQUEST"},
		{"PROVISIONED", ddb.RestoreOverrides{OnDemandThroughputOverride: &ddb.OnDemandThroughput{}}, "",
			"Cannot override MaxReadRequestUnits for OnDemandThroughput unless BillingModeOverride is PAY_PER_REQUEST"},
	} {
		m := &tableMeta{BillingMode: tc.from, ReadCapacity: 5, WriteCapacity: 5}
		err := m.overrideBilling(&tc.o)
		name := fmt.Sprintf("%s with %+v", tc.from, tc.o)
		switch {
		case tc.err != "" && (err == nil || err.(*ddb.Error).Message != "Invalid Request: "+tc.err):
			t.Errorf("%s: got %v, want %q", name, err, tc.err)
		case tc.err == "" && (err != nil || m.BillingMode != tc.mode):
			t.Errorf("%s: got %s, %v; want %s", name, m.BillingMode, err, tc.mode)
		}
	}
}

// TestPITRLogsEveryWrite checks that once point-in-time recovery is on,
// every kind of write appends to the change log (a blind put, an encoded
// batch put, a transaction), and that the log is kept for the recovery period.
func TestPITRLogsEveryWrite(t *testing.T) {
	ctx := context.Background()
	s, clk := txService(t)
	m, _ := s.table(context.Background(), "r", "A")
	if got := s.logRetention(m); got != 0 {
		t.Fatalf("log retention without PITR: got %s, want 0", got)
	}
	on := true
	if _, err := s.UpdateContinuousBackups(ctx, "r", &ddb.UpdateContinuousBackupsInput{TableName: "A",
		PointInTimeRecoverySpecification: &ddb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &on}}); err != nil {
		t.Fatal(err)
	}
	m, _ = s.table(context.Background(), "r", "A")
	if got, want := s.logRetention(m), 35*24*time.Hour; got != want {
		t.Errorf("log retention with PITR: got %s, want %s", got, want)
	}
	clk.advance(time.Second)
	item := attr.Item{"pk": attr.String("k1")}
	if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: item}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{
		"A": {{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(attr.Item{"pk": attr.String("k2")})}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{TransactItems: []ddb.TransactWriteItem{
		{Delete: &ddb.TransactDelete{TableName: "A", Key: item}}}}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	s.db.View(func(tx *store.Tx) error {
		return tx.Space(m.ID).AscendLog(0, func(_ uint64, raw []byte) bool {
			rec, _ := changelog.Decode(raw)
			keys = append(keys, fmt.Sprintf("%x new=%v", rec.Key[8:], rec.New != nil))
			return true
		})
	})
	if len(keys) != 3 {
		t.Errorf("log records after three writes: got %d %v, want 3", len(keys), keys)
	}
}

// TestPITRLongerPeriod checks that lengthening the recovery period does not
// claim a past the shorter one let the log forget.
func TestPITRLongerPeriod(t *testing.T) {
	ctx := context.Background()
	s, clk := txService(t)
	on := true
	update := func(days int32) *ddb.PointInTimeRecoveryDescription {
		t.Helper()
		out, err := s.UpdateContinuousBackups(ctx, "r", &ddb.UpdateContinuousBackupsInput{TableName: "A",
			PointInTimeRecoverySpecification: &ddb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &on, RecoveryPeriodInDays: &days}})
		if err != nil {
			t.Fatal(err)
		}
		return &out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	}
	update(1)
	clk.advance(72 * time.Hour)
	want := epochSeconds(clk.now().Add(-24 * time.Hour).UnixNano())
	if got := *update(35).EarliestRestorableDateTime; got != want {
		t.Errorf("EarliestRestorableDateTime after 1 → 35 days: got %v, want %v (what one day kept)", got, want)
	}
	clk.advance(time.Hour)
	if got := *update(35).EarliestRestorableDateTime; got != want {
		t.Errorf("EarliestRestorableDateTime an hour later: got %v, want %v (the window grows with time)", got, want)
	}
}
