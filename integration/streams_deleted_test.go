package integration

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// goneWrites writes to table name what every test here expects its stream to
// hold, deletes the table, and returns the records' changes.
func goneWrites(t *testing.T, c *dynamodb.Client, name string) []change {
	t.Helper()
	ctx := context.Background()
	for _, sk := range []string{"a", "b"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item("p", sk, "1")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: key("p", "a")}); err != nil {
		t.Fatal(err)
	}
	// Item b is still in the table: deleting the table writes no REMOVE for it.
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	return []change{{"INSERT", "p", "a"}, {"INSERT", "p", "b"}, {"REMOVE", "p", "a"}}
}

// wantTableGone checks that nothing but the Streams API sees table name.
func wantTableGone(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	ctx := context.Background()
	_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name)})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("Scan of deleted table %s: got %v, want ResourceNotFoundException", name, err)
	}
	lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(lt.TableNames, name) {
		t.Errorf("ListTables after DeleteTable: got %v, want no %s", lt.TableNames, name)
	}
}

// wantDeletedStream checks that arn, the stream of deleted table name, is
// listed and DISABLED with every shard closed, and holds exactly want.
func wantDeletedStream(t *testing.T, sc *dynamodbstreams.Client, name, arn string, want []change) {
	t.Helper()
	ctx := context.Background()
	ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("ListStreams of deleted table: %v", err)
	}
	if !slices.ContainsFunc(ls.Streams, func(s stypes.Stream) bool {
		return aws.ToString(s.StreamArn) == arn && aws.ToString(s.TableName) == name
	}) {
		t.Errorf("ListStreams(%s): got %+v, want %s listed", name, ls.Streams, arn)
	}
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("DescribeStream of deleted table's stream: %v", err)
	}
	sd := d.StreamDescription
	if sd.StreamStatus != stypes.StreamStatusDisabled || aws.ToString(sd.TableName) != name {
		t.Errorf("DescribeStream: got status %s, table %s; want DISABLED, %s", sd.StreamStatus, aws.ToString(sd.TableName), name)
	}
	for _, sh := range sd.Shards {
		if sh.SequenceNumberRange.EndingSequenceNumber == nil {
			t.Errorf("shard %s of deleted table's stream is open", aws.ToString(sh.ShardId))
		}
	}
	recs, _ := walkStream(t, sc, arn)
	if got := changesOf(recs); !slices.Equal(got, want) {
		t.Errorf("records of deleted table's stream: got %v, want %v", got, want)
	}
}

// TestStreamOutlivesDeletedTable: after DeleteTable the table's stream stays
// readable, DISABLED, for 24 hours and then disappears; a table re-created
// with the name gets a new stream, and the two keep their records apart.
func TestStreamOutlivesDeletedTable(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	first := createStreamTable(t, c, "Gone", types.StreamViewTypeNewAndOldImages)
	want := goneWrites(t, c, "Gone")
	wantTableGone(t, c, "Gone")
	wantDeletedStream(t, sc, "Gone", first, want)

	second := createStreamTable(t, c, "Gone", types.StreamViewTypeKeysOnly)
	if second == first {
		t.Fatalf("re-created table's stream has the deleted table's ARN %s", first)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Gone"), Item: item("q", "c", "1")}); err != nil {
		t.Fatal(err)
	}
	recs, _ := walkStream(t, sc, second)
	if got, want := changesOf(recs), []change{{"INSERT", "q", "c"}}; !slices.Equal(got, want) {
		t.Errorf("re-created table's stream: got %v, want %v", got, want)
	}
	wantDeletedStream(t, sc, "Gone", first, want)
	ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Gone"), Limit: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	page2, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Gone"), ExclusiveStartStreamArn: ls.LastEvaluatedStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Streams) != 1 || len(page2.Streams) != 1 || aws.ToString(page2.Streams[0].StreamArn) == aws.ToString(ls.Streams[0].StreamArn) {
		t.Errorf("ListStreams by pages of 1: got %+v then %+v, want the two streams", ls.Streams, page2.Streams)
	}

	advanceClock(t, srv.URL, 25*time.Hour)
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+first+" not found")
	_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(first),
		ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+first+" not found")
	ls, err = sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Gone")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Streams) != 1 || aws.ToString(ls.Streams[0].StreamArn) != second {
		t.Errorf("ListStreams after 25h: got %+v, want only %s", ls.Streams, second)
	}
}

// startDurableClockServer serves a durable store at path with clock clk.
// stop shuts it down (the test's cleanup does too).
func startDurableClockServer(t *testing.T, path string, clk *clock.Clock) (srv *clockServer, stop func()) {
	t.Helper()
	db, err := store.Open(store.Options{Path: path, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, table.Options{Now: clk.Now})
	svc.RunOnMove(clk)
	ts := httptest.NewServer(api.NewHandler(api.Config{Addr: "localhost:8000",
		Admin: admin.Handler(admin.Config{Settle: svc.Settle, Clock: clk})}, api.Operations(svc)))
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			ts.Close()
			svc.Close()
			db.Close()
		}
	}
	t.Cleanup(stop)
	return &clockServer{server: &server{URL: ts.URL, svc: svc}, clk: clk}, stop
}

// TestDeletedTableStreamDurable: a deleted table's stream survives a restart
// of a durable server, and still disappears 24 hours after the deletion.
func TestDeletedTableStreamDurable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ddb.db")
	srv, stop := startDurableClockServer(t, path, clock.Manual(streamStart))
	first := createStreamTable(t, srv.client("us-east-1"), "Gone", types.StreamViewTypeKeysOnly)
	want := goneWrites(t, srv.client("us-east-1"), "Gone")
	stop()

	// A new clock: the old one would still run the stopped service's hooks.
	srv, _ = startDurableClockServer(t, path, clock.Manual(streamStart.Add(time.Hour)))
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	wantTableGone(t, c, "Gone")
	wantDeletedStream(t, sc, "Gone", first, want)
	advanceClock(t, srv.URL, 24*time.Hour)
	_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+first+" not found")
	_, err = sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Gone")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Gone not found")
}
