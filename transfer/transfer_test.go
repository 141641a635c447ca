package transfer

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/sdkhttp"
	"github.com/ddblocal/ddblocal/server"
)

// startClient runs an in-memory server for the test and returns a client.
func startClient(t *testing.T) *dynamodb.Client {
	t.Helper()
	srv, err := server.Start(context.Background(), server.Options{InMemory: true, Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.URL()), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")},
		func(o *dynamodb.Options) { o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient) })
}

func createPkSk(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// everyTypeLines writes n items holding all ten attribute types, in
// DynamoDB-JSON, keyed pk = p<i%97>, sk = i.
func everyTypeLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"pk":{"S":"p%d"},"sk":{"N":"%d"},"s":{"S":"item \u00e9 %d"},"n":{"N":"-%d.25e-3"},`+
			`"b":{"B":"AAEC/w=="},"t":{"BOOL":%t},"z":{"NULL":true},"l":{"L":[{"S":"x"},{"N":"%d"},{"L":[]}]},`+
			`"m":{"M":{"k":{"S":"v"},"nested":{"M":{"ns":{"NS":["1","%d"]}}}}},"ss":{"SS":["a","b%d"]},`+
			`"ns":{"NS":["0.5","%d"]},"bs":{"BS":["AQ==","Ag=="]}}`+"\n",
			i%97, i, i, i+1, i%2 == 0, i, i+2, i, i+1)
	}
	return b.Bytes()
}

// sortedLines exports table and returns its lines sorted.
func sortedLines(t *testing.T, c *dynamodb.Client, table string, segments int) []string {
	t.Helper()
	var out bytes.Buffer
	if _, err := Export(context.Background(), c, table, &out, ExportOptions{Segments: segments}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	slices.Sort(lines)
	return lines
}

// TestRoundTrip imports 10,000 items of every type, exports them, imports
// the export into a table on another server and exports that: the two
// exports, and the items, must be identical.
func TestRoundTrip(t *testing.T) {
	const n = 10000
	ctx := context.Background()
	src, dst := startClient(t), startClient(t)
	createPkSk(t, src, "Tbl")
	createPkSk(t, dst, "Tbl")
	prog := &countProgress{}
	got, err := Import(ctx, src, "Tbl", bytes.NewReader(everyTypeLines(n)), "gen.jsonl", ImportOptions{Progress: prog})
	if err != nil || got != n || prog.n != n {
		t.Fatalf("import: got %d items (progress %d), %v; want %d", got, prog.n, err, n)
	}
	first := sortedLines(t, src, "Tbl", 4)
	if len(first) != n {
		t.Fatalf("export: got %d lines, want %d", len(first), n)
	}
	var exported bytes.Buffer
	exported.WriteString(strings.Join(first, "\n"))
	if _, err := Import(ctx, dst, "Tbl", &exported, "export.jsonl", ImportOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	second := sortedLines(t, dst, "Tbl", 3)
	if !slices.Equal(first, second) {
		for i := range min(len(first), len(second)) {
			if first[i] != second[i] {
				t.Fatalf("tables differ at sorted line %d:\n%s\n%s", i, first[i], second[i])
			}
		}
		t.Fatalf("got %d lines after the round trip, want %d", len(second), len(first))
	}
	// The export is the source, attribute for attribute.
	want := NewReader(bytes.NewReader(everyTypeLines(1)), "gen", Unknown)
	it, _, _ := want.Next()
	if line := string(AppendLine(nil, it)); !slices.Contains(first, strings.TrimSuffix(line, "\n")) {
		t.Errorf("export lacks the first generated item %s", line)
	}
}

type countProgress struct {
	mu    sync.Mutex
	n     int
	total int64
}

func (p *countProgress) SetTotal(n int64) { p.total = n }
func (p *countProgress) Add(n int)        { p.mu.Lock(); p.n += n; p.mu.Unlock() }

// flakyWriter answers BatchWriteItem with its last item unprocessed for the
// first `unprocessed` calls, then writes everything.
type flakyWriter struct {
	mu          sync.Mutex
	unprocessed int
	calls       int
	written     int
}

func (f *flakyWriter) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	reqs := in.RequestItems["T"]
	if f.calls <= f.unprocessed {
		f.written += len(reqs) - 1
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{"T": reqs[len(reqs)-1:]}}, nil
	}
	f.written += len(reqs)
	return &dynamodb.BatchWriteItemOutput{}, nil
}

func TestImportRetriesUnprocessed(t *testing.T) {
	lines := strings.Repeat("{\"pk\":\"a\"}\n", 30) // two batches: 25 and 5
	tests := []struct {
		name        string
		unprocessed int
		maxAttempts int
		wantErr     string
		wantSleeps  int
	}{
		{"all at once", 0, 0, "", 0},
		{"two retries", 2, 0, "", 2},
		{"gives up", 100, 3, "gen.jsonl:1: batch of lines 1-25: 1 items still unprocessed after 3 BatchWriteItem calls", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &flakyWriter{unprocessed: tt.unprocessed}
			var sleeps []time.Duration
			n, err := Import(context.Background(), f, "T", strings.NewReader(lines), "gen.jsonl", ImportOptions{
				Workers: 1, MaxAttempts: tt.maxAttempts,
				Sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil },
			})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				if got, want := len(sleeps), tt.wantSleeps; got != want {
					t.Errorf("got %d sleeps, want %d", got, want)
				}
				return
			}
			if err != nil || n != 30 || f.written != 30 {
				t.Fatalf("got %d items (%d written), %v; want 30", n, f.written, err)
			}
			if got, want := len(sleeps), tt.wantSleeps; got != want {
				t.Errorf("got %d sleeps, want %d", got, want)
			}
			for i, d := range sleeps {
				if d < 0 || d > backoffBase<<i {
					t.Errorf("sleep %d: got %v, want within [0, %v]", i, d, backoffBase<<i)
				}
			}
		})
	}
}
