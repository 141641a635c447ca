package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/gzip"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestTransferScale imports DDBLOCAL_TRANSFER_SCALE items (say 1000000)
// through ImportTable and exports them again, logging items/s and the
// process's RSS growth for each way. It measures, it asserts nothing about
// time; docs/import-export.md has the figures. Skipped unless the variable
// is set: it takes a minute and a few hundred MB.
func TestTransferScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DDBLOCAL_TRANSFER_SCALE"))
	if n == 0 {
		t.Skip("set DDBLOCAL_TRANSFER_SCALE=1000000 to measure")
	}
	st := bucket.Dir{Root: t.TempDir()}
	writeScaleSource(t, st, n)
	c := transferServer(t, st)
	ctx := context.Background()
	rss0 := rssKiB(t)
	cpu0 := cpuTime()
	start := time.Now()
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("big/")}, TableCreationParameters: &types.TableCreationParameters{
			TableName: aws.String("Big"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := waitImportLong(t, c, imp.ImportTableDescription.ImportArn)
	took := time.Since(start)
	rss1 := rssKiB(t)
	cpu1 := cpuTime()
	t.Logf("import: %d items in %v = %.0f items/s (process CPU %v = %.0f items per CPU-second); RSS %d → %d MiB (+%d MiB, the table's items included)",
		d.ImportedItemCount, took.Round(time.Millisecond), float64(d.ImportedItemCount)/took.Seconds(), (cpu1 - cpu0).Round(time.Millisecond),
		float64(d.ImportedItemCount)/(cpu1-cpu0).Seconds(), rss0>>10, rss1>>10, (rss1-rss0)>>10)
	if d.ImportedItemCount != int64(n) {
		t.Fatalf("imported %d of %d", d.ImportedItemCount, n)
	}
	if desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Big")}); err == nil {
		t.Logf("table: %d items, TableSizeBytes %d MiB", aws.ToInt64(desc.Table.ItemCount), aws.ToInt64(desc.Table.TableSizeBytes)>>20)
	}
	enablePITR(t, c, "Big", 0)
	runtime.GC()
	rss1 = rssKiB(t)
	cpu1 = cpuTime()
	start = time.Now()
	desc, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Big")})
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: desc.Table.TableArn, S3Bucket: aws.String("out")})
	if err != nil {
		t.Fatal(err)
	}
	peak := rss1
	var e *types.ExportDescription
	for e == nil || e.ExportStatus == types.ExportStatusInProgress {
		time.Sleep(50 * time.Millisecond)
		peak = max(peak, rssKiB(t))
		got, err := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
		if err != nil {
			t.Fatal(err)
		}
		e = got.ExportDescription
	}
	took = time.Since(start)
	cpu := cpuTime() - cpu1
	t.Logf("export: %d items in %v = %.0f items/s (process CPU %v = %.0f items per CPU-second); RSS %d MiB before, peak %d MiB (+%d MiB)",
		aws.ToInt64(e.ItemCount), took.Round(time.Millisecond), float64(aws.ToInt64(e.ItemCount))/took.Seconds(), cpu.Round(time.Millisecond),
		float64(aws.ToInt64(e.ItemCount))/cpu.Seconds(), rss1>>10, peak>>10, (peak-rss1)>>10)
	if e.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(e.ItemCount) != int64(n) {
		t.Fatalf("export: %+v", e)
	}
}

// writeScaleSource writes n ~100-byte items as gzip JSON lines in 8 objects.
func writeScaleSource(t *testing.T, st bucket.Store, n int) {
	const files = 8
	for f := range files {
		w, err := st.Create(context.Background(), "src", fmt.Sprintf("big/part-%d.json.gz", f))
		if err != nil {
			t.Fatal(err)
		}
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		bw := bufio.NewWriter(zw)
		for i := f; i < n; i += files {
			fmt.Fprintf(bw, `{"Item":{"pk":{"S":"user-%09d"},"n":{"N":"%d"},"name":{"S":"some name %d"},"tags":{"SS":["a","b%d"]},"ok":{"BOOL":true}}}`+"\n", i, i*7, i, i%13)
		}
		bw.Flush()
		zw.Close()
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

func waitImportLong(t *testing.T, c *dynamodb.Client, arn *string) *types.ImportTableDescription {
	out, err := dynamodb.NewImportCompletedWaiter(c, func(o *dynamodb.ImportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
	}).WaitForOutput(context.Background(), &dynamodb.DescribeImportInput{ImportArn: arn}, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return out.ImportTableDescription
}

// cpuTime is the user and system CPU time this process has used: on a
// shared machine, items per CPU-second says more than items per second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssKiB reads this process's resident set size from /proc.
func rssKiB(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
