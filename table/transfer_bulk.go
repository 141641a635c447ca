package table

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// Bulk loads (StartBulkPutItems): items from S3 put into an existing
// table in the background, through the same write path as BatchWriteItem
// puts (one store transaction per chunk), so global and local indexes,
// streams and TTL see them as they see any put; they consume no table
// capacity and are never throttled. MaxWriteRequestUnits paces the load
// (one unit per started KB of each item). Records that do not parse or
// that the table refuses are counted in FailedItemCount, and with ERROR in
// OutputType written as JSON lines to the output location; a record's own
// condition is evaluated as PutItem's (transfer_bulk_write.go). An input
// object whose bytes break off (a corrupt or truncated compressed stream)
// is one failed record where it breaks, reported as the others are, and
// the load goes on with the next object: OutputS3Configuration's ERROR
// "reports input records or input objects that DynamoDB couldn't
// process". An object the store cannot give still fails the load. Each chunk's
// transaction also writes the load's checkpoint, from which the next owner
// of the transfers resumes a load a stopped server left (transfer_run.go).

const kindBulk = "bulk-operation"

// bulkJob is a bulk load's record. Progress is its checkpoint.
type bulkJob struct {
	Created  int64
	Desc     ddb.BulkOperationDescription
	Progress jobProgress
}

// bulkReportRecord is one line of a bulk load's ERROR report. The
// service's documented report layout could not be consulted, so this one
// is ddblocal's own: the object, its line and the reason.
type bulkReportRecord struct {
	S3Key        string
	Line         int
	ErrorMessage string
}

// StartBulkPutItems records the load IN_PROGRESS and starts it (every
// member's documented constraint is the validator's: ddb tags); a repeated
// ClientToken within 8 hours returns the first load when the request is
// the same and IdempotentParameterMismatchException when it is not.
func (s *Service) StartBulkPutItems(ctx context.Context, region string, in *ddb.StartBulkPutItemsInput) (*ddb.BulkOperationOutput, error) {
	// Not s.table, which refuses a table an import creates: checkBulkState
	// answers for it.
	m, err := s.lookup(ctx, region, in.TableName, "", nil)
	if err != nil {
		return nil, err
	}
	if err := checkBulkTarget(m); err != nil { // transfer_bulk_global.go
		return nil, err
	}
	if err := s.checkBulkState(m); err != nil { // transfer_bulk_state.go
		return nil, err
	}
	now := s.now()
	job := newBulkJob(m, in, now)
	id, _ := jobIDFromARN(job.Desc.BulkOperationArn, kindBulk)
	var prev *bulkJob
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		if prev, err = jobByToken[bulkJob](s, tx, region, kindBulk, in.ClientToken); err != nil || prev != nil {
			return err
		}
		return writeJob(tx, region, kindBulk, id, job)
	})
	if err != nil {
		return nil, err
	}
	if prev != nil {
		if !sameBulk(&prev.Desc, &job.Desc) {
			return nil, ddb.Errorf(ddb.IdempotentParameterMismatchException, msgIdempotentMismatch)
		}
		return &ddb.BulkOperationOutput{BulkOperationDescription: prev.Desc}, nil
	}
	s.wakeTransfers()
	return &ddb.BulkOperationOutput{BulkOperationDescription: job.Desc}, nil
}

func newBulkJob(m *tableMeta, in *ddb.StartBulkPutItemsInput, now time.Time) *bulkJob {
	d := ddb.BulkOperationDescription{BulkOperationArn: m.arn() + "/" + kindBulk + "/" + jobID(now), BulkOperationStatus: "IN_PROGRESS",
		TableDetails: []ddb.BulkOperationTableDetail{{TableName: m.Name, TableId: m.ID}}, ClientToken: in.ClientToken,
		InputS3Configuration: *in.InputS3Configuration, OutputS3Configuration: *in.OutputS3Configuration,
		MaxWriteRequestUnits: in.MaxWriteRequestUnits, PerformanceTier: in.PerformanceTier, StartTime: epochSeconds(now.UnixNano())}
	if d.PerformanceTier == "" {
		d.PerformanceTier = "STANDARD"
	}
	if d.InputS3Configuration.InputCompressionType == "" {
		d.InputS3Configuration.InputCompressionType = s3import.CompressionNone
	}
	return &bulkJob{Created: now.UnixNano(), Desc: d}
}

// sameBulk reports whether two loads were asked for with the same
// parameters.
func sameBulk(a, b *ddb.BulkOperationDescription) bool {
	ja, _ := json.Marshal([]any{a.TableDetails[0].TableName, a.InputS3Configuration, a.OutputS3Configuration, a.MaxWriteRequestUnits, a.PerformanceTier})
	jb, _ := json.Marshal([]any{b.TableDetails[0].TableName, b.InputS3Configuration, b.OutputS3Configuration, b.MaxWriteRequestUnits, b.PerformanceTier})
	return string(ja) == string(jb)
}

// runBulk loads the items (from its checkpoint on) and records how the
// load ended, while this process owns the transfers (o).
func (s *Service) runBulk(o *store.Ownership, region, id string, job *bulkJob) {
	d := &job.Desc
	l := &bulkLoad{s: s, o: o, region: region, id: id, job: job, pace: newPacer(d.MaxWriteRequestUnits)}
	st, err := l.run()
	if err != nil && s.jobStopped(err) {
		return
	}
	end := epochSeconds(s.now().UnixNano())
	d.EndTime, d.ProcessedInputBytes = &end, &st.Bytes
	d.ProcessedItemCount, d.FailedItemCount = st.Processed, st.Errors
	l.usage()
	switch {
	case err == errBulkCancelled:
		d.BulkOperationStatus = "CANCELLED"
		d.FailureCode, d.FailureMessage = bulkCancelledCode, bulkCancelledMessage
	case err != nil:
		d.BulkOperationStatus = "FAILED"
		d.FailureCode, d.FailureMessage = s3Failure(err)
	case st.Errors > 0:
		d.BulkOperationStatus = "COMPLETED_WITH_ERRORS"
	default:
		d.BulkOperationStatus = "COMPLETED"
	}
	s.endJob(o, region, kindBulk, id, job)
}

// errBulkCancelled stops a load CancelBulkOperation asked to stop.
var errBulkCancelled = fmt.Errorf("table: bulk load cancelled")

// bulkLoad is one running load.
type bulkLoad struct {
	s          *Service
	o          *store.Ownership
	region, id string
	m          *tableMeta
	job        *bulkJob
	pace       *pacer
	// ixNames are the attributes m's global and local indexes read
	// (indexNames), for indexPart.
	ixNames []string
	// muts and results are the memory of a chunk's mutations and of
	// their results, reused by the next chunk (reuse).
	muts    []mutation
	results []written
}

// run reads the input from the checkpoint on, in chunks on one goroutine,
// and writes them on this one, as an import does. Its reading, decoding
// and writing compute within the imports' CPU budget (every core, with spare
// processors while it computes, yielding every 128 items:
// s3import.NewCoresBudget), which every transfer of the process shares, so
// that foreground requests find a free processor.
func (l *bulkLoad) run() (s3import.Stats, error) {
	from := l.job.Progress.Pos
	if l.s.opts.S3 == nil {
		return from.Stats, errNoS3
	}
	d := &l.job.Desc
	var err error
	if l.m, err = l.s.jobTable(l.region, d.TableDetails[0].TableName, d.TableDetails[0].TableId); err != nil {
		return from.Stats, err
	}
	in := d.InputS3Configuration
	if d.TotalInputBytes == nil {
		total, err := l.inputBytes()
		if err != nil {
			return from.Stats, err
		}
		d.TotalInputBytes = &total
	}
	l.ixNames = indexNames(slices.Concat(l.m.gsis, l.m.lsis))
	// An item alone comes in its storage encoding (Encoded): prepared, not
	// decoded into a map.
	o := s3import.Options{Format: in.InputFormat, Compression: in.InputCompressionType, Prepare: l.prepare,
		Conditions: true, Encoded: true, CPU: l.s.transfers.cpu, SkipBroken: true}
	if l.s.plain { // the plain twin: each item decoded, keyed, sized and encoded by the goroutine that writes
		o.Prepare, o.Check, o.CheckCondition, o.Encoded = nil, itemCheck(l.m), l.checkCondition, false
	}
	return l.s.readChunks(l.s.s3Store(l.region, in.S3BucketOwner), in.S3Bucket, in.S3KeyPrefix, o, from, tierWorkers(d.PerformanceTier), l.write)
}

// tierWorkers is how many goroutines decode a load's input in a
// performance tier. The service documents only that ACCELERATED "targets
// higher throughput" than STANDARD: a STANDARD load decodes on one
// goroutine beside the one that writes, an ACCELERATED one on every core
// (0).
func tierWorkers(tier string) int {
	if tier == "ACCELERATED" {
		return 0
	}
	return 1
}

// inputBytes is the size of the load's input objects, as stored: the
// description's TotalInputBytes, which the service reports once it has
// sized the input (it is kept with the first checkpoint).
func (l *bulkLoad) inputBytes() (int64, error) {
	in := l.job.Desc.InputS3Configuration
	var total int64
	err := l.s.s3Store(l.region, in.S3BucketOwner).List(l.s.bg, in.S3Bucket, in.S3KeyPrefix, func(o bucket.Object) error {
		total += o.Size
		return nil
	})
	return total, err
}

// usage sets the description's BulkOperationUsage from the progress: the
// table's bytes, each index's, and their total.
func (l *bulkLoad) usage() {
	d, p := &l.job.Desc, &l.job.Progress
	u := ddb.BulkOperationUsage{TableName: d.TableDetails[0].TableName, BulkPutBytes: p.Bytes, Table: &ddb.BulkOperationBytes{BulkPutBytes: p.Bytes}}
	u.GlobalSecondaryIndexes, u.BulkPutBytes = indexUsage(p.GSI, u.BulkPutBytes)
	u.LocalSecondaryIndexes, u.BulkPutBytes = indexUsage(p.LSI, u.BulkPutBytes)
	for name, n := range p.Vector { // not in BulkPutBytes, which "excludes bulk put vector bytes"
		if u.VectorIndexes == nil {
			u.VectorIndexes = map[string]ddb.BulkOperationVectorBytes{}
		}
		u.VectorIndexes[name] = ddb.BulkOperationVectorBytes{BulkPutVectorBytes: n}
	}
	d.BulkOperationUsage = []ddb.BulkOperationUsage{u}
}

// indexUsage returns the usage of indexes (nil for none) and total plus
// their bytes.
func indexUsage(bytes map[string]int64, total int64) (map[string]ddb.BulkOperationBytes, int64) {
	if len(bytes) == 0 {
		return nil, total
	}
	out := make(map[string]ddb.BulkOperationBytes, len(bytes))
	for name, n := range bytes {
		out[name] = ddb.BulkOperationBytes{BulkPutBytes: n}
		total += n
	}
	return out, total
}

// indexSizes are the bytes a chunk adds to each index, by name.
type indexSizes struct{ gsi, lsi, vector map[string]int64 }

// indexEntries returns the size of the entry each of the table's indexes
// stores for it, its global indexes', then its local and its vector
// indexes' (-1 where it lacks the index's key or vector; nil for a table
// without indexes): a vector index's entry as vector write capacity
// counts it (vector_capacity.go).
func (l *bulkLoad) indexEntries(it attr.Item) []int64 {
	m := l.m
	n := len(m.gsis) + len(m.lsis) + len(m.vectors)
	tkey, err := m.itemKey(it)
	if n == 0 || err != nil {
		return nil
	}
	out := make([]int64, 0, n)
	for _, d := range m.gsis {
		out = append(out, changeSize(d.Diff(tkey, nil, it)))
	}
	for _, d := range m.lsis {
		out = append(out, changeSize(d.Diff(tkey, nil, it)))
	}
	for i, d := range m.vectors {
		if inVectorIndex(d, it) {
			out = append(out, int64(m.vectorEntrySize(m.VectorIndexes[i], it)))
		} else {
			out = append(out, -1)
		}
	}
	return out
}

// indexEntriesEncoded is indexEntries for an item in its storage
// encoding e, whose table key is tkey and size size: the global and local
// indexes' entries from the attributes they read (indexPart), the item's
// size for those that project every attribute. A table with a vector
// index decodes the item whole.
func (l *bulkLoad) indexEntriesEncoded(tkey []byte, e attr.Encoded, size int) ([]int64, error) {
	m := l.m
	if len(m.vectors) > 0 {
		it, err := e.Item()
		if err != nil {
			return nil, err
		}
		return l.indexEntries(it), nil
	}
	if len(m.gsis)+len(m.lsis) == 0 {
		return nil, nil
	}
	part := l.indexPart(e)
	out := make([]int64, 0, len(m.gsis)+len(m.lsis))
	for _, ds := range [][]*index.Def{m.gsis, m.lsis} {
		for _, d := range ds {
			out = append(out, changeSize(d.DiffSized(tkey, nil, part, -1, size)))
		}
	}
	return out, nil
}

// indexPart is the part of e that the table's global and local indexes
// read: their keys' attributes, the table's, and those an INCLUDE
// projection names (indexNames), decoded.
func (l *bulkLoad) indexPart(e attr.Encoded) attr.Item {
	part := make(attr.Item, len(l.ixNames))
	for _, n := range l.ixNames {
		if v, ok := e.Lookup(n); ok {
			part[n] = v
		}
	}
	return part
}

// changeSize is the size of the entry an index change adds, -1 for none.
func changeSize(c index.Change) int64 {
	if c.NewKey == nil {
		return -1
	}
	return int64(c.NewSize)
}

// addEntries adds to ix the entry sizes of one item, as indexEntries
// returns them.
func (l *bulkLoad) addEntries(sizes []int64, ix indexSizes) {
	g, ls := len(l.m.gsis), len(l.m.lsis)
	for i, n := range sizes {
		switch {
		case n < 0:
		case i < g:
			ix.gsi[l.m.gsis[i].Name] += n
		case i < g+ls:
			ix.lsi[l.m.lsis[i-g].Name] += n
		default:
			ix.vector[l.m.vectors[i-g-ls].Name] += n
		}
	}
}

// addBytes returns a new map of a's counts plus b's (nil when both are
// empty), leaving a, the stored record's, as it was.
func addBytes(a, b map[string]int64) map[string]int64 {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make(map[string]int64, len(a)+len(b))
	for k, v := range a {
		out[k] += v
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

// report writes a chunk's bad records to the output location as one
// object of JSON lines, when the load asked for ERROR output, and returns
// how many report objects the load has written then. The object is
// numbered after the checkpoint's count: a load resumed after a crash
// writes the same chunk's report under the same name again.
func (l *bulkLoad) report(bad []*s3import.RecordError) (int, error) {
	out, n := l.job.Desc.OutputS3Configuration, l.job.Progress.Reports
	if len(bad) == 0 || !l.wants("ERROR") {
		return n, nil
	}
	n++
	lines := make([]any, len(bad))
	for i, e := range bad {
		lines[i] = bulkReportRecord{S3Key: e.Key, Line: e.Line, ErrorMessage: e.Err.Error()}
	}
	return n, l.writeReport(fmt.Sprintf("%s/errors/%05d.json", bulkReportBase(out.S3KeyPrefix, l.id), n), lines)
}

// wants reports whether the load asked for output of type t and named a
// bucket for it.
func (l *bulkLoad) wants(t string) bool {
	out := l.job.Desc.OutputS3Configuration
	return slices.Contains(out.OutputType, t) && out.S3Bucket != ""
}

// writeReport writes lines as one object of JSON lines under key in the
// output bucket.
func (l *bulkLoad) writeReport(key string, lines []any) error {
	out := l.job.Desc.OutputS3Configuration
	w, err := l.s.s3Store(l.region, out.S3BucketOwner).Create(l.s.bg, out.S3Bucket, key)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, line := range lines {
		if err := enc.Encode(line); err != nil {
			w.Abort()
			return err
		}
	}
	_, err = w.Commit()
	return err
}

// bulkReportBase is the folder of a load's report: PREFIX/ID.
func bulkReportBase(prefix, id string) string {
	if prefix == "" {
		return id
	}
	return prefix + "/" + id
}

// pacer holds a load to a rate in write units per second (nil: no limit),
// against the wall clock: it paces real work.
type pacer struct {
	rate  float64
	start time.Time
	spent int64
}

func newPacer(max *int64) *pacer {
	if max == nil {
		return nil
	}
	return &pacer{rate: float64(*max), start: time.Now()}
}

// wait spends units, sleeping until the rate allows them.
func (p *pacer) wait(ctx context.Context, units int64) error {
	if p == nil {
		return nil
	}
	p.spent += units
	ahead := time.Duration(float64(p.spent)/p.rate*float64(time.Second)) - time.Since(p.start)
	if ahead <= 0 {
		return nil
	}
	t := time.NewTimer(ahead)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DescribeBulkOperation describes one load of the request's region.
func (s *Service) DescribeBulkOperation(ctx context.Context, region string, in *ddb.DescribeBulkOperationInput) (*ddb.BulkOperationOutput, error) {
	j, err := s.bulkJob(region, in.BulkOperationArn)
	if err != nil {
		return nil, err
	}
	return &ddb.BulkOperationOutput{BulkOperationDescription: j.Desc}, nil
}

// bulkJob reads the load arn names, or ResourceNotFoundException.
func (s *Service) bulkJob(region, arn string) (*bulkJob, error) {
	notFound := ddb.Errorf(ddb.ResourceNotFoundException, "Bulk operation not found: %s", arn)
	id, ok := jobIDFromARN(arn, kindBulk)
	if !ok {
		return nil, notFound
	}
	var j bulkJob
	var found bool
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		found, err = readJob(tx, region, kindBulk, id, &j)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found || j.Desc.BulkOperationArn != arn {
		return nil, notFound
	}
	return &j, nil
}

// CancelBulkOperation marks a running load CANCELLING; the load stops
// before its next chunk and ends CANCELLED. Items already written stay.
func (s *Service) CancelBulkOperation(ctx context.Context, region string, in *ddb.CancelBulkOperationInput) (*ddb.CancelBulkOperationOutput, error) {
	if _, err := s.bulkJob(region, in.BulkOperationArn); err != nil {
		return nil, err
	}
	id, _ := jobIDFromARN(in.BulkOperationArn, kindBulk)
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var j bulkJob
		if _, err := readJob(tx, region, kindBulk, id, &j); err != nil {
			return err
		}
		switch j.Desc.BulkOperationStatus {
		case "CANCELLING":
			return nil
		case "IN_PROGRESS":
			j.Desc.BulkOperationStatus = "CANCELLING"
			return writeJob(tx, region, kindBulk, id, &j)
		}
		return ddb.Errorf(ddb.ValidationException, "Bulk operation %s cannot be cancelled in status %s", in.BulkOperationArn, j.Desc.BulkOperationStatus)
	})
	if err != nil {
		return nil, err
	}
	return &ddb.CancelBulkOperationOutput{BulkOperationArn: in.BulkOperationArn, BulkOperationStatus: "CANCELLING"}, nil
}

// ListBulkOperations lists the region's loads, most recent first,
// MaxResults (default 10) at a time.
func (s *Service) ListBulkOperations(ctx context.Context, region string, in *ddb.ListBulkOperationsInput) (*ddb.ListBulkOperationsOutput, error) {
	limit := 10
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	var all []ddb.BulkOperationSummary
	var err error
	verr := s.db.View(func(tx *store.Tx) error {
		eachJob(tx, region, kindBulk, func(raw []byte) bool {
			var j bulkJob
			if err = json.Unmarshal(raw, &j); err != nil {
				return false
			}
			d := j.Desc
			all = append(all, ddb.BulkOperationSummary{BulkOperationArn: d.BulkOperationArn, BulkOperationStatus: d.BulkOperationStatus,
				StartTime: d.StartTime, EndTime: d.EndTime})
			return true
		})
		return nil
	})
	if err == nil {
		err = verr
	}
	slices.Reverse(all)
	out := &ddb.ListBulkOperationsOutput{BulkOperationsSummaryList: []ddb.BulkOperationSummary{}}
	after := pageTokenID(in.NextToken)
	for _, b := range all {
		id, _ := jobIDFromARN(b.BulkOperationArn, kindBulk)
		if after != "" && id >= after {
			continue
		}
		if len(out.BulkOperationsSummaryList) == limit {
			out.NextToken = prevID(out.BulkOperationsSummaryList)
			break
		}
		out.BulkOperationsSummaryList = append(out.BulkOperationsSummaryList, b)
	}
	return out, err
}

// prevID is the NextToken naming the last load in list: the next page
// starts after it.
func prevID(list []ddb.BulkOperationSummary) string {
	id, _ := jobIDFromARN(list[len(list)-1].BulkOperationArn, kindBulk)
	return pageToken(id)
}
