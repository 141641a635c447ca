package table

import (
	"context"
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// globalService returns a Service with opts on a clock that moves only when
// told, and a provisioned table glob (hash key pk S, read and write
// capacity 5, global index byV on v) in us-east-1 with a replica in
// eu-west-1 whose read capacity override is 7, table and index, ACTIVE.
func globalService(t *testing.T, opts Options) (*Service, *fakeClock) {
	t.Helper()
	s, clk := clockService(t, opts)
	ctx := context.Background()
	pt := func(r, w int64) *ddb.ProvisionedThroughput {
		return &ddb.ProvisionedThroughput{ReadCapacityUnits: ptr(r), WriteCapacityUnits: ptr(w)}
	}
	_, err := s.CreateTable(ctx, "us-east-1", &ddb.CreateTableInput{TableName: "glob",
		AttributeDefinitions:  []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "v", AttributeType: "S"}},
		KeySchema:             []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		ProvisionedThroughput: pt(5, 5),
		GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "byV", KeySchema: []ddb.KeySchemaElement{{AttributeName: "v", KeyType: "HASH"}},
			Projection: &ddb.Projection{ProjectionType: "ALL"}, ProvisionedThroughput: pt(5, 5)}}})
	if err != nil {
		t.Fatal(err)
	}
	read7 := &ddb.ProvisionedThroughputOverride{ReadCapacityUnits: ptr[int64](7)}
	_, err = s.UpdateTable(ctx, "us-east-1", &ddb.UpdateTableInput{TableName: "glob", ReplicaUpdates: []ddb.ReplicationGroupUpdate{{
		Create: &ddb.CreateReplicationGroupMemberAction{RegionName: "eu-west-1", ReplicaSettings: ddb.ReplicaSettings{
			ProvisionedThroughputOverride: read7,
			GlobalSecondaryIndexes:        []ddb.ReplicaGlobalSecondaryIndex{{IndexName: "byV", ProvisionedThroughputOverride: read7}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(ctx); err != nil { // the replica is ACTIVE once copied
		t.Fatal(err)
	}
	return s, clk
}

// settings is what TestSyncedChangeAtomic compares of one replica.
type settings struct {
	read, write, indexRead, indexWrite int64
	ttl                                string
}

func settingsOf(t *testing.T, s *Service, region string) settings {
	t.Helper()
	m, err := s.table(context.Background(), region, "glob")
	if err != nil {
		t.Fatal(err)
	}
	ix := m.GlobalSecondaryIndexes[m.gsiPosition("byV")]
	return settings{m.ReadCapacity, m.WriteCapacity, ix.ReadCapacity, ix.WriteCapacity, m.TTLAttribute}
}

// TestSyncedChangeAtomic checks that a settings change of a global table
// and every replica's share of it are one store transaction: when a
// replica's share fails, no replica is changed (a crash between the shares
// cannot leave them half-updated); when none fails, every replica is, its
// read overrides kept.
func TestSyncedChangeAtomic(t *testing.T) {
	ctx := context.Background()
	changes := []struct {
		name   string
		change func(s *Service) error
		us, eu settings // after the change
	}{
		{"UpdateTable", func(s *Service) error {
			_, err := s.UpdateTable(ctx, "us-east-1", &ddb.UpdateTableInput{TableName: "glob",
				ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: ptr[int64](10), WriteCapacityUnits: ptr[int64](12)}})
			return err
		}, settings{10, 12, 5, 5, ""}, settings{7, 12, 7, 5, ""}},
		{"UpdateTable of an index through the replica", func(s *Service) error {
			u := ddb.GlobalSecondaryIndexUpdate{}
			u.Update = &ddb.UpdateGlobalSecondaryIndexAction{IndexName: "byV", ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: ptr[int64](3), WriteCapacityUnits: ptr[int64](9)}}
			_, err := s.UpdateTable(ctx, "eu-west-1", &ddb.UpdateTableInput{TableName: "glob", GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{u}})
			return err
		}, settings{5, 5, 3, 9, ""}, settings{7, 5, 3, 9, ""}},
		{"UpdateTimeToLive", func(s *Service) error {
			_, err := s.UpdateTimeToLive(ctx, "us-east-1", &ddb.UpdateTimeToLiveInput{TableName: "glob",
				TimeToLiveSpecification: &ddb.TimeToLiveSpecification{AttributeName: "exp", Enabled: ptr(true)}})
			return err
		}, settings{5, 5, 5, 5, "exp"}, settings{7, 5, 7, 5, "exp"}},
	}
	crash := errors.New("crash before eu-west-1's share")
	for _, tc := range changes {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := globalService(t, Options{})
			us, eu := settingsOf(t, s, "us-east-1"), settingsOf(t, s, "eu-west-1")
			if want := (settings{7, 5, 7, 5, ""}); eu != want {
				t.Fatalf("eu-west-1 as created: %+v, want %+v", eu, want)
			}
			s.shareSeam = func(region string) error {
				if region == "eu-west-1" || region == "us-east-1" {
					return crash
				}
				return nil
			}
			if err := tc.change(s); !errors.Is(err, crash) {
				t.Fatalf("with a replica's share failing: %v, want the failure", err)
			}
			if got := settingsOf(t, s, "us-east-1"); got != us {
				t.Errorf("us-east-1 after the failed change: %+v, want %+v (unchanged)", got, us)
			}
			if got := settingsOf(t, s, "eu-west-1"); got != eu {
				t.Errorf("eu-west-1 after the failed change: %+v, want %+v (unchanged)", got, eu)
			}
			s.shareSeam = nil
			if err := tc.change(s); err != nil {
				t.Fatal(err)
			}
			if got := settingsOf(t, s, "us-east-1"); got != tc.us {
				t.Errorf("us-east-1 after the change: %+v, want %+v", got, tc.us)
			}
			if got := settingsOf(t, s, "eu-west-1"); got != tc.eu {
				t.Errorf("eu-west-1 after the change: %+v, want %+v", got, tc.eu)
			}
		})
	}
}

// TestReplicaOverridesTaken checks that a replica Update action's read
// overrides become the replica's own capacity in the transaction that
// records them, and that a throughput change the override leaves as it is
// changes the other replicas alone.
func TestReplicaOverridesTaken(t *testing.T) {
	ctx := context.Background()
	s, _ := globalService(t, Options{})
	read := func(n int64) *ddb.ProvisionedThroughputOverride {
		return &ddb.ProvisionedThroughputOverride{ReadCapacityUnits: ptr(n)}
	}
	_, err := s.UpdateTable(ctx, "us-east-1", &ddb.UpdateTableInput{TableName: "glob", ReplicaUpdates: []ddb.ReplicationGroupUpdate{{
		Update: &ddb.UpdateReplicationGroupMemberAction{RegionName: "eu-west-1", ReplicaSettings: ddb.ReplicaSettings{
			ProvisionedThroughputOverride: read(4),
			GlobalSecondaryIndexes:        []ddb.ReplicaGlobalSecondaryIndex{{IndexName: "byV", ProvisionedThroughputOverride: read(2)}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := settingsOf(t, s, "eu-west-1"), (settings{4, 5, 2, 5, ""}); got != want {
		t.Errorf("eu-west-1 after its overrides changed: %+v, want %+v", got, want)
	}
	// us-east-1's read goes 5 -> 4, its write stays: eu-west-1, which
	// overrides its read, has nothing to change.
	_, err = s.UpdateTable(ctx, "us-east-1", &ddb.UpdateTableInput{TableName: "glob",
		ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: ptr[int64](4), WriteCapacityUnits: ptr[int64](5)}})
	if err != nil {
		t.Fatalf("a change the replica's override absorbs: %v", err)
	}
	if got, want := settingsOf(t, s, "us-east-1"), (settings{4, 5, 5, 5, ""}); got != want {
		t.Errorf("us-east-1: %+v, want %+v", got, want)
	}
	if got, want := settingsOf(t, s, "eu-west-1"), (settings{4, 5, 2, 5, ""}); got != want {
		t.Errorf("eu-west-1: %+v, want %+v", got, want)
	}
}
