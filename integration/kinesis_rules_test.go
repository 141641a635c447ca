package integration

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/kinesis"
	"github.com/ddblocal/ddblocal/table"
)

// fakeKinesis is a Kinesis endpoint in memory: the streams it has (by
// name) and the records put to them.
type fakeKinesis struct {
	mu      sync.Mutex
	streams map[string]string // name → StreamStatus
	put     map[string][]kinesis.Entry
}

func (f *fakeKinesis) StreamStatus(_ context.Context, s kinesis.StreamARN) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.streams[s.Name]
	if !ok {
		return "", &kinesis.APIError{Status: 400, Code: "ResourceNotFoundException", Message: "Stream " + s.Name + " not found"}
	}
	return st, nil
}

func (f *fakeKinesis) PutRecords(_ context.Context, s kinesis.StreamARN, entries []kinesis.Entry) ([]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.put[s.Name] = append(f.put[s.Name], entries...)
	return nil, nil
}

// Kinesis's messages, as DynamoDB words them (captured from the service,
// 2026-10: every refusal of a destination's state starts with the same
// "enable" clause, whichever operation it refuses).
const (
	kdsEnableState  = "Table is not in a valid state to enable Kinesis Streaming Destination: EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation."
	kdsDisableState = "Table is not in a valid state to enable Kinesis Streaming Destination: KinesisStreamingDestination must be ACTIVE to perform DISABLE operation."
	kdsArnA         = "arn:aws:kinesis:us-east-1:000000000000:stream/kds-a"
	kdsArnB         = "arn:aws:kinesis:us-east-1:000000000000:stream/kds-b"
	kdsArnMissing   = "arn:aws:kinesis:us-east-1:000000000000:stream/kds-missing"
	kdsArnWest      = "arn:aws:kinesis:us-west-2:000000000000:stream/kds-a"
)

// waitDestination polls DescribeKinesisStreamingDestination until stream
// arn's destination leaves status from, and returns it.
func waitDestination(t *testing.T, c *dynamodb.Client, tableName, arn, from string) types.KinesisDataStreamDestination {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := c.DescribeKinesisStreamingDestination(context.Background(), &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(tableName)})
		if err != nil {
			t.Fatalf("DescribeKinesisStreamingDestination: %v", err)
		}
		for _, d := range out.KinesisDataStreamDestinations {
			if aws.ToString(d.StreamArn) == arn && string(d.DestinationStatus) != from {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("destination %s still %s (or missing) after 10 s: %+v", arn, from, out.KinesisDataStreamDestinations)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kds is a table "Kds" on a server whose Kinesis endpoint is fk, with
// the destination operations on it.
type kds struct {
	t  *testing.T
	c  *dynamodb.Client
	fk *fakeKinesis
}

func newKDS(t *testing.T) *kds {
	fk := &fakeKinesis{streams: map[string]string{"kds-a": "ACTIVE", "kds-b": "ACTIVE"}, put: map[string][]kinesis.Entry{}}
	c := startServer(t, table.Options{Kinesis: fk}).client("us-east-1")
	createTable(t, c, "Kds", false)
	return &kds{t: t, c: c, fk: fk}
}

func (k *kds) enable(arn string, conf *types.EnableKinesisStreamingConfiguration) (*dynamodb.EnableKinesisStreamingDestinationOutput, error) {
	return k.c.EnableKinesisStreamingDestination(context.Background(), &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("Kds"), StreamArn: aws.String(arn), EnableKinesisStreamingConfiguration: conf})
}

func (k *kds) disable(arn string) error {
	_, err := k.c.DisableKinesisStreamingDestination(context.Background(), &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("Kds"), StreamArn: aws.String(arn)})
	return err
}

func (k *kds) update(arn string, p types.ApproximateCreationDateTimePrecision) (*dynamodb.UpdateKinesisStreamingDestinationOutput, error) {
	in := &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("Kds"), StreamArn: aws.String(arn)}
	if p != "" {
		in.UpdateKinesisStreamingConfiguration = &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: p}
	}
	return k.c.UpdateKinesisStreamingDestination(context.Background(), in)
}

// active enables arn and waits until it is ACTIVE.
func (k *kds) active(arn string) {
	k.t.Helper()
	if _, err := k.enable(arn, nil); err != nil {
		k.t.Fatal(err)
	}
	if d := waitDestination(k.t, k.c, "Kds", arn, "ENABLING"); d.DestinationStatus != types.DestinationStatusActive || d.ApproximateCreationDateTimePrecision != "" {
		k.t.Fatalf("%s: got %s precision %q, want ACTIVE with no precision shown", arn, d.DestinationStatus, d.ApproximateCreationDateTimePrecision)
	}
}

// TestKinesisDestinationEnableFailed: a stream the endpoint does not have,
// or another Region's, is accepted (ENABLING) and then fails with the
// service's description; a failed destination cannot be updated or
// disabled.
func TestKinesisDestinationEnableFailed(t *testing.T) {
	k := newKDS(t)
	out, err := k.enable(kdsArnMissing, nil)
	if err != nil || out.DestinationStatus != types.DestinationStatusEnabling || out.EnableKinesisStreamingConfiguration == nil || aws.ToString(out.TableName) != "Kds" {
		t.Fatalf("Enable unknown stream: got %+v, %v; want ENABLING with an empty configuration", out, err)
	}
	d := waitDestination(t, k.c, "Kds", kdsArnMissing, "ENABLING")
	if d.DestinationStatus != types.DestinationStatusEnableFailed || aws.ToString(d.DestinationStatusDescription) != kinesis.DescNoPermission {
		t.Fatalf("unknown stream: got %s %q, want ENABLE_FAILED %q", d.DestinationStatus, aws.ToString(d.DestinationStatusDescription), kinesis.DescNoPermission)
	}
	if _, err := k.enable(kdsArnWest, nil); err != nil {
		t.Fatal(err)
	}
	if d := waitDestination(t, k.c, "Kds", kdsArnWest, "ENABLING"); aws.ToString(d.DestinationStatusDescription) != kinesis.DescOtherRegion {
		t.Fatalf("other Region: got %s %q", d.DestinationStatus, aws.ToString(d.DestinationStatusDescription))
	}
	_, err = k.update(kdsArnMissing, types.ApproximateCreationDateTimePrecisionMicrosecond)
	wantAPIError(t, err, "ValidationException",
		"Table is not in a valid state to enable Kinesis Streaming Destination: Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. TableName: Kds")
	wantAPIError(t, k.disable(kdsArnMissing), "ValidationException", kdsDisableState)
	// Without a Kinesis endpoint, no stream can be found.
	c := startServer(t, table.Options{}).client("us-east-1")
	createTable(t, c, "Kds", false)
	if _, err := c.EnableKinesisStreamingDestination(context.Background(), &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("Kds"), StreamArn: aws.String(kdsArnA)}); err != nil {
		t.Fatal(err)
	}
	if d := waitDestination(t, c, "Kds", kdsArnA, "ENABLING"); aws.ToString(d.DestinationStatusDescription) != kinesis.DescNoPermission {
		t.Fatalf("no endpoint: got %s %q", d.DestinationStatus, aws.ToString(d.DestinationStatusDescription))
	}
}

// TestKinesisDestinationEnableAndUpdate: enabling while a destination is
// ACTIVE is refused, for it or another stream; Update's refusals, then a
// real precision change.
func TestKinesisDestinationEnableAndUpdate(t *testing.T) {
	k := newKDS(t)
	k.active(kdsArnA)
	_, err := k.enable(kdsArnA, nil)
	wantAPIError(t, err, "ValidationException", kdsEnableState)
	_, err = k.enable(kdsArnB, &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond})
	wantAPIError(t, err, "ValidationException", kdsEnableState)

	_, err = k.update(kdsArnA, "")
	wantAPIError(t, err, "ValidationException", "Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
	_, err = k.update(kdsArnB, types.ApproximateCreationDateTimePrecisionMicrosecond)
	wantAPIError(t, err, "ValidationException", "Table is not in a valid state to enable Kinesis Streaming Destination: No streaming destination with streamArn: "+kdsArnB)
	desc, err := k.c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("Kds")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.update(kdsArnA, types.ApproximateCreationDateTimePrecisionMillisecond)
	wantAPIError(t, err, "ValidationException",
		"Invalid Request: Precision is already set to the desired value of MILLISECOND for tableId: "+aws.ToString(desc.Table.TableId)+", kdsArn: "+kdsArnA)
	up, err := k.update(kdsArnA, types.ApproximateCreationDateTimePrecisionMicrosecond)
	if err != nil || up.DestinationStatus != types.DestinationStatusUpdating || up.UpdateKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("Update: got %+v, %v; want UPDATING MICROSECOND", up, err)
	}
	if d := waitDestination(t, k.c, "Kds", kdsArnA, "UPDATING"); d.DestinationStatus != types.DestinationStatusActive || d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("after Update: got %s %q", d.DestinationStatus, d.ApproximateCreationDateTimePrecision)
	}
	_, err = k.update(kdsArnA, types.ApproximateCreationDateTimePrecisionMicrosecond)
	wantAPIError(t, err, "ValidationException",
		"Invalid Request: Precision is already set to the desired value of MICROSECOND for tableId: "+aws.ToString(desc.Table.TableId)+", kdsArn: "+kdsArnA)
}

// TestKinesisDestinationDisable: Disable's refusals; DISABLING delivers
// the writes made before it, then DISABLED; enabling again reuses the
// entry, with its precision reset.
func TestKinesisDestinationDisable(t *testing.T) {
	k := newKDS(t)
	ctx := context.Background()
	wantAPIError(t, k.disable(kdsArnA), "ValidationException", kdsDisableState)
	k.active(kdsArnA)
	_, err := k.c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("Kds"), StreamArn: aws.String(kdsArnA),
		EnableKinesisStreamingConfiguration: &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}})
	wantAPIError(t, err, "ValidationException", "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters")
	wantAPIError(t, k.disable(kdsArnB), "ValidationException", kdsDisableState)
	if _, err := k.update(kdsArnA, types.ApproximateCreationDateTimePrecisionMicrosecond); err != nil {
		t.Fatal(err)
	}
	waitDestination(t, k.c, "Kds", kdsArnA, "UPDATING")
	if _, err := k.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Kds"), Item: map[string]types.AttributeValue{"pk": s("before-disable")}}); err != nil {
		t.Fatal(err)
	}
	dis, err := k.c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("Kds"), StreamArn: aws.String(kdsArnA)})
	if err != nil || dis.DestinationStatus != types.DestinationStatusDisabling {
		t.Fatalf("Disable: got %+v, %v; want DISABLING", dis, err)
	}
	if d := waitDestination(t, k.c, "Kds", kdsArnA, "DISABLING"); d.DestinationStatus != types.DestinationStatusDisabled {
		t.Fatalf("after Disable: got %s", d.DestinationStatus)
	}
	k.fk.mu.Lock()
	got := len(k.fk.put["kds-a"])
	k.fk.mu.Unlock()
	if got != 1 {
		t.Fatalf("records delivered before DISABLED: got %d, want 1 (the write made before Disable)", got)
	}
	wantAPIError(t, k.disable(kdsArnA), "ValidationException", kdsDisableState)
	if _, err := k.enable(kdsArnMissing, nil); err != nil {
		t.Fatal(err)
	}
	waitDestination(t, k.c, "Kds", kdsArnMissing, "ENABLING")
	k.active(kdsArnA)
	all, err := k.c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("Kds")})
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, d := range all.KinesisDataStreamDestinations {
		list = append(list, aws.ToString(d.StreamArn)+"="+string(d.DestinationStatus))
	}
	if want := []string{kdsArnA + "=ACTIVE", kdsArnMissing + "=ENABLE_FAILED"}; !slices.Equal(list, want) {
		t.Fatalf("destinations: got %v, want %v (the most recently enabled first)", list, want)
	}
}

// TestKinesisDestinationValidation: request members are checked before
// the table is looked up.
func TestKinesisDestinationValidation(t *testing.T) {
	k := newKDS(t)
	_, err := k.enable("arn:aws:kinesis:short", nil)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'arn:aws:kinesis:short' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37")
	_, err = k.c.EnableKinesisStreamingDestination(context.Background(), &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("Nope"), StreamArn: aws.String(kdsArnA)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
	_, err = k.enable(kdsArnA, &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: "SECOND"})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'SECOND' at 'enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: [MILLISECOND, MICROSECOND]")
}
