package integration

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// BenchmarkBulkLoad measures StartBulkPutItems as BenchmarkTransfer
// measures an import: the binary in its own process (durable, or
// DDBLOCAL_TRANSFER_IN_MEMORY=1), DDBLOCAL_TRANSFER_SCALE items (default
// 1,000,000) of ~100 bytes in 8 gzip objects (writeScaleSource;
// DDBLOCAL_TRANSFER_INPUT=ION for Ion) loaded into an empty table, in the
// STANDARD tier or DDBLOCAL_TRANSFER_TIER. While the load runs, the
// foreground probe reads an item of another table every 5 ms (fgProbe;
// DDBLOCAL_TRANSFER_PROBE_IDLE=1 probes for a second before it too). It
// reports items/s, items per CPU-second of the server and its RSS growth,
// and logs the probe's latencies. Durable, it then measures on until the
// log the load wrote is checkpointed into bbolt, and logs the figures of
// the load and its checkpoints (bulk-ckpt-rss-MiB: the peak of both).
// DDBLOCAL_TRANSFER_TRACE=FILE saves a runtime trace of the server to
// FILE-bulk, DDBLOCAL_TRANSFER_TRACE_SECS seconds long (default 2) from
// DDBLOCAL_TRANSFER_TRACE_AT seconds into the load (default 0), to see
// where the probe's slow requests wait (DDBLOCAL_TRANSFER_PROBE_LOG: each
// request's time). Run it once a build:
//
//	go test ./integration -run '^$' -bench BenchmarkBulkLoad -benchtime 1x -v
func BenchmarkBulkLoad(b *testing.B) {
	n, dir := scaleCount(), b.TempDir()
	st := bucket.Dir{Root: filepath.Join(dir, "s3")}
	writeScaleSource(b, st, n)
	args, inMemory := scaleServerArgs(dir, st.Root)
	b.ResetTimer()
	for range b.N {
		p := startBinary(b, dir, nil, args...)
		res := benchBulk(b, p, n, !inMemory)
		stopSlow(b, p)
		b.ReportMetric(res.rate, "bulk-items/s")
		b.ReportMetric(res.perCPU, "bulk-items/cpu-s")
		b.ReportMetric(float64(res.rssGrowth), "bulk-rss-MiB")
		os.RemoveAll(filepath.Join(dir, "db"))
	}
}

// benchBulk loads src/big/ into a new table Big through p and reports it;
// with durable, it then waits for the checkpoints (see BenchmarkBulkLoad).
func benchBulk(b *testing.B, p *proc, n int, durable bool) measured {
	c := p.client()
	ctx := context.Background()
	createScaleTable(b, c)
	probeIdle(b, c)
	fg := startProbe(b, c)
	m := procMeter{t: b, p: p}
	m.start()
	start, err := c.StartBulkPutItems(ctx, &dynamodb.StartBulkPutItemsInput{TableName: aws.String("Big"),
		InputS3Configuration: &types.InputS3Configuration{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("big/"),
			InputFormat: types.BulkOperationInputFormat(scaleFormat()), InputCompressionType: types.InputCompressionTypeGzip},
		OutputS3Configuration: &types.OutputS3Configuration{S3Bucket: aws.String("out"), OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError}},
		PerformanceTier:       types.BulkOperationPerformanceTier(os.Getenv("DDBLOCAL_TRANSFER_TIER"))})
	if err != nil {
		b.Fatal(err)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_CPUPROFILE"); path != "" {
		go m.profile(path+"-bulk", "profile", 10)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_TRACE"); path != "" {
		at, _ := strconv.ParseFloat(os.Getenv("DDBLOCAL_TRANSFER_TRACE_AT"), 64)
		secs, _ := strconv.Atoi(os.Getenv("DDBLOCAL_TRANSFER_TRACE_SECS"))
		go func() {
			time.Sleep(time.Duration(at * float64(time.Second)))
			m.profile(path+"-bulk", "trace", cmp.Or(secs, 2))
		}()
	}
	var last *types.BulkOperationDescription
	d := m.until(func() bool {
		out, err := c.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: start.BulkOperationDescription.BulkOperationArn})
		if err != nil {
			b.Fatal(err)
		}
		last = out.BulkOperationDescription
		return last.BulkOperationStatus != types.BulkOperationStatusInProgress
	})
	fg.report(b, "bulk load")
	if last.BulkOperationStatus != types.BulkOperationStatusCompleted || last.ProcessedItemCount != int64(n) {
		b.Fatalf("bulk load: %s, %d of %d items", last.BulkOperationStatus, last.ProcessedItemCount, n)
	}
	b.Logf("bulk load: tier %s", last.PerformanceTier)
	res := m.report("bulk load", n, d)
	if durable {
		path := filepath.Join(p.cmd.Dir, "db") // scaleServerArgs' --db-path
		logBacklog(b, path)
		d = m.until(func() bool { return checkpointed(path) })
		b.ReportMetric(float64(m.report("bulk load and its checkpoints", n, d).rssGrowth), "bulk-ckpt-rss-MiB")
	}
	return res
}

// logBacklog logs the log segments of the database at path not yet
// checkpointed (the one being written among them) and their bytes.
func logBacklog(b *testing.B, path string) {
	segs, _ := filepath.Glob(path + "-wal-[0-9a-f]*")
	var size int64
	for _, s := range segs {
		if fi, err := os.Stat(s); err == nil {
			size += fi.Size()
		}
	}
	b.Logf("bulk load: log backlog at its end: %d segments, %d MiB", len(segs), size>>20)
}
