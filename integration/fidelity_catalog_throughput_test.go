package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// throughputUpdate is GlobalSecondaryIndexUpdates with one Update of index
// name to r/w provisioned units.
func throughputUpdate(name string, r, w int64) []types.GlobalSecondaryIndexUpdate {
	return []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(name),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}}}}
}

// indexThroughput is the provisioned read and write units DescribeTable
// reports for a table's first global index.
func indexThroughput(t *testing.T, c *dynamodb.Client, name string) (int64, int64) {
	t.Helper()
	g := describeIndexes(t, c, name).GlobalSecondaryIndexes
	if len(g) == 0 || g[0].ProvisionedThroughput == nil {
		t.Fatalf("%s: no global index throughput described", name)
	}
	return aws.ToInt64(g[0].ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(g[0].ProvisionedThroughput.WriteCapacityUnits)
}

// TestIndexThroughputOnDemand: on a PAY_PER_REQUEST table an index Update
// may only change OnDemandThroughput or WarmThroughput; one with
// ProvisionedThroughput, an empty OnDemandThroughput or nothing is refused
// in the service's words (ack-api-quirks DDB-TABLE-152 and DDB-TABLE-456,
// recorded from DynamoDB), as is an empty WarmThroughput.
func TestIndexThroughputOnDemand(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "OnDemandIx", false, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeAll)}, nil)
	const only = invalidPrefix + "The only Updates for index: byG when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"
	update := func(u types.UpdateGlobalSecondaryIndexAction) []types.GlobalSecondaryIndexUpdate {
		u.IndexName = aws.String("byG")
		return []types.GlobalSecondaryIndexUpdate{{Update: &u}}
	}
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	for _, tc := range []struct {
		name string
		in   dynamodb.UpdateTableInput
		want string
	}{
		{"provisioned throughput", dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: update(types.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt})}, only},
		{"empty on-demand throughput", dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: update(types.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: &types.OnDemandThroughput{}})}, only},
		{"nothing", dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: update(types.UpdateGlobalSecondaryIndexAction{})}, only},
		{"empty warm throughput", dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: update(types.UpdateGlobalSecondaryIndexAction{WarmThroughput: &types.WarmThroughput{}})},
			invalidPrefix + "WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: byG"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = aws.String("OnDemandIx")
			_, err := c.UpdateTable(ctx, &in, unvalidated) // as a client that does not check sends it
			wantAPIError(t, err, "ValidationException", tc.want)
		})
	}
	// What an on-demand index may change: its on-demand maximum, its warm throughput.
	for _, u := range []types.UpdateGlobalSecondaryIndexAction{
		{OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(50)}},
		{WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(13000)}},
	} {
		if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("OnDemandIx"), GlobalSecondaryIndexUpdates: update(u)}); err != nil {
			t.Fatalf("update %+v: %v", u, err)
		}
	}
	g := describeIndexes(t, c, "OnDemandIx").GlobalSecondaryIndexes
	if len(g) != 1 || g[0].OnDemandThroughput == nil || aws.ToInt64(g[0].OnDemandThroughput.MaxReadRequestUnits) != 50 {
		t.Errorf("after the on-demand update: got %+v, want MaxReadRequestUnits 50", g)
	}
}

// TestIndexThroughputProvisioned: on a PROVISIONED table an index Update
// to the throughput it has is refused as the table's is (ack-api-quirks
// DDB-TABLE-164 records the text to "Current WriteCapacityUnits ..."; the
// rest follows the table's message), one that changes a single unit is
// taken; a new index without throughput is refused in UpdateTable's words
// (DDB-TABLE-152); a WarmThroughput with the Create is refused
// (DDB-TABLE-174).
func TestIndexThroughputProvisioned(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	pt := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("ProvIx"), ProvisionedThroughput: pt(1, 1),
		AttributeDefinitions: catalogDefs("pk", "g"), KeySchema: catalogKeys("pk", "HASH"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi1"), KeySchema: catalogKeys("g", "HASH"),
			Projection: catalogAll, ProvisionedThroughput: pt(2, 2)}}})
	if err != nil {
		t.Fatal(err)
	}
	update := func(in dynamodb.UpdateTableInput) error {
		in.TableName = aws.String("ProvIx")
		_, err := c.UpdateTable(ctx, &in)
		return err
	}
	wantAPIError(t, update(dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: throughputUpdate("gsi1", 2, 2)}), "ValidationException",
		"The provisioned throughput for the index gsi1 will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index gsi1: 2. Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index gsi1: 2. Requested WriteCapacityUnits: 2. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	if err := update(dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: throughputUpdate("gsi1", 2, 3)}); err != nil {
		t.Fatalf("one unit changed: %v", err)
	}
	if r, w := indexThroughput(t, c, "ProvIx"); r != 2 || w != 3 {
		t.Errorf("index throughput: got %d/%d, want 2/3", r, w)
	}
	create := func(p *types.ProvisionedThroughput) []types.GlobalSecondaryIndexUpdate {
		return []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("gsi-nopt"),
			KeySchema: catalogKeys("h", "HASH"), Projection: catalogAll, ProvisionedThroughput: p}}}
	}
	wantAPIError(t, update(dynamodb.UpdateTableInput{AttributeDefinitions: catalogDefs("h"), GlobalSecondaryIndexUpdates: create(nil)}), "ValidationException",
		invalidPrefix+"Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: gsi-nopt")
	wantAPIError(t, update(dynamodb.UpdateTableInput{AttributeDefinitions: catalogDefs("h"), GlobalSecondaryIndexUpdates: create(pt(1, 1)),
		WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(13000)}}), "ValidationException",
		invalidPrefix+"Create global secondary index cannot be specified when updating WarmThroughput")
	if g := describeIndexes(t, c, "ProvIx").GlobalSecondaryIndexes; len(g) != 1 {
		t.Errorf("after the refused creates: got %d indexes, want 1", len(g))
	}
}

// TestIndexThroughputBillingSwitch: switching a table with a global index
// from PAY_PER_REQUEST to PROVISIONED needs the index's throughput in the
// same request; nothing is assigned to it (ack-api-quirks DDB-TABLE-152,
// recorded from DynamoDB). Switching back drops it, and may not name it.
func TestIndexThroughputBillingSwitch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "SwitchIx", false, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("gsi1", []string{"g"}, nil, types.ProjectionTypeAll)}, nil)
	table := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(50), WriteCapacityUnits: aws.Int64(50)}
	update := func(in dynamodb.UpdateTableInput) error {
		in.TableName = aws.String("SwitchIx")
		_, err := c.UpdateTable(ctx, &in)
		return err
	}
	// On-demand maximums for the table and the index, dropped by the
	// switch and not back after it (DDB-TABLE-153).
	if err := update(dynamodb.UpdateTableInput{OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100)}}); err != nil {
		t.Fatal(err)
	}
	if err := update(dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
		IndexName: aws.String("gsi1"), OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(50)}}}}}); err != nil {
		t.Fatal(err)
	}
	maximums := func() string {
		d := describeIndexes(t, c, "SwitchIx")
		return fmt.Sprintf("table %v, index %v", d.OnDemandThroughput != nil, d.GlobalSecondaryIndexes[0].OnDemandThroughput != nil)
	}
	if got := maximums(); got != "table true, index true" {
		t.Fatalf("on-demand maximums before the switch: %s", got)
	}
	wantAPIError(t, update(dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned, GlobalSecondaryIndexUpdates: throughputUpdate("gsi1", 5, 6)}),
		"ValidationException", invalidPrefix+"ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	wantAPIError(t, update(dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: table}),
		"ValidationException", invalidPrefix+"ProvisionedThroughput must be specified for index: gsi1")
	if d := describeIndexes(t, c, "SwitchIx"); d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Fatalf("after the refusals: got %+v, want still PAY_PER_REQUEST", d.BillingModeSummary)
	}
	if err := update(dynamodb.UpdateTableInput{BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: table,
		GlobalSecondaryIndexUpdates: throughputUpdate("gsi1", 5, 6)}); err != nil {
		t.Fatalf("switch with the index's throughput: %v", err)
	}
	if r, w := indexThroughput(t, c, "SwitchIx"); r != 5 || w != 6 {
		t.Errorf("index throughput after the switch: got %d/%d, want 5/6", r, w)
	}
	if got := maximums(); got != "table false, index false" {
		t.Errorf("on-demand maximums after the switch: %s, want none", got)
	}
	// ddblocal's reading of a recorded text whose request is not recorded
	// (docs/differences-from-dynamodb.md).
	wantAPIError(t, update(dynamodb.UpdateTableInput{BillingMode: types.BillingModePayPerRequest, GlobalSecondaryIndexUpdates: throughputUpdate("gsi1", 7, 7)}),
		"ValidationException", invalidPrefix+"Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: gsi1 when BillingMode is PAY_PER_REQUEST")
	if err := update(dynamodb.UpdateTableInput{BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatalf("back on demand: %v", err)
	}
	if r, w := indexThroughput(t, c, "SwitchIx"); r != 0 || w != 0 {
		t.Errorf("index throughput back on demand: got %d/%d, want 0/0", r, w)
	}
	if got := maximums(); got != "table false, index false" {
		t.Errorf("on-demand maximums back on demand: %s, want none", got)
	}
}

// TestOnDemandThroughputMessages: OnDemandThroughput members a table may
// not take, refused in the service's words (ack-api-quirks DDB-TABLE-039,
// -051, -059 and -153, recorded from DynamoDB): any member on a
// PROVISIONED table; 0 or below -1 (and -1 at CreateTable) elsewhere,
// the read member named first.
func TestOnDemandThroughputMessages(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	odt := func(r, w *int64) *types.OnDemandThroughput {
		return &types.OnDemandThroughput{MaxReadRequestUnits: r, MaxWriteRequestUnits: w}
	}
	const (
		readRange  = invalidPrefix + "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range"
		writeRange = invalidPrefix + "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range"
		readProv   = invalidPrefix + "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"
		writeProv  = invalidPrefix + "MaxWriteRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"
	)
	for _, tc := range []struct {
		name string
		in   dynamodb.CreateTableInput
		want string
	}{
		{"zero", onDemand(dynamodb.CreateTableInput{OnDemandThroughput: odt(aws.Int64(0), aws.Int64(0))}), readRange},
		{"minus one", onDemand(dynamodb.CreateTableInput{OnDemandThroughput: odt(aws.Int64(-1), aws.Int64(-1))}), readRange},
		{"minus two", onDemand(dynamodb.CreateTableInput{OnDemandThroughput: odt(aws.Int64(-2), aws.Int64(-2))}), readRange},
		{"write zero", onDemand(dynamodb.CreateTableInput{OnDemandThroughput: odt(aws.Int64(5), aws.Int64(0))}), writeRange},
		{"provisioned, read", dynamodb.CreateTableInput{TableName: aws.String("Refused"), ProvisionedThroughput: catalogPT, OnDemandThroughput: odt(aws.Int64(5), nil)}, readProv},
		{"provisioned, write", dynamodb.CreateTableInput{TableName: aws.String("Refused"), ProvisionedThroughput: catalogPT, OnDemandThroughput: odt(nil, aws.Int64(5))}, writeProv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.AttributeDefinitions, in.KeySchema = catalogDefs("pk"), catalogKeys("pk", "HASH")
			_, err := c.CreateTable(ctx, &in)
			wantAPIError(t, err, "ValidationException", tc.want)
		})
	}
	createTable(t, c, "Capped", false)
	createProvisioned(t, c, "Prov", 1)
	update := func(name string, o *types.OnDemandThroughput) error {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: o})
		return err
	}
	wantAPIError(t, update("Capped", odt(nil, aws.Int64(0))), "ValidationException", writeRange)
	wantAPIError(t, update("Capped", odt(aws.Int64(-2), nil)), "ValidationException", readRange)
	wantAPIError(t, update("Prov", odt(aws.Int64(100), nil)), "ValidationException", readProv)
	for _, o := range []*types.OnDemandThroughput{odt(aws.Int64(1000), aws.Int64(500)), odt(nil, aws.Int64(-1))} {
		if err := update("Capped", o); err != nil {
			t.Fatalf("UpdateTable OnDemandThroughput %+v: %v", *o, err)
		}
	}
	// The member not given stays (DDB-TABLE-051).
	if o := describeIndexes(t, c, "Capped").OnDemandThroughput; o == nil || aws.ToInt64(o.MaxReadRequestUnits) != 1000 || aws.ToInt64(o.MaxWriteRequestUnits) != -1 {
		t.Errorf("OnDemandThroughput after setting the write member: got %+v, want 1000/-1", o)
	}
}

// TestEmptyIndexUpdateList: an empty GlobalSecondaryIndexUpdates counts as
// absent when nothing else is asked, and with any change is refused, the
// change not made (ack-api-quirks DDB-TABLE-359, recorded from DynamoDB).
func TestEmptyIndexUpdateList(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "EmptyList", false)
	update := func(in dynamodb.UpdateTableInput) error {
		in.TableName, in.GlobalSecondaryIndexUpdates = aws.String("EmptyList"), []types.GlobalSecondaryIndexUpdate{}
		_, err := c.UpdateTable(ctx, &in)
		return err
	}
	wantAPIError(t, update(dynamodb.UpdateTableInput{}), "ValidationException",
		"At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	for _, in := range []dynamodb.UpdateTableInput{{DeletionProtectionEnabled: aws.Bool(true)}, {BillingMode: types.BillingModePayPerRequest},
		{OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(10)}}} {
		wantAPIError(t, update(in), "ValidationException", invalidPrefix+"List of GlobalSecondaryIndexUpdates is empty")
	}
	if d := describeIndexes(t, c, "EmptyList"); aws.ToBool(d.DeletionProtectionEnabled) || d.OnDemandThroughput != nil {
		t.Errorf("after the refusals: got deletion protection %v, on-demand %+v; want neither", aws.ToBool(d.DeletionProtectionEnabled), d.OnDemandThroughput)
	}
}

// TestCreateTableWarmThroughput: CreateTable refuses a WarmThroughput
// below what the new table serves anyway (ack-api-quirks DDB-TABLE-039,
// recorded from DynamoDB for the read member): an on-demand table's
// initial 12000 reads and 4000 writes per second, a provisioned table's
// capacity; one member above it is taken.
func TestCreateTableWarmThroughput(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	warm := func(r, w *int64) *types.WarmThroughput {
		return &types.WarmThroughput{ReadUnitsPerSecond: r, WriteUnitsPerSecond: w}
	}
	ten := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(10)}
	const doc = " See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial"
	create := func(name string, pt *types.ProvisionedThroughput, w *types.WarmThroughput) error {
		in := &dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: catalogDefs("pk"), KeySchema: catalogKeys("pk", "HASH"),
			ProvisionedThroughput: pt, WarmThroughput: w}
		if pt == nil {
			in.BillingMode = types.BillingModePayPerRequest
		}
		_, err := c.CreateTable(ctx, in)
		return err
	}
	wantAPIError(t, create("Refused", nil, warm(aws.Int64(1), aws.Int64(1))), "ValidationException",
		invalidPrefix+"Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand."+doc)
	// 0 and -1 are no member constraint's: the same refusal (DDB-TABLE-039, -457).
	for _, n := range []int64{0, -1} {
		wantAPIError(t, create("Refused", nil, warm(aws.Int64(n), aws.Int64(n))), "ValidationException",
			invalidPrefix+"Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand."+doc)
	}
	wantAPIError(t, create("Refused", nil, warm(nil, aws.Int64(3999))), "ValidationException",
		invalidPrefix+"Requested WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand."+doc)
	wantAPIError(t, create("Refused", ten, warm(aws.Int64(5), aws.Int64(5))), "ValidationException",
		invalidPrefix+"Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput")
	if err := create("WarmRead", nil, warm(aws.Int64(12001), nil)); err != nil {
		t.Fatalf("on demand, 12001 reads: %v", err)
	}
	if w := describeIndexes(t, c, "WarmRead").WarmThroughput; w == nil || aws.ToInt64(w.ReadUnitsPerSecond) != 12001 || aws.ToInt64(w.WriteUnitsPerSecond) != 4000 {
		t.Errorf("WarmThroughput: got %+v, want 12001/4000", w)
	}
	if err := create("WarmProv", ten, warm(aws.Int64(10), aws.Int64(20))); err != nil {
		t.Fatalf("provisioned 10/10, warm 10/20: %v", err)
	}
}
