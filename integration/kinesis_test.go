package integration

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	ktypes "github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/ddblocal/ddblocal/sdkhttp"
)

// startKinesalite starts the Kinesis emulator integration/kinesis installs
// (.ci/run runs npm ci there) on a free port and returns its URL. It is
// stopped at the end of the test.
func startKinesalite(t *testing.T) string {
	t.Helper()
	cli := filepath.Join("kinesis", "node_modules", "kinesalite", "cli.js")
	_, err := os.Stat(cli)
	_, nodeErr := exec.LookPath("node")
	needRuntime(t, "kinesalite (node and integration/kinesis/node_modules)", "cd integration/kinesis && npm ci --omit=optional", err == nil && nodeErr == nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command("node", cli, "--port", port, "--createStreamMs", "0", "--deleteStreamMs", "0", "--updateStreamMs", "0")
	out := &stderrLog{ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", port)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("kinesalite did not listen on %s within 30 s:\n%s", addr, out.String())
		}
	}
}

// kinesisReader reads every record of a stream, shard by shard, with the
// Kinesis client, as a consumer of the destination would.
type kinesisReader struct {
	t    *testing.T
	c    *kinesis.Client
	name string
	its  map[string]*string // shard → next iterator
	recs []map[string]any   // the records' Data, decoded, in arrival order per shard
}

func newKinesisReader(t *testing.T, c *kinesis.Client, name string) *kinesisReader {
	r := &kinesisReader{t: t, c: c, name: name, its: map[string]*string{}}
	d, err := c.DescribeStream(context.Background(), &kinesis.DescribeStreamInput{StreamName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range d.StreamDescription.Shards {
		it, err := c.GetShardIterator(context.Background(), &kinesis.GetShardIteratorInput{StreamName: aws.String(name),
			ShardId: sh.ShardId, ShardIteratorType: ktypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		r.its[aws.ToString(sh.ShardId)] = it.ShardIterator
	}
	return r
}

// poll reads what has arrived since the last poll.
func (r *kinesisReader) poll() {
	for shard, it := range r.its {
		out, err := r.c.GetRecords(context.Background(), &kinesis.GetRecordsInput{ShardIterator: it})
		if err != nil {
			r.t.Fatalf("GetRecords %s: %v", shard, err)
		}
		for _, rec := range out.Records {
			var m map[string]any
			if err := json.Unmarshal(rec.Data, &m); err != nil {
				r.t.Fatalf("record data is not JSON: %v: %s", err, rec.Data)
			}
			r.recs = append(r.recs, m)
		}
		r.its[shard] = out.NextShardIterator
	}
}

// waitFor polls until a record with eventName name for item pk has
// arrived, and returns the first.
func (r *kinesisReader) waitFor(name, pk string) map[string]any {
	r.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r.poll()
		for _, rec := range r.recs {
			keys, _ := rec["dynamodb"].(map[string]any)["Keys"].(map[string]any)
			if rec["eventName"] == name && keys["pk"].(map[string]any)["S"] == pk {
				return rec
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no %s record for %s within 20 s; got %v", name, pk, r.recs)
		}
	}
}

// kdsPut puts item into Orders.
func kdsPut(t *testing.T, c *dynamodb.Client, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item}); err != nil {
		t.Fatal(err)
	}
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// checkRecord checks a record against the service's Kinesis record format.
func checkRecord(t *testing.T, rec map[string]any, event, precision string, from, to time.Time, withNew, withOld bool) {
	t.Helper()
	for k, want := range map[string]any{"awsRegion": "us-east-1", "eventName": event, "userIdentity": nil,
		"recordFormat": "application/json", "tableName": "Orders", "eventSource": "aws:dynamodb"} {
		if v, ok := rec[k]; !ok || v != want {
			t.Fatalf("%s: got %v (present %v), want %v in %v", k, v, ok, want, rec)
		}
	}
	if len(rec) != 8 || !uuidShape.MatchString(rec["eventID"].(string)) {
		t.Fatalf("record members or eventID: %v", rec)
	}
	d := rec["dynamodb"].(map[string]any)
	if d["ApproximateCreationDateTimePrecision"] != precision || d["SizeBytes"].(float64) <= 0 {
		t.Fatalf("dynamodb: %v", d)
	}
	at, unit := int64(d["ApproximateCreationDateTime"].(float64)), time.Millisecond
	if precision == "MICROSECOND" {
		unit = time.Microsecond
	}
	if lo, hi := from.UnixNano()/int64(unit), to.UnixNano()/int64(unit); at < lo || at > hi {
		t.Fatalf("ApproximateCreationDateTime %d not in [%d, %d] (%s)", at, lo, hi, precision)
	}
	_, hasNew := d["NewImage"]
	_, hasOld := d["OldImage"]
	_, hasSeq := d["SequenceNumber"]
	_, hasView := d["StreamViewType"]
	if hasNew != withNew || hasOld != withOld || hasSeq || hasView {
		t.Fatalf("dynamodb members: %v", d)
	}
}

// kinesaliteStream starts kinesalite with a 2-shard stream "ddb-changes"
// and returns its URL, a Kinesis client for it and the stream's ARN.
func kinesaliteStream(t *testing.T) (string, *kinesis.Client, string) {
	t.Helper()
	kurl := startKinesalite(t)
	ctx := context.Background()
	kc := kinesis.New(kinesis.Options{BaseEndpoint: aws.String(kurl), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}, func(o *kinesis.Options) { o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient) })
	if _, err := kc.CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: aws.String("ddb-changes"), ShardCount: aws.Int32(2)}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		d, err := kc.DescribeStream(ctx, &kinesis.DescribeStreamInput{StreamName: aws.String("ddb-changes")})
		if err != nil {
			t.Fatal(err)
		}
		if d.StreamDescription.StreamStatus == ktypes.StreamStatusActive {
			return kurl, kc, aws.ToString(d.StreamDescription.StreamARN)
		}
		if time.Now().After(deadline) {
			t.Fatal("stream not ACTIVE within 10 s")
		}
	}
}

// TestKinesisDestination enables a Kinesis streaming destination on the
// binary, pointed at kinesalite with --kinesis-endpoint, and reads the
// records back with the Kinesis client: their format, delivery after a
// restart and after a kill -9 right after a write, the precision update,
// and nothing after Disable.
func TestKinesisDestination(t *testing.T) {
	kurl, kc, arn := kinesaliteStream(t)
	ctx := context.Background()
	dir := t.TempDir()
	p := startBinary(t, dir, nil, "--port", "0", "--db-path", dir, "--kinesis-endpoint", kurl)
	c := p.client()
	createTable(t, c, "Orders", true)
	if _, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("Orders"), StreamArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	if d := waitDestination(t, c, "Orders", arn, "ENABLING"); d.DestinationStatus != types.DestinationStatusActive {
		t.Fatalf("destination: got %s %q, want ACTIVE", d.DestinationStatus, aws.ToString(d.DestinationStatusDescription))
	}
	r := newKinesisReader(t, kc, "ddb-changes")
	checkItemLifecycle(t, c, r)

	// A clean restart, then a write and a kill -9 at once: the record is
	// delivered by the next start, from the change log.
	p.stopOK()
	env := testEnv(t, "DDBLOCAL_KINESIS_ENDPOINT="+kurl)
	p = startBinary(t, dir, env, "--port", "0", "--db-path", dir)
	kdsPut(t, p.client(), map[string]types.AttributeValue{"pk": s("b"), "sk": s("1")})
	p.kill()
	p = startBinary(t, dir, env, "--port", "0", "--db-path", dir)
	c = p.client()
	r.waitFor("INSERT", "b")

	// The precision: UPDATING, then ACTIVE, and microseconds from then on.
	if _, err := c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("Orders"), StreamArn: aws.String(arn),
		UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}}); err != nil {
		t.Fatal(err)
	}
	waitDestination(t, c, "Orders", arn, "UPDATING")
	from := time.Now()
	kdsPut(t, c, map[string]types.AttributeValue{"pk": s("c"), "sk": s("1")})
	checkRecord(t, r.waitFor("INSERT", "c"), "INSERT", "MICROSECOND", from, time.Now(), true, false)

	// After Disable, nothing more is delivered.
	if _, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("Orders"), StreamArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	if d := waitDestination(t, c, "Orders", arn, "DISABLING"); d.DestinationStatus != types.DestinationStatusDisabled {
		t.Fatalf("after Disable: %s", d.DestinationStatus)
	}
	kdsPut(t, c, map[string]types.AttributeValue{"pk": s("d"), "sk": s("1")})
	time.Sleep(time.Second)
	r.poll()
	for _, rec := range r.recs {
		if rec["dynamodb"].(map[string]any)["Keys"].(map[string]any)["pk"].(map[string]any)["S"] == "d" {
			t.Fatalf("a write after DISABLED was delivered: %v", rec)
		}
	}
}

// checkItemLifecycle puts, updates and deletes item a of Orders and checks
// the three records: their format, images and times.
func checkItemLifecycle(t *testing.T, c *dynamodb.Client, r *kinesisReader) {
	t.Helper()
	ctx := context.Background()
	key := map[string]types.AttributeValue{"pk": s("a"), "sk": s("1")}
	from := time.Now()
	kdsPut(t, c, map[string]types.AttributeValue{"pk": s("a"), "sk": s("1"), "n": n("1")})
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Orders"), Key: key,
		UpdateExpression: aws.String("SET n = :two"), ExpressionAttributeValues: map[string]types.AttributeValue{":two": n("2")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: key}); err != nil {
		t.Fatal(err)
	}
	to := time.Now()
	checkRecord(t, r.waitFor("INSERT", "a"), "INSERT", "MILLISECOND", from, to, true, false)
	mod := r.waitFor("MODIFY", "a")
	checkRecord(t, mod, "MODIFY", "MILLISECOND", from, to, true, true)
	if img := mod["dynamodb"].(map[string]any); img["NewImage"].(map[string]any)["n"].(map[string]any)["N"] != "2" ||
		img["OldImage"].(map[string]any)["n"].(map[string]any)["N"] != "1" {
		t.Fatalf("MODIFY images: %v", img)
	}
	checkRecord(t, r.waitFor("REMOVE", "a"), "REMOVE", "MILLISECOND", from, to, false, true)
}
