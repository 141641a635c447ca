package integration

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestTransferScaleDurable measures what TestTransferScale measures, on
// the server as users run it: the binary with its default durable store
// (--db-path) in its own process. Beside the process's RSS it reads the
// live heap after a collection (pprof's heap?gc=1), so that the table's
// own growth (the store keeps every item in memory, as the durable store
// does too) is told apart from the transfer's working memory: the peak
// RSS growth minus the live heap's growth. It asserts nothing about time.
// DDBLOCAL_TRANSFER_CPUPROFILE=FILE saves the server's CPU profile of the
// import's first ten seconds; DDBLOCAL_TRANSFER_IN_MEMORY=1 runs the same on
// the in-memory store.
func TestTransferScaleDurable(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DDBLOCAL_TRANSFER_SCALE"))
	if n == 0 {
		t.Skip("set DDBLOCAL_TRANSFER_SCALE=1000000 to measure")
	}
	dir := t.TempDir()
	st := bucket.Dir{Root: filepath.Join(dir, "s3")}
	writeScaleSource(t, st, n)
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "db"), "--s3-dir", st.Root, "--pprof"}
	if os.Getenv("DDBLOCAL_TRANSFER_IN_MEMORY") != "" {
		args = append(args, "--in-memory") // to compare: no write-ahead log, no bbolt checkpoints
	}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	ctx := context.Background()
	m := procMeter{t: t, p: p}
	m.start()
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("big/")}, TableCreationParameters: &types.TableCreationParameters{
			TableName: aws.String("Big"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}})
	if err != nil {
		t.Fatal(err)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_CPUPROFILE"); path != "" {
		go m.profile(path, 10)
	}
	d := m.until(func() bool {
		out, err := c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: imp.ImportTableDescription.ImportArn})
		return err != nil || out.ImportTableDescription.ImportStatus != types.ImportStatusInProgress
	})
	m.report("import", n, d)
	enablePITR(t, c, "Big", 0)
	desc, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Big")})
	t.Logf("table: %d items, TableSizeBytes %d MiB", aws.ToInt64(desc.Table.ItemCount), aws.ToInt64(desc.Table.TableSizeBytes)>>20)
	m.start()
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: desc.Table.TableArn, S3Bucket: aws.String("out")})
	if err != nil {
		t.Fatal(err)
	}
	var e *types.ExportDescription
	d = m.until(func() bool {
		got, err := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
		e = got.ExportDescription
		return err != nil || e.ExportStatus != types.ExportStatusInProgress
	})
	m.report("export", int(aws.ToInt64(e.ItemCount)), d)
	p.stopOK()
}

// procMeter samples a server process's memory and CPU from /proc and its
// live heap from pprof.
type procMeter struct {
	t               *testing.T
	p               *proc
	began           time.Time
	rss0, live0     int64 // KiB, bytes
	cpu0            time.Duration
	peak, peakAnon  int64 // KiB
	rssAnon0, file0 int64 // KiB
}

// start records the baseline: RSS, anonymous and file-backed RSS, the live
// heap after a collection, and CPU time.
func (m *procMeter) start() {
	m.live0 = m.liveHeap()
	s := m.status()
	m.rss0, m.rssAnon0, m.file0 = s["VmRSS"], s["RssAnon"], s["RssFile"]
	m.peak, m.peakAnon = m.rss0, m.rssAnon0
	m.cpu0 = m.cpu()
	m.began = time.Now()
}

// until samples RSS every 20 ms until done reports true, and returns how
// long that took.
func (m *procMeter) until(done func() bool) time.Duration {
	for !done() {
		s := m.status()
		m.peak, m.peakAnon = max(m.peak, s["VmRSS"]), max(m.peakAnon, s["RssAnon"])
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(m.began)
}

// report logs the rate, CPU, RSS growth, and the live heap's growth.
func (m *procMeter) report(what string, n int, took time.Duration) {
	cpu := m.cpu() - m.cpu0
	live := m.liveHeap()
	s := m.status()
	m.t.Logf("%s: %d items in %v = %.0f items/s (server CPU %v = %.0f items per CPU-second)", what, n, took.Round(time.Millisecond),
		float64(n)/took.Seconds(), cpu.Round(time.Millisecond), float64(n)/cpu.Seconds())
	m.t.Logf("%s: RSS %d MiB before, peak %d MiB (+%d MiB; anonymous +%d MiB), after %d MiB (file-backed %d → %d MiB); live heap %d → %d MiB (+%d MiB): working memory at the peak ≈ %d MiB",
		what, m.rss0>>10, m.peak>>10, (m.peak-m.rss0)>>10, (m.peakAnon-m.rssAnon0)>>10, s["VmRSS"]>>10, m.file0>>10, s["RssFile"]>>10,
		m.live0>>20, live>>20, (live-m.live0)>>20, ((m.peak-m.rss0)<<10-(live-m.live0))>>20)
}

// status reads the process's /proc status lines in KiB.
func (m *procMeter) status() map[string]int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(m.p.cmd.Process.Pid) + "/status")
	if err != nil {
		m.t.Skip("no /proc")
	}
	out := map[string]int64{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(v, "kB") {
			out[k], _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
		}
	}
	return out
}

// cpu is the process's user and system time (/proc/PID/stat, in ticks of
// 10 ms).
func (m *procMeter) cpu() time.Duration {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(m.p.cmd.Process.Pid) + "/stat")
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// liveHeap collects garbage in the server and returns its heap in use
// then (pprof's heap profile in text, "# HeapAlloc = N").
func (m *procMeter) liveHeap() int64 {
	resp, err := http.Get(m.p.URL + "/_ddblocal/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	_, rest, ok := strings.Cut(string(b), "# HeapAlloc = ")
	if !ok {
		m.t.Fatalf("no HeapAlloc in the heap profile: %.200s", b)
	}
	v, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
	return v
}

// profile saves the server's CPU profile of the next seconds to path.
func (m *procMeter) profile(path string, seconds int) {
	resp, err := http.Get(m.p.URL + "/_ddblocal/debug/pprof/profile?seconds=" + strconv.Itoa(seconds))
	if err != nil {
		m.t.Log(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		m.t.Log(err)
	}
}
