package integration

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/gzip"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// BenchmarkTransfer measures ImportTable and ExportTableToPointInTime on
// the server as users run it: the binary with its default durable store
// (--db-path) in its own process, DDBLOCAL_TRANSFER_SCALE items (default
// 1,000,000) of ~100 bytes in 8 gzip JSON objects. Run it once:
//
//	go test ./integration -run '^$' -bench BenchmarkTransfer -benchtime 1x -v
//
// It reports, for each way, items/s (wall), items per CPU-second of the
// server, and the server's peak RSS growth, beside the live heap after a
// collection (pprof's heap?gc=1): the store keeps every item in memory, so
// an import's RSS grows by the table itself. The export runs on the loaded
// table after a restart (the table loaded), so its growth is the export's
// own; it logs how long each stop took. DDBLOCAL_TRANSFER_FORMAT=ION
// exports in Ion. DDBLOCAL_TRANSFER_DIR=DIR keeps the source and the
// database in DIR: a later run finds the table loaded and measures the
// export alone (a short run, for the gaps between the merge trains).
// With DDBLOCAL_TRANSFER_BASELINE=1 it also loads the same items into a
// fresh server with BatchWriteItem (8 clients, 25 items a request) and
// reports that server's RSS growth: the import's growth minus it is the
// import machinery's own. DDBLOCAL_TRANSFER_CPUPROFILE=FILE saves the
// server's CPU profile of the import's first ten seconds, and of the
// export's in FILE-export (DDBLOCAL_TRANSFER_TRACE=FILE: a runtime trace of
// their first two seconds, the same way); DDBLOCAL_TRANSFER_IN_MEMORY=1 runs on the
// in-memory store; DDBLOCAL_TRANSFER_GSI=1 imports the table with a global
// index (on n, every attribute projected); DDBLOCAL_TRANSFER_INPUT=ION or
// CSV writes and imports the source in that format. While each runs, a client reads
// an item of a table of its own every 5 ms and the latencies are logged
// (fgProbe). DDBLOCAL_TRANSFER_HEAPPROFILE=FILE saves the server's heap
// profile near the RSS peak (procMeter.until), DDBLOCAL_TRANSFER_SERVERLOG=FILE
// its stderr (stopSlow).
func BenchmarkTransfer(b *testing.B) {
	n := scaleCount()
	dir, keep := os.Getenv("DDBLOCAL_TRANSFER_DIR"), true
	if dir == "" {
		dir, keep = b.TempDir(), false
	}
	st := bucket.Dir{Root: filepath.Join(dir, "s3")}
	_, err := os.Stat(filepath.Join(dir, "db"))
	loaded := keep && err == nil
	if !loaded {
		writeScaleSource(b, st, n)
	}
	args, inMemory := scaleServerArgs(dir, st.Root)
	b.ResetTimer()
	for range b.N {
		p := startBinary(b, dir, nil, args...)
		if !loaded {
			imp := benchImport(b, p, n)
			b.ReportMetric(imp.rate, "import-items/s")
			b.ReportMetric(imp.perCPU, "import-items/cpu-s")
			b.ReportMetric(float64(imp.rssGrowth), "import-rss-MiB")
			if base := os.Getenv("DDBLOCAL_TRANSFER_BASELINE"); base != "" {
				batch := benchBatchLoad(b, n)
				b.ReportMetric(float64(batch), "batchwrite-rss-MiB")
				b.Logf("import machinery's own RSS growth: %d - %d = %d MiB", imp.rssGrowth, batch, imp.rssGrowth-batch)
			}
			if !inMemory { // a restart loads the table
				stopSlow(b, p)
				p = startBinary(b, dir, nil, args...)
			}
		}
		if !inMemory {
			waitCheckpointed(b, filepath.Join(dir, "db"))
		}
		exp := benchExport(b, p, types.ExportFormat(os.Getenv("DDBLOCAL_TRANSFER_FORMAT")))
		stopSlow(b, p)
		b.ReportMetric(exp.rate, "export-items/s")
		b.ReportMetric(exp.perCPU, "export-items/cpu-s")
		b.ReportMetric(float64(exp.rssGrowth), "export-rss-MiB")
		if !keep {
			os.RemoveAll(filepath.Join(dir, "db"))
		}
		os.RemoveAll(filepath.Join(st.Root, "out"))
	}
}

// scaleCount is how many items a transfer benchmark moves:
// DDBLOCAL_TRANSFER_SCALE, 1,000,000 by default.
func scaleCount() int {
	if v, _ := strconv.Atoi(os.Getenv("DDBLOCAL_TRANSFER_SCALE")); v > 0 {
		return v
	}
	return 1000000
}

// scaleServerArgs are the flags of a transfer benchmark's server: its
// database in dir, its S3 folder s3Dir, pprof on, and --in-memory (then
// inMemory is true) with DDBLOCAL_TRANSFER_IN_MEMORY.
func scaleServerArgs(dir, s3Dir string) (args []string, inMemory bool) {
	args = []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "db"), "--s3-dir", s3Dir, "--pprof"}
	inMemory = os.Getenv("DDBLOCAL_TRANSFER_IN_MEMORY") != ""
	if inMemory {
		args = append(args, "--in-memory") // to compare: no write-ahead log, no bbolt checkpoints
	}
	return args, inMemory
}

// createScaleTable creates table Big (key pk, a string), on demand, for
// the items of writeScaleSource.
func createScaleTable(t testing.TB, c *dynamodb.Client) {
	if _, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("Big"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
}

// waitCheckpointed waits until the checkpointer has copied the log backlog
// a prompt stop left (replayed at the start) into bbolt: at most the
// segment being written remains beside the database at path.
// So the export's RSS is its own, not the checkpoint's as well.
func waitCheckpointed(b *testing.B, path string) {
	start := time.Now()
	for deadline := start.Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if checkpointed(path) {
			b.Logf("log backlog checkpointed in %v", time.Since(start).Round(time.Millisecond))
			return
		}
	}
	b.Fatal("the log backlog was not checkpointed within 10 minutes")
}

// checkpointed reports whether at most the segment being written remains
// of the log of the database at path.
func checkpointed(path string) bool {
	segs, _ := filepath.Glob(path + "-wal-[0-9a-f]*") // not the spare
	return len(segs) <= 1
}

// stopSlow stops p with SIGTERM, waits until it exits 0 and logs how long
// that took: a durable server checkpoints at most a few MiB of its log at
// a stop and leaves the rest to the next start's replay, so even after a
// large load it stops within a second or so. With
// DDBLOCAL_TRANSFER_SERVERLOG=FILE it appends the server's stderr to FILE
// (with GODEBUG=gctrace=1 in the environment, the collector's trace).
func stopSlow(b *testing.B, p *proc) {
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Minute):
		b.Fatalf("ddblocal did not exit within 10 minutes:\n%s", p.log.String())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		b.Fatalf("after SIGTERM: exit code %d:\n%s", code, p.log.String())
	}
	b.Logf("stopped in %v", time.Since(start).Round(time.Millisecond))
	if path := os.Getenv("DDBLOCAL_TRANSFER_SERVERLOG"); path != "" {
		if err := appendFile(path, p.log.String()); err != nil {
			b.Fatal(err)
		}
	}
}

// appendFile appends s to the file at path, creating it if need be.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	return errors.Join(err, f.Close())
}

// benchImport imports src/big/ as table Big through p and reports it.
func benchImport(b *testing.B, p *proc, n int) measured {
	c := p.client()
	ctx := context.Background()
	probeIdle(b, c)
	fg := startProbe(b, c)
	m := procMeter{t: b, p: p}
	m.start()
	params := &types.TableCreationParameters{TableName: aws.String("Big"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	if os.Getenv("DDBLOCAL_TRANSFER_GSI") != "" { // a global index on n, every attribute projected
		params.AttributeDefinitions = append(params.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("n"), AttributeType: types.ScalarAttributeTypeN})
		params.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byN"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("n"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	}
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: scaleFormat(), InputCompressionType: types.InputCompressionTypeGzip,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("big/")}, TableCreationParameters: params})
	if err != nil {
		b.Fatal(err)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_CPUPROFILE"); path != "" {
		go m.profile(path, "profile", 10)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_TRACE"); path != "" {
		go m.profile(path, "trace", 2)
	}
	var last *types.ImportTableDescription
	d := m.until(func() bool {
		out, err := c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: imp.ImportTableDescription.ImportArn})
		if err != nil {
			b.Fatal(err)
		}
		last = out.ImportTableDescription
		return last.ImportStatus != types.ImportStatusInProgress
	})
	fg.report(b, "import")
	if last.ImportStatus != types.ImportStatusCompleted || last.ImportedItemCount != int64(n) {
		b.Fatalf("import: %s, %d of %d items", last.ImportStatus, last.ImportedItemCount, n)
	}
	res := m.report("import", n, d)
	enablePITR(b, c, "Big", 0)
	return res
}

// benchExport exports table Big through p in format ("": the default,
// DYNAMODB_JSON) and reports it.
func benchExport(b *testing.B, p *proc, format types.ExportFormat) measured {
	c := p.client()
	ctx := context.Background()
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Big")})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("table: %d items, TableSizeBytes %d MiB", aws.ToInt64(desc.Table.ItemCount), aws.ToInt64(desc.Table.TableSizeBytes)>>20)
	probeIdle(b, c)
	fg := startProbe(b, c)
	m := procMeter{t: b, p: p}
	m.start()
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: desc.Table.TableArn, S3Bucket: aws.String("out"),
		ExportFormat: format})
	if err != nil {
		b.Fatal(err)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_CPUPROFILE"); path != "" {
		go m.profile(path+"-export", "profile", 10)
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_TRACE"); path != "" {
		go m.profile(path+"-export", "trace", 2)
	}
	var e *types.ExportDescription
	d := m.until(func() bool {
		got, err := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
		if err != nil {
			b.Fatal(err)
		}
		e = got.ExportDescription
		return e.ExportStatus != types.ExportStatusInProgress
	})
	fg.report(b, "export")
	if e.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(e.ItemCount) != aws.ToInt64(desc.Table.ItemCount) {
		b.Fatalf("export: %s, %d items", e.ExportStatus, aws.ToInt64(e.ItemCount))
	}
	return m.report("export", int(aws.ToInt64(e.ItemCount)), d)
}

// benchBatchLoad loads the n items of writeScaleSource into table Big of a
// fresh durable server with BatchWriteItem and returns the server's RSS
// growth in MiB, read after the load as the import's peak is.
func benchBatchLoad(b *testing.B, n int) int64 {
	dir := b.TempDir()
	p := startBinary(b, dir, nil, "--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "db"), "--pprof")
	defer stopSlow(b, p)
	c := p.client()
	ctx := context.Background()
	createScaleTable(b, c)
	m := procMeter{t: b, p: p}
	m.start()
	const clients = 8
	errs := make(chan error, clients)
	var next atomic.Int64
	for range clients {
		go func() { errs <- batchLoad(ctx, c, &next, n) }()
	}
	finished := 0
	d := m.until(func() bool {
		select {
		case err := <-errs:
			if err != nil {
				b.Fatal(err)
			}
			finished++
		default:
		}
		return finished == clients
	})
	return m.report("BatchWriteItem", n, d).rssGrowth
}

// batchLoad writes scaleItem(i) for the i it takes from next, 25 a request,
// until n.
func batchLoad(ctx context.Context, c *dynamodb.Client, next *atomic.Int64, n int) error {
	for {
		from := int(next.Add(25)) - 25
		if from >= n {
			return nil
		}
		reqs := make([]types.WriteRequest, 0, 25)
		for i := from; i < min(n, from+25); i++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: scaleItem(i)}})
		}
		in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Big": reqs}}
		for len(in.RequestItems) > 0 {
			out, err := c.BatchWriteItem(ctx, in)
			if err != nil {
				return err
			}
			in.RequestItems = out.UnprocessedItems
		}
	}
}

// scaleItem is item i of writeScaleSource, for the SDK.
func scaleItem(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":   &types.AttributeValueMemberS{Value: fmt.Sprintf("user-%09d", i)},
		"n":    &types.AttributeValueMemberN{Value: strconv.Itoa(i * 7)},
		"name": &types.AttributeValueMemberS{Value: fmt.Sprintf("some name %d", i)},
		"tags": &types.AttributeValueMemberSS{Value: []string{"a", fmt.Sprintf("b%d", i%13)}},
		"ok":   &types.AttributeValueMemberBOOL{Value: true},
	}
}

// scaleFormat is the format of the import's source: DYNAMODB_JSON, or
// DDBLOCAL_TRANSFER_INPUT (ION or CSV).
func scaleFormat() types.InputFormat {
	if f := os.Getenv("DDBLOCAL_TRANSFER_INPUT"); f != "" {
		return types.InputFormat(f)
	}
	return types.InputFormatDynamodbJson
}

// writeScaleSource writes n ~100-byte items as gzip lines of scaleFormat
// in 8 objects (in CSV, n and ok are strings, and there are no tags).
func writeScaleSource(t testing.TB, st bucket.Store, n int) {
	const files = 8
	line := `{"Item":{"pk":{"S":"user-%09[1]d"},"n":{"N":"%[2]d"},"name":{"S":"some name %[1]d"},"tags":{"SS":["a","b%[3]d"]},"ok":{"BOOL":true}}}` + "\n"
	switch scaleFormat() {
	case types.InputFormatIon:
		line = `$ion_1_0 {Item:{pk:"user-%09[1]d",n:%[2]d.,name:"some name %[1]d",tags:$dynamodb_SS::["a","b%[3]d"],ok:true}}` + "\n"
	case types.InputFormatCsv:
		line = "user-%09[1]d,%[2]d,some name %[1]d,true\n"
	}
	for f := range files {
		w, err := st.Create(context.Background(), "src", fmt.Sprintf("big/part-%d.gz", f))
		if err != nil {
			t.Fatal(err)
		}
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		bw := bufio.NewWriter(zw)
		if scaleFormat() == types.InputFormatCsv {
			bw.WriteString("pk,n,name,ok\n")
		}
		for i := f; i < n; i += files {
			fmt.Fprintf(bw, line, i, i*7, i%13)
		}
		bw.Flush()
		zw.Close()
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// measured is one way's figures.
type measured struct {
	rate, perCPU float64
	rssGrowth    int64 // MiB, at the peak
}

// procMeter samples a server process's memory and CPU from /proc and its
// live heap from pprof.
type procMeter struct {
	t               testing.TB
	p               *proc
	began           time.Time
	rss0, live0     int64 // KiB, bytes
	gc0, forced     int64 // the server's collections at start, and those liveHeap forced since
	cpu0            time.Duration
	peak, peakAnon  int64 // KiB
	rssAnon0, file0 int64 // KiB
}

// start records the baseline: RSS, anonymous and file-backed RSS, the live
// heap after a collection, and CPU time.
func (m *procMeter) start() {
	m.live0, m.gc0 = m.liveHeap()
	m.forced = 0
	s := m.status()
	m.rss0, m.rssAnon0, m.file0 = s["VmRSS"], s["RssAnon"], s["RssFile"]
	m.peak, m.peakAnon = m.rss0, m.rssAnon0
	m.cpu0 = m.cpu()
	m.began = time.Now()
}

// until samples RSS every 20 ms until done reports true, and returns how
// long that took.
// With DDBLOCAL_TRANSFER_HEAPPROFILE=FILE it saves the server's heap
// profile (as it is, no collection) to FILE each time RSS passes its peak
// by 8 MiB: the last one saved shows what was live near the peak.
func (m *procMeter) until(done func() bool) time.Duration {
	heapAt, heapPath := m.peak, os.Getenv("DDBLOCAL_TRANSFER_HEAPPROFILE")
	for !done() {
		s := m.status()
		m.peak, m.peakAnon = max(m.peak, s["VmRSS"]), max(m.peakAnon, s["RssAnon"])
		if heapPath != "" && m.peak >= heapAt+8<<10 {
			heapAt = m.peak
			m.profile(heapPath, "heap", 0)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(m.began)
}

// report logs the rate, CPU, RSS growth, and the live heap's growth, and
// returns the rate, items per CPU-second and the peak RSS growth.
func (m *procMeter) report(what string, n int, took time.Duration) measured {
	cpu := m.cpu() - m.cpu0
	live, gcs := m.liveHeap()
	s := m.status()
	res := measured{rate: float64(n) / took.Seconds(), perCPU: float64(n) / cpu.Seconds(), rssGrowth: (m.peak - m.rss0) >> 10}
	m.t.Logf("%s: %d items in %v = %.0f items/s (server CPU %v = %.0f items per CPU-second; %d collections)", what, n, took.Round(time.Millisecond),
		res.rate, cpu.Round(time.Millisecond), res.perCPU, gcs-m.gc0-m.forced)
	m.t.Logf("%s: RSS %d MiB before, peak %d MiB (+%d MiB; anonymous +%d MiB), after %d MiB (file-backed %d → %d MiB); live heap %d → %d MiB (+%d MiB): working memory at the peak ≈ %d MiB",
		what, m.rss0>>10, m.peak>>10, res.rssGrowth, (m.peakAnon-m.rssAnon0)>>10, s["VmRSS"]>>10, m.file0>>10, s["RssFile"]>>10,
		m.live0>>20, live>>20, (live-m.live0)>>20, ((m.peak-m.rss0)<<10-(live-m.live0))>>20)
	return res
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
// then and how many collections it has run, that one included (pprof's
// heap profile in text, "# HeapAlloc = N" and "# NumGC = N").
func (m *procMeter) liveHeap() (heap, numGC int64) {
	resp, err := http.Get(m.p.URL + "/_ddblocal/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	m.forced++
	b, _ := io.ReadAll(resp.Body)
	field := func(name string) int64 {
		_, rest, ok := strings.Cut(string(b), "# "+name+" = ")
		if !ok {
			m.t.Fatalf("no %s in the heap profile: %.200s", name, b)
		}
		v, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
		return v
	}
	return field("HeapAlloc"), field("NumGC")
}

// profile saves the server's CPU profile (kind "profile") or execution
// trace ("trace") of the next seconds to path, or its heap profile now
// ("heap", seconds 0).
func (m *procMeter) profile(path, kind string, seconds int) {
	url := m.p.URL + "/_ddblocal/debug/pprof/" + kind
	if seconds > 0 {
		url += "?seconds=" + strconv.Itoa(seconds)
	}
	resp, err := http.Get(url)
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

// fgProbe measures what a transfer running in the background costs the
// requests in the foreground: while it runs, one client reads an item of
// a small table of its own with GetItem every 5 ms, one request at a time,
// and the latencies are reported as percentiles, the maximum and the
// shares of requests at 5 and 10 ms or more (issue
// 26: background work never blocks a foreground request for more than a
// few milliseconds). The machine's load shows in these figures too: read
// them beside the load average and beside a run with nothing in the
// background (DDBLOCAL_TRANSFER_PROBE_IDLE=1 probes for a second before the
// transfer starts).
type fgProbe struct {
	stop chan struct{}
	done chan []time.Duration
	sent []time.Time // when each request was sent, read after done
}

// startProbe creates table Probe (once) and its item, and starts probing.
func startProbe(t testing.TB, c *dynamodb.Client) *fgProbe {
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Probe"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "probe"}}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Probe"), Item: key}); err != nil {
		t.Fatal(err)
	}
	p := &fgProbe{stop: make(chan struct{}), done: make(chan []time.Duration, 1)}
	go func() {
		var lat []time.Duration
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				p.done <- lat
				return
			case <-tick.C:
			}
			began := time.Now()
			if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Probe"), Key: key}); err != nil {
				t.Error(err)
			}
			lat = append(lat, time.Since(began))
			p.sent = append(p.sent, began)
		}
	}()
	return p
}

// report stops the probe and logs its latencies. With
// DDBLOCAL_TRANSFER_PROBE_LOG=FILE it also appends to FILE one line per
// request: what, when it was sent (Unix ns) and its latency (ns), to
// match the slow ones with a server trace (DDBLOCAL_TRANSFER_TRACE).
func (p *fgProbe) report(t testing.TB, what string) {
	close(p.stop)
	lat := <-p.done
	if len(lat) == 0 {
		return
	}
	if path := os.Getenv("DDBLOCAL_TRANSFER_PROBE_LOG"); path != "" {
		var sb strings.Builder
		for i, d := range lat {
			fmt.Fprintf(&sb, "%s %d %d\n", strings.ReplaceAll(what, " ", "-"), p.sent[i].UnixNano(), d.Nanoseconds())
		}
		if err := appendFile(path, sb.String()); err != nil {
			t.Error(err)
		}
	}
	slices.Sort(lat)
	q := func(f float64) time.Duration { return lat[int(f*float64(len(lat)-1))].Round(10 * time.Microsecond) }
	// over is the share of requests that took d or more: steadier than
	// p99 on a shared machine.
	over := func(d time.Duration) float64 {
		i, _ := slices.BinarySearch(lat, d)
		return 100 * float64(len(lat)-i) / float64(len(lat))
	}
	t.Logf("%s: foreground GetItem latency over %d requests: p50 %v, p99 %v, p99.9 %v, max %v; %.1f %% at 5 ms or more, %.1f %% at 10 ms or more",
		what, len(lat), q(0.5), q(0.99), q(0.999), lat[len(lat)-1].Round(10*time.Microsecond), over(5*time.Millisecond), over(10*time.Millisecond))
}

// probeIdle logs the probe's latencies for a second with no transfer
// running, when DDBLOCAL_TRANSFER_PROBE_IDLE is set: the machine's own
// share of the figures.
func probeIdle(t testing.TB, c *dynamodb.Client) {
	if os.Getenv("DDBLOCAL_TRANSFER_PROBE_IDLE") == "" {
		return
	}
	p := startProbe(t, c)
	time.Sleep(time.Second)
	p.report(t, "idle")
}
