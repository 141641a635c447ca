package integration

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// gtServer is an in-process ddblocal with a movable clock and the
// /_ddblocal/replication routes, for global table tests.
type gtServer struct {
	*server
	clk *clock.Clock
}

func startGlobalServer(t testing.TB, opts table.Options) *gtServer {
	t.Helper()
	return startVerifiedServer(t, opts, testVerifier())
}

// startVerifiedServer is a gtServer verifying signatures with v (nil: no
// verification).
func startVerifiedServer(t testing.TB, opts table.Options, v *auth.Verifier) *gtServer {
	t.Helper()
	clk := clock.Manual(streamStart)
	opts.Now = clk.Now
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	svc.RunOnMove(clk)
	cfg := api.Config{Addr: "localhost:8000", Verifier: v,
		Admin: admin.Handler(admin.Config{Settle: svc.Settle, Replication: svc, Clock: clk, Verifier: v})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	return &gtServer{server: &server{URL: ts.URL, svc: svc}, clk: clk}
}

func (g *gtServer) settle(t testing.TB) {
	t.Helper()
	resp, err := http.Post(g.URL+"/_ddblocal/settle", "application/json", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("settle: %v %v", resp, err)
	}
	resp.Body.Close()
}

// replication calls /_ddblocal/replication (op "" = GET, "pause", "resume").
func (g *gtServer) replication(t testing.TB, op, region string) replication.Report {
	t.Helper()
	var resp *http.Response
	var err error
	if op == "" {
		resp, err = http.Get(g.URL + "/_ddblocal/replication")
	} else {
		resp, err = http.Post(g.URL+"/_ddblocal/replication/"+op+"?region="+region, "application/json", nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep replication.Report
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&rep) != nil {
		t.Fatalf("replication %s: status %d", op, resp.StatusCode)
	}
	return rep
}

// addReplica makes name in us-east-1 a global table with a replica in region.
func addReplica(t testing.TB, c *dynamodb.Client, name, region string) *types.TableDescription {
	t.Helper()
	out, err := c.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(region)}}}})
	if err != nil {
		t.Fatalf("UpdateTable Create replica %s: %v", region, err)
	}
	return out.TableDescription
}

func describe(t testing.TB, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	return out.Table
}

// replicaStatuses maps DescribeTable's Replicas to their statuses.
func replicaStatuses(d *types.TableDescription) map[string]types.ReplicaStatus {
	out := map[string]types.ReplicaStatus{}
	for _, r := range d.Replicas {
		out[aws.ToString(r.RegionName)] = r.ReplicaStatus
	}
	return out
}

func put(t testing.TB, c *dynamodb.Client, name, pk, v string) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(name),
		Item: map[string]types.AttributeValue{"pk": s(pk), "v": s(v)}}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

// value returns item pk's v as a strongly consistent read in c's Region
// sees it ("" when absent).
func value(t testing.TB, c *dynamodb.Client, name, pk string) string {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(name),
		Key: map[string]types.AttributeValue{"pk": s(pk)}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if v, ok := out.Item["v"].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func TestGlobalTableLifecycle(t *testing.T) {
	srv := startGlobalServer(t, table.Options{TransientDelay: 2 * time.Second})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createTable(t, us, "glob", false)
	srv.clk.Advance(context.Background(), 2*time.Second)
	d := addReplica(t, us, "glob", "eu-west-1")
	if d.TableStatus != types.TableStatusUpdating || aws.ToString(d.GlobalTableVersion) != "2019.11.21" {
		t.Errorf("UpdateTable answer: status %s version %q, want UPDATING 2019.11.21", d.TableStatus, aws.ToString(d.GlobalTableVersion))
	}
	if d.StreamSpecification == nil || d.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Errorf("stream after adding a replica: got %+v, want NEW_AND_OLD_IMAGES enabled", d.StreamSpecification)
	}
	srv.settle(t)
	if got := replicaStatuses(describe(t, us, "glob")); got["eu-west-1"] != types.ReplicaStatusCreating {
		t.Errorf("replicas before the transient delay: got %v, want eu-west-1 CREATING", got)
	}
	srv.clk.Advance(context.Background(), 2*time.Second)
	if got := replicaStatuses(describe(t, us, "glob")); len(got) != 1 || got["eu-west-1"] != types.ReplicaStatusActive {
		t.Errorf("replicas in us-east-1: got %v, want eu-west-1 ACTIVE", got)
	}
	de := describe(t, eu, "glob")
	if got := replicaStatuses(de); len(got) != 1 || got["us-east-1"] != types.ReplicaStatusActive || aws.ToString(de.GlobalTableVersion) != "2019.11.21" {
		t.Errorf("replicas in eu-west-1: got %v (version %q), want us-east-1 ACTIVE", got, aws.ToString(de.GlobalTableVersion))
	}
	if de.StreamSpecification == nil || de.LatestStreamArn == nil || de.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabledWithOverrides {
		t.Errorf("eu-west-1 replica: stream %+v arn %v mode %q", de.StreamSpecification, de.LatestStreamArn, de.GlobalTableSettingsReplicationMode)
	}
	_, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := replicaStatuses(describe(t, us, "glob")); got["eu-west-1"] != types.ReplicaStatusDeleting {
		t.Errorf("replicas after Delete: got %v, want eu-west-1 DELETING", got)
	}
	srv.clk.Advance(context.Background(), 2*time.Second)
	if d := describe(t, us, "glob"); len(d.Replicas) != 0 || d.GlobalTableVersion != nil {
		t.Errorf("us-east-1 after the replica is gone: replicas %v version %v, want a regional table", d.Replicas, d.GlobalTableVersion)
	}
	_, err = eu.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("glob")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}

func TestGlobalTableReplicaRefusals(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createTable(t, us, "glob", false)
	createTable(t, srv.client("ap-south-1"), "glob", false)
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	create := func(r string) types.ReplicationGroupUpdate {
		return types.ReplicationGroupUpdate{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}
	}
	del := func(r string) types.ReplicationGroupUpdate {
		return types.ReplicationGroupUpdate{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(r)}}
	}
	tests := []struct {
		name    string
		in      dynamodb.UpdateTableInput
		code    string
		message string
	}{
		{"with another change", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-west-2")}, DeletionProtectionEnabled: aws.Bool(true)},
			"ValidationException", "One or more parameter values were invalid: Replica modification must be the only operation in the request"},
		{"two creates", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-west-2"), create("us-east-2")}},
			"ValidationException", "Update table operation with more than one create or delete replica actions not allowed"},
		{"create and delete", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-west-2"), del("eu-west-1")}},
			"ValidationException", "Update table operation with more than one type of replica actions not allowed"},
		{"no action", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{{}}},
			"ValidationException", "There are no actions specified in the Replica Update Action of the request."},
		{"update without settings", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: &types.UpdateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}},
			"ValidationException", "There are no actions specified in the Replica Update Action of the request."},
		{"local region", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-east-1")}},
			"ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."},
		{"existing replica", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("eu-west-1")}},
			"ValidationException", "Failed to create a the new replica of table with name: ‘glob’ because one or more replicas already existed as tables."},
		{"a regional table of that name", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("ap-south-1")}},
			"ValidationException", "Failed to create a the new replica of table with name: ‘glob’ because one or more replicas already existed as tables."},
		{"not a member", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{del("ca-central-1")}},
			"ValidationException", "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [ca-central-1]."},
		{"disabling the stream", dynamodb.UpdateTableInput{StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}},
			"ValidationException", "Disabling Stream is not allowed for a Global Table replica."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = aws.String("glob")
			_, err := us.UpdateTable(context.Background(), &in)
			wantAPIError(t, err, tc.code, tc.message)
		})
	}
	_, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-fake-1")}})
	var want = "Region us-fake-1 is not supported. The latest version of global tables are only supported in the following regions: ["
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unknown region: got %v, want a ValidationException starting %q", err, want)
	}
	if got := replicaStatuses(describe(t, eu, "glob")); len(got) != 1 {
		t.Errorf("eu-west-1 after the refusals: got replicas %v, want us-east-1 alone", got)
	}
}

// TestGlobalTableReplicatesWrites: items written before the replica exist
// are copied to it; later writes in either Region reach the other.
func TestGlobalTableReplicatesWrites(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createTable(t, us, "glob", false)
	put(t, us, "glob", "before", "1")
	addReplica(t, us, "glob", "eu-west-1")
	put(t, us, "glob", "a", "from-us")
	srv.settle(t)
	put(t, eu, "glob", "b", "from-eu")
	if _, err := us.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String("glob"), Key: map[string]types.AttributeValue{"pk": s("before")}}); err != nil {
		t.Fatal(err)
	}
	srv.settle(t)
	for _, c := range []struct {
		client *dynamodb.Client
		region string
	}{{us, "us-east-1"}, {eu, "eu-west-1"}} {
		for pk, want := range map[string]string{"before": "", "a": "from-us", "b": "from-eu"} {
			if got := value(t, c.client, "glob", pk); got != want {
				t.Errorf("%s %s: got %q, want %q", c.region, pk, got, want)
			}
		}
	}
}

// TestGlobalTableLag: with --replication-lag a write in us-east-1 is not
// in eu-west-1 before the lag, and is once it has passed or after settle.
func TestGlobalTableLag(t *testing.T) {
	srv := startGlobalServer(t, table.Options{ReplicationLag: consistency.Lag{Min: time.Minute, Max: time.Minute}})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createTable(t, us, "glob", false)
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	// The clock stands still: a write at the instant of a settle counts as settled.
	srv.clk.Advance(context.Background(), time.Millisecond)
	put(t, us, "glob", "a", "1")
	time.Sleep(300 * time.Millisecond) // several replicator ticks
	if got := value(t, eu, "glob", "a"); got != "" {
		t.Fatalf("eu-west-1 before the lag: got %q, want nothing", got)
	}
	rep := srv.replication(t, "", "")
	if len(rep.Links) != 2 {
		t.Fatalf("links: got %+v, want 2", rep.Links)
	}
	for _, l := range rep.Links {
		if l.Source == "us-east-1" && l.Backlog != 1 {
			t.Errorf("us-east-1 -> eu-west-1 backlog: got %d, want 1", l.Backlog)
		}
	}
	srv.clk.Advance(context.Background(), time.Minute)
	deadline := time.Now().Add(10 * time.Second)
	waitValue(t, eu, "a", "1", deadline, "eu-west-1 after the lag: the write never arrived")
	put(t, us, "glob", "b", "2")
	srv.settle(t)
	if got := value(t, eu, "glob", "b"); got != "2" {
		t.Errorf("eu-west-1 after settle: got %q, want 2", got)
	}
}

// TestGlobalTableConflictConverges writes one item in both Regions while
// they are cut off from each other: the later write wins in both, and the
// discarded one is reported.
func TestGlobalTableConflictConverges(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createTable(t, us, "glob", false)
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	if rep := srv.replication(t, "pause", "eu-west-1"); len(rep.PausedRegions) != 1 || !rep.Links[0].Paused || !rep.Links[1].Paused {
		t.Fatalf("after pause: %+v", rep)
	}
	put(t, eu, "glob", "k", "eu-first")
	srv.clk.Advance(context.Background(), time.Millisecond)
	put(t, us, "glob", "k", "us-later")
	srv.clk.Advance(context.Background(), time.Millisecond)
	put(t, us, "glob", "j", "us-first")
	srv.clk.Advance(context.Background(), time.Millisecond)
	put(t, eu, "glob", "j", "eu-later")
	srv.settle(t)
	if got := value(t, eu, "glob", "k"); got != "eu-first" {
		t.Fatalf("eu-west-1 while paused: got %q, want its own write", got)
	}
	srv.replication(t, "resume", "eu-west-1")
	srv.settle(t)
	for _, c := range []*dynamodb.Client{us, eu} {
		if k, j := value(t, c, "glob", "k"), value(t, c, "glob", "j"); k != "us-later" || j != "eu-later" {
			t.Errorf("after resume: k=%q j=%q, want us-later and eu-later in both Regions", k, j)
		}
	}
	rep := srv.replication(t, "", "")
	if len(rep.Conflicts) != 2 {
		t.Fatalf("conflicts: got %+v, want 2", rep.Conflicts)
	}
	for _, c := range rep.Conflicts {
		if c.Table != "glob" || c.Winner.Region == c.Loser.Region || !c.Winner.Time.After(c.Loser.Time) || c.Region != c.Winner.Region {
			t.Errorf("conflict: got %+v", c)
		}
	}
}

// TestGlobalTableStreams: each Region's stream carries that Region's view,
// replicated writes included.
func TestGlobalTableStreams(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createTable(t, us, "glob", false)
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	put(t, us, "glob", "a", "1")
	put(t, eu, "glob", "b", "2")
	srv.settle(t)
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		d := describe(t, srv.client(region), "glob")
		sc := dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(srv.URL), Region: region,
			Credentials: credentials.NewStaticCredentialsProvider(testKey, testSecret, ""), Retryer: closedConnRetryer()}, readOnlyStreamBodies)
		recs, _ := walkStream(t, sc, aws.ToString(d.LatestStreamArn))
		got := map[string]stypes.OperationType{}
		for _, r := range recs {
			if r.Dynamodb.NewImage == nil || r.Dynamodb.OldImage != nil && r.EventName == stypes.OperationTypeInsert {
				t.Errorf("%s record %+v: want NEW_AND_OLD_IMAGES of an insert", region, r.Dynamodb)
			}
			got[r.Dynamodb.Keys["pk"].(*stypes.AttributeValueMemberS).Value] = r.EventName
		}
		if len(recs) != 2 || got["a"] != stypes.OperationTypeInsert || got["b"] != stypes.OperationTypeInsert {
			t.Errorf("%s stream: got %d records %v, want inserts of a and b", region, len(recs), got)
		}
	}
}

// TestGlobalTableIndexes: a replica has the table's global index, and
// replicated writes (copied and later ones) reach it.
func TestGlobalTableIndexes(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	createGSITable(t, us, "glob")
	putG := func(c *dynamodb.Client, pk string) {
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "sk": s("x"), "g": s("G")}}); err != nil {
			t.Fatal(err)
		}
	}
	putG(us, "copied")
	addReplica(t, us, "glob", "eu-west-1")
	putG(us, "later")
	putG(eu, "local")
	srv.settle(t)
	for region, c := range map[string]*dynamodb.Client{"us-east-1": us, "eu-west-1": eu} {
		if n := gsiCount(t, c, "glob", "G"); n != 3 {
			t.Errorf("%s: byG has %d items under G, want 3", region, n)
		}
	}
}

// TestGlobalTableResumesAfterRestart: writes made while a Region is cut off
// wait in the change log across a restart, and replicate once the server
// is back.
func TestGlobalTableResumesAfterRestart(t *testing.T) {
	path := t.TempDir() + "/ddblocal.db"
	start := func() (*table.Service, *httptest.Server, *store.DB) {
		db, err := store.Open(store.Options{Path: path, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		svc := table.New(db, table.Options{})
		v := testVerifier()
		cfg := api.Config{Addr: "localhost:8000", Verifier: v, Admin: admin.Handler(admin.Config{Settle: svc.Settle, Replication: svc, Verifier: v})}
		return svc, httptest.NewServer(api.NewHandler(cfg, api.Operations(svc))), db
	}
	svc, ts, db := start()
	srv := &gtServer{server: &server{URL: ts.URL, svc: svc}}
	us := srv.client("us-east-1")
	createTable(t, us, "glob", false)
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	srv.replication(t, "pause", "eu-west-1")
	put(t, us, "glob", "a", "1")
	put(t, srv.client("eu-west-1"), "glob", "b", "2")
	ts.Close()
	svc.Close()
	db.Close()

	svc, ts, db = start()
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	srv = &gtServer{server: &server{URL: ts.URL, svc: svc}}
	srv.settle(t)
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		c := srv.client(region)
		if a, b := value(t, c, "glob", "a"), value(t, c, "glob", "b"); a != "1" || b != "2" {
			t.Errorf("%s after restart: a=%q b=%q, want 1 and 2", region, a, b)
		}
	}
}

// strongTable makes glob in us-east-1 a STRONG global table with replicas
// in us-east-2 and us-west-2.
func strongTable(t testing.TB, srv *gtServer) {
	t.Helper()
	us := srv.client("us-east-1")
	createTable(t, us, "glob", false)
	out, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}})
	if err != nil {
		t.Fatalf("UpdateTable STRONG: %v", err)
	}
	if out.TableDescription.MultiRegionConsistency != types.MultiRegionConsistencyStrong {
		t.Errorf("UpdateTable answer: MultiRegionConsistency %q, want STRONG", out.TableDescription.MultiRegionConsistency)
	}
	srv.settle(t)
}

// TestStrongGlobalTableReadsAndConflicts: an acknowledged write is read at
// once in every Region; a write to an item another Region's write is still
// replicating is refused with ReplicatedWriteConflictException.
func TestStrongGlobalTableReadsAndConflicts(t *testing.T) {
	srv := startGlobalServer(t, table.Options{ReplicationLag: consistency.Lag{Min: time.Second, Max: time.Second}})
	strongTable(t, srv)
	us, east2, west2 := srv.client("us-east-1"), srv.client("us-east-2"), srv.client("us-west-2")
	for region, c := range map[string]*dynamodb.Client{"us-east-2": east2, "us-west-2": west2} {
		d := describe(t, c, "glob")
		if d.MultiRegionConsistency != types.MultiRegionConsistencyStrong || len(d.Replicas) != 2 {
			t.Errorf("%s: consistency %q replicas %v, want STRONG with 2", region, d.MultiRegionConsistency, replicaStatuses(d))
		}
	}
	srv.clk.Advance(context.Background(), time.Millisecond) // after the settle
	done := make(chan error, 1)
	go func() {
		_, err := us.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
			Item: map[string]types.AttributeValue{"pk": s("k"), "v": s("us")}})
		done <- err
	}()
	// The write is in us-east-1 and waits for the lag before it is acknowledged.
	deadline := time.Now().Add(10 * time.Second)
	waitValue(t, us, "k", "us", deadline, "the us-east-1 write never committed")
	_, err := east2.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
		Item: map[string]types.AttributeValue{"pk": s("k"), "v": s("east2")}})
	wantAPIError(t, err, "ReplicatedWriteConflictException", "The request was rejected because one or more items in the request are being modified by a request in another Region.")
	go func() { // another item is not in conflict (it too waits for the lag)
		_, err := west2.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
			Item: map[string]types.AttributeValue{"pk": s("other"), "v": s("fine")}})
		done <- err
	}()
	waitValue(t, west2, "other", "fine", deadline, "the us-west-2 write never committed")
	srv.clk.Advance(context.Background(), time.Second)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("a write waiting for the lag: %v", err)
		}
	}
	for region, c := range map[string]*dynamodb.Client{"us-east-2": east2, "us-west-2": west2} {
		if got := value(t, c, "glob", "k"); got != "us" {
			t.Errorf("%s right after the acknowledged write: got %q, want us", region, got)
		}
	}
	srv.clk.Advance(context.Background(), time.Millisecond)
	go func() { // no longer in conflict
		_, err := east2.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
			Item: map[string]types.AttributeValue{"pk": s("k"), "v": s("east2")}})
		done <- err
	}()
	waitValue(t, east2, "k", "east2", deadline, "the last us-east-2 write never committed")
	srv.clk.Advance(context.Background(), time.Second)
	if err := <-done; err != nil {
		t.Fatalf("the last us-east-2 write: %v", err)
	}
}

func TestStrongGlobalTableRefusals(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us := srv.client("us-east-1")
	createTable(t, us, "solo", false)
	create := func(r string) types.ReplicationGroupUpdate {
		return types.ReplicationGroupUpdate{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}
	}
	del := func(r string) types.ReplicationGroupUpdate {
		return types.ReplicationGroupUpdate{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(r)}}
	}
	witness := func(r string) []types.GlobalTableWitnessGroupUpdate {
		return []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String(r)}}}
	}
	strongTable(t, srv)
	tests := []struct {
		name, table string
		in          dynamodb.UpdateTableInput
		message     string
	}{
		{"one replica", "solo", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyStrong, ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-east-2")}},
			"Unsupported replica count for global tables with MultiRegionConsistency set to STRONG."},
		{"witness without STRONG", "solo", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-east-2")}, GlobalTableWitnessUpdates: witness("us-west-2")},
			"MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present."},
		{"witness in the table's Region", "solo", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyStrong, ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-east-2")}, GlobalTableWitnessUpdates: witness("us-east-1")},
			"Cannot add a witness in the same region as an existing replica when creating a global table with MultiRegionConsistency set to STRONG."},
		{"witness in a replica's Region", "solo", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyStrong, ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-east-2")}, GlobalTableWitnessUpdates: witness("us-east-2")},
			"Cannot target multiple regions with the same action"},
		{"a Region without MRSC", "solo", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyStrong, ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-west-1"), create("us-east-2")}},
			"Unsupported Region(s) specified for global tables with MultiRegionConsistency set to STRONG: [us-west-1]."},
		{"with another change", "solo", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyStrong, ReplicaUpdates: []types.ReplicationGroupUpdate{create("us-east-2")}, DeletionProtectionEnabled: aws.Bool(true)},
			"Requests that modify replicas or witnesses must not also modify other fields"},
		{"adding to STRONG", "glob", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{create("eu-west-1")}},
			"Cannot add replicas to a global table with strong MultiRegionConsistency"},
		{"deleting one replica", "glob", dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{del("us-east-2")}},
			"Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG."},
		{"EVENTUAL on STRONG", "glob", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyEventual, ReplicaUpdates: []types.ReplicationGroupUpdate{create("eu-west-1")}},
			"MultiRegionConsistency parameter is unsupported on existing global table"},
		{"STRONG with a Delete", "glob", dynamodb.UpdateTableInput{MultiRegionConsistency: types.MultiRegionConsistencyStrong, ReplicaUpdates: []types.ReplicationGroupUpdate{del("us-east-2")}},
			"Only Replica Create actions are supported when MultiRegionConsistency parameter is provided."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = aws.String(tc.table)
			_, err := us.UpdateTable(context.Background(), &in)
			wantAPIError(t, err, "ValidationException", tc.message)
		})
	}
	_, err := srv.client("us-west-2").DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String("glob")})
	wantAPIError(t, err, "ValidationException", "Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG.")
	// The teardown deletes every replica in one call.
	if _, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{del("us-east-2"), del("us-west-2")}}); err != nil {
		t.Fatalf("teardown: %v", err)
	}
	if d := describe(t, us, "glob"); d.MultiRegionConsistency != "" || len(d.Replicas) != 0 {
		t.Errorf("after the teardown: consistency %q replicas %v, want a regional table", d.MultiRegionConsistency, d.Replicas)
	}
}

// TestStrongGlobalTableWitness: a replica and a witness make a STRONG
// global table; the teardown must delete the witness too.
func TestStrongGlobalTableWitness(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us := srv.client("us-east-1")
	createTable(t, us, "glob", false)
	_, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		MultiRegionConsistency:    types.MultiRegionConsistencyStrong,
		ReplicaUpdates:            []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}},
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-east-2")}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The replica stays CREATING until its initial copy is in, and a replica
	// change meanwhile is ResourceInUse (as in DynamoDB): wait for it.
	srv.settle(t)
	d := describe(t, srv.client("eu-west-1"), "glob")
	if len(d.GlobalTableWitnesses) != 1 || aws.ToString(d.GlobalTableWitnesses[0].RegionName) != "us-east-2" || d.GlobalTableWitnesses[0].WitnessStatus != types.WitnessStatusActive {
		t.Errorf("witnesses in eu-west-1: got %+v, want us-east-2 ACTIVE", d.GlobalTableWitnesses)
	}
	delReplica := []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}
	_, err = us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: delReplica})
	wantAPIError(t, err, "ValidationException", "Update table delete operation does not include all witnesses.")
	if _, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: delReplica,
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Delete: &types.DeleteGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-east-2")}}}}); err != nil {
		t.Fatalf("teardown: %v", err)
	}
	if d := describe(t, us, "glob"); d.MultiRegionConsistency != "" || len(d.GlobalTableWitnesses) != 0 {
		t.Errorf("after the teardown: %q %v, want a regional table", d.MultiRegionConsistency, d.GlobalTableWitnesses)
	}
}

// TestLegacyGlobalTableAPI: DynamoDB no longer makes version 2017.11.29
// global tables; its operations answer as the service does today.
func TestLegacyGlobalTableAPI(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us := srv.client("us-east-1")
	createTable(t, us, "glob", false)
	addReplica(t, us, "glob", "eu-west-1") // a 2019.11.21 global table is no legacy one
	ctx := context.Background()
	const refused = "One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy)."
	_, err := us.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("glob"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String("us-east-1")}, {RegionName: aws.String("eu-west-1")}}})
	wantAPIError(t, err, "ValidationException", refused)
	_, err = us.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String("ap-south-1")}}}})
	wantAPIError(t, err, "ValidationException", refused)
	_, err = us.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicaUpdate{{Delete: &types.DeleteReplicaAction{RegionName: aws.String("eu-west-1")}}}})
	var nf *types.GlobalTableNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("UpdateGlobalTable Delete: got %v, want GlobalTableNotFoundException", err)
	}
	_, err = us.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("glob")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table not found: Global table with name: 'glob' does not exist.")
	_, err = us.DescribeGlobalTableSettings(ctx, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String("glob")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name: 'glob' does not exist.")
	_, err = us.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("glob"),
		GlobalTableBillingMode: types.BillingModePayPerRequest})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name: 'glob' does not exist.")
	list, err := us.ListGlobalTables(ctx, &dynamodb.ListGlobalTablesInput{})
	if err != nil || len(list.GlobalTables) != 0 || list.LastEvaluatedGlobalTableName != nil {
		t.Errorf("ListGlobalTables: got %+v, %v, want none", list, err)
	}
}

func TestDescribeTableReplicaAutoScaling(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us := srv.client("us-east-1")
	createTable(t, us, "glob", false)
	ctx := context.Background()
	_, err := us.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("glob")})
	wantAPIError(t, err, "ResourceNotFoundException", "Global table with name: 'glob' does not exist.")
	addReplica(t, us, "glob", "us-west-2")
	// The first replica must be ACTIVE before the next is added, as in
	// DynamoDB (ResourceInUseException otherwise): on a busy machine its
	// initial copy may still run here.
	srv.settle(t)
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	out, err := us.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("glob")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.TableAutoScalingDescription.Replicas {
		got = append(got, aws.ToString(r.RegionName)+" "+string(r.ReplicaStatus))
	}
	if want := []string{"eu-west-1 ACTIVE", "us-east-1 ACTIVE", "us-west-2 ACTIVE"}; !slices.Equal(got, want) {
		t.Errorf("replicas: got %v, want %v", got, want)
	}
}

// waitValue waits until item pk of glob reads want through c, failing with
// what when deadline passes first.
func waitValue(t testing.TB, c *dynamodb.Client, pk, want string, deadline time.Time, what string) {
	t.Helper()
	for value(t, c, "glob", pk) != want {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
