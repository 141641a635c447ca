package table

import (
	"errors"
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// A bulk load's chunk write. A record may carry a condition beside its item
// (ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues,
// as PutItem takes them): its item is put only if the condition holds for
// the item the table has under its key. A record whose condition fails is
// skipped, not an error: it counts in ProcessedItemCount, not in
// FailedItemCount, and leaves the status COMPLETED, as the API documents;
// with CONDITION_CHECK_FAILURE in OutputType it is reported, with the item
// the table had, once its chunk has committed.

// The FailureCode and FailureMessage of a load CancelBulkOperation
// stopped: the API returns both for a CANCELLED load but names no code, so
// these are ddblocal's.
const (
	bulkCancelledCode    = "BulkOperationCancelled"
	bulkCancelledMessage = "The bulk operation was cancelled by a CancelBulkOperation request"
)

// bulkConditionRecord is one line of a bulk load's CONDITION_CHECK_FAILURE
// report: the record's object and line, the item it would have put, and
// the item the table had (absent when it had none). Like the ERROR
// report's, the layout is ddblocal's own.
type bulkConditionRecord struct {
	S3Key        string
	Line         int
	Item         attr.Item
	ExistingItem attr.Item `json:",omitempty"`
}

// condFailure is a chunk's mutation whose condition failed: its index and
// the item the table had under its key (nil: none).
type condFailure struct {
	i        int
	existing attr.Item
}

// checkCondition compiles a record's condition, as the reader checks each
// record: an error makes the record bad (FailedItemCount, ERROR report).
func (l *bulkLoad) checkCondition(c *s3import.Condition) error {
	_, err := l.s.compileExpr(conditionInput(c))
	return err
}

func conditionInput(c *s3import.Condition) expressions.Input {
	return expressions.Input{ConditionExpression: c.Expression, Names: c.Names, Values: c.Values, Op: expressions.OpWrite}
}

// write paces, reports and puts one chunk; it stops the load when
// CancelBulkOperation has marked it CANCELLING. It computes (the chunk's
// mutations and sizes, its store transaction) holding a unit of the
// transfers' CPU budget, and gives it back while it writes a report or
// waits for the pace.
func (l *bulkLoad) write(c s3import.Chunk) error {
	reports, err := l.report(c.Bad)
	if err != nil {
		return err
	}
	cpu := l.s.transfers.cpu
	var muts []mutation
	var all loadBytes
	cpu.Run(func() {
		if muts, err = l.mutations(c.Records); err == nil {
			all = l.measure(c.Records)
		}
	})
	if err != nil {
		return err
	}
	if err := l.pace.wait(l.s.bg, all.units); err != nil {
		return err
	}
	var prev bulkJob
	pre := func(tx *store.Tx) error {
		prev = bulkJob{} // the store may run this more than once
		if err := l.o.Fence(tx); err != nil {
			return err
		}
		if _, err := readJob(tx, l.region, kindBulk, l.id, &prev); err != nil {
			return err
		}
		if prev.Desc.BulkOperationStatus == "CANCELLING" {
			return errBulkCancelled
		}
		return nil
	}
	post := func(tx *store.Tx, failed []condFailure) error {
		l.checkpoint(c, &prev.Progress, reports, l.written(c.Records, all, failed), len(failed))
		return writeJob(tx, l.region, kindBulk, l.id, l.job)
	}
	var failed []condFailure
	cpu.Run(func() { failed, err = l.s.applyLoad(muts, reuse(&l.results, len(muts)), pre, post) })
	if err != nil {
		return err
	}
	return l.reportConditions(c.Records, failed)
}

// bulkPrep is what the goroutine that decodes a load's good record makes
// of it (s3import.Options.Prepare), so that the one that writes need not:
// its storage key, its storage encoding (the bytes blindPut would encode),
// its size and its index entries' sizes (indexEntries). The plain twin
// (Service.plain) prepares nothing and computes each of these from the
// item as it writes; TestBulkPreparedIsPlain shows both store and log the
// same.
type bulkPrep struct {
	key, enc []byte
	size     int
	ix       []int64
}

// prepare checks a decoded record as the plain twin's Options do, its item
// (itemCheck) then its condition (checkCondition), and prepares it. A
// record read in its storage encoding (s3import.Options.Encoded: an item
// alone, no condition) is prepareEncoded's.
func (l *bulkLoad) prepare(r s3import.Record) (any, error) {
	if !r.Encoded.IsZero() {
		return l.prepareEncoded(r.Encoded)
	}
	it := r.Item
	key, err := l.m.itemKey(it)
	if err != nil {
		return nil, err
	}
	size := it.Size()
	if err := l.m.checkStored(size, itemLookup(it), false); err != nil {
		return nil, err
	}
	if r.Condition != nil {
		if err := l.checkCondition(r.Condition); err != nil {
			return nil, err
		}
	}
	enc := attr.AppendBinarySized(make([]byte, 0, size+4*len(it)+8), it, size)
	return &bulkPrep{key: key, enc: enc, size: size, ix: l.indexEntries(it)}, nil
}

// prepareEncoded is prepare for an item read in its storage encoding,
// which is stored as it is: its key and its limits checked through
// Encoded.Lookup, its size the one the encoding records, its index
// entries' sizes from the attributes the indexes read (indexPart).
func (l *bulkLoad) prepareEncoded(e attr.Encoded) (any, error) {
	key, err := l.m.itemKeyFrom(e.Lookup)
	if err != nil {
		return nil, err
	}
	size := e.Size()
	if err := l.m.checkStored(size, e.Lookup, false); err != nil {
		return nil, err
	}
	ix, err := l.indexEntriesEncoded(key, e, size)
	if err != nil {
		return nil, err
	}
	return &bulkPrep{key: key, enc: e.Bytes(), size: size, ix: ix}, nil
}

// mutations are a chunk's puts: blind (of the prepared encoding, when
// there is one), or conditional on the record's condition (compiled
// again: the reader checked it, and the compiler keeps its template). A
// record read in its storage encoding has no Item: its mutation has no
// next, and puts (or, through the envelope, decodes) the encoding.
func (l *bulkLoad) mutations(recs []s3import.Record) ([]mutation, error) {
	muts := reuse(&l.muts, len(recs))
	for i, r := range recs {
		l.s.transfers.cpu.Pause(i)
		it := r.Item
		p, _ := r.Prepared.(*bulkPrep)
		var key []byte
		if p != nil {
			key = p.key
		} else {
			var err error
			if key, err = l.m.itemKey(it); err != nil {
				return nil, err
			}
		}
		muts[i] = mutation{meta: l.m, key: key}
		if it != nil {
			muts[i].next = func(attr.Item) (attr.Item, error) { return it, nil }
		}
		if r.Condition == nil {
			muts[i].blind = true
			if p != nil {
				muts[i].enc = p.enc
			}
			continue
		}
		c, err := l.s.compileExpr(conditionInput(r.Condition))
		if err != nil {
			return nil, err
		}
		muts[i].cond, muts[i].returnOldOnFailure = c.Condition, true
	}
	return muts, nil
}

// loadBytes is what a run of items costs and adds: write units (one per
// started KB of each item), their bytes, and each index's.
type loadBytes struct {
	items, units, size int64
	ix                 indexSizes
}

// measure is the loadBytes of recs.
func (l *bulkLoad) measure(recs []s3import.Record) loadBytes {
	b := loadBytes{ix: indexSizes{gsi: map[string]int64{}, lsi: map[string]int64{}, vector: map[string]int64{}}}
	for i, r := range recs {
		l.s.transfers.cpu.Pause(i)
		var n int64
		if p, ok := r.Prepared.(*bulkPrep); ok {
			n = int64(p.size)
			l.addEntries(p.ix, b.ix)
		} else {
			n = int64(r.Item.Size())
			l.addEntries(l.indexEntries(r.Item), b.ix)
		}
		b.items, b.size, b.units = b.items+1, b.size+n, b.units+(n+1023)/1024
	}
	return b
}

// written is all, the loadBytes of recs, without the records whose
// condition failed.
func (l *bulkLoad) written(recs []s3import.Record, all loadBytes, failed []condFailure) loadBytes {
	if len(failed) == 0 {
		return all
	}
	skipped := make([]s3import.Record, len(failed))
	for i, f := range failed {
		skipped[i] = recs[f.i]
	}
	return all.minus(l.measure(skipped))
}

// minus is b without o's items.
func (b loadBytes) minus(o loadBytes) loadBytes {
	sub := func(a, c map[string]int64) map[string]int64 {
		out := make(map[string]int64, len(a))
		for k, v := range a {
			if v -= c[k]; v != 0 {
				out[k] = v
			}
		}
		return out
	}
	return loadBytes{items: b.items - o.items, units: b.units - o.units, size: b.size - o.size,
		ix: indexSizes{gsi: sub(b.ix.gsi, o.ix.gsi), lsi: sub(b.ix.lsi, o.ix.lsi), vector: sub(b.ix.vector, o.ix.vector)}}
}

// checkpoint sets the load's record after chunk c on top of prev, the
// stored checkpoint: the read's position and counts, the items written
// (w: those whose condition did not fail) and their bytes, and the report
// objects written. It sets, not adds to, l.job: the store may run the
// transaction more than once.
func (l *bulkLoad) checkpoint(c s3import.Chunk, prev *jobProgress, reports int, w loadBytes, condFailed int) {
	p := &l.job.Progress
	p.Pos, p.Written, p.Bytes, p.Reports = c.Pos, prev.Written+w.items, prev.Bytes+w.size, reports
	p.GSI, p.LSI, p.Vector = addBytes(prev.GSI, w.ix.gsi), addBytes(prev.LSI, w.ix.lsi), addBytes(prev.Vector, w.ix.vector)
	p.CondReports = prev.CondReports
	if condFailed > 0 && l.wants("CONDITION_CHECK_FAILURE") {
		p.CondReports++
	}
	d := &l.job.Desc
	read := c.Pos.Stats.Bytes
	d.ProcessedItemCount, d.FailedItemCount, d.ProcessedInputBytes = c.Pos.Stats.Processed, c.Pos.Stats.Errors, &read
	l.usage()
}

// reportConditions writes a committed chunk's condition failures as one
// report object, numbered by the checkpoint's count, when the load asked
// for CONDITION_CHECK_FAILURE output. A crash between the chunk's commit
// and this write loses that object: the load resumes after the chunk.
func (l *bulkLoad) reportConditions(recs []s3import.Record, failed []condFailure) error {
	if len(failed) == 0 || !l.wants("CONDITION_CHECK_FAILURE") {
		return nil
	}
	lines := make([]any, len(failed))
	for i, f := range failed {
		r := recs[f.i]
		lines[i] = bulkConditionRecord{S3Key: r.Key, Line: r.Line, Item: r.Item, ExistingItem: f.existing}
	}
	out := l.job.Desc.OutputS3Configuration
	return l.writeReport(fmt.Sprintf("%s/condition-check-failures/%05d.json", bulkReportBase(out.S3KeyPrefix, l.id), l.job.Progress.CondReports), lines)
}

// reuse returns (*buf)[:n], zeroed, after growing *buf when it is
// shorter: a load writes its chunks one after another, and nothing keeps a
// chunk's mutations or their results once its write has returned, so the
// next chunk's take their memory rather than make garbage of it.
func reuse[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	out := (*buf)[:n]
	clear(out)
	return out
}

// applyLoad applies a bulk load's mutations in one store transaction, as
// the service's own writes (not admitted): pre first (it may refuse the
// chunk), then each mutation, one whose condition fails skipped (it wrote
// nothing) and returned among the failures, then post, which is told them.
// results (as long as muts) holds the writes' results meanwhile.
func (s *Service) applyLoad(muts []mutation, results []written, pre func(*store.Tx) error, post func(*store.Tx, []condFailure) error) ([]condFailure, error) {
	op, err := s.beginWrite(writeService, pointers(muts))
	if err != nil {
		return nil, err
	}
	var failed []condFailure
	err = s.runWrite(s.bg, op, func(tx *store.Tx, now int64) error {
		clear(results) // the store may run this more than once
		failed = failed[:0]
		if err := pre(tx); err != nil {
			return err
		}
		sw := &spaceWrites{spaces: map[string]*store.Space{}, stats: map[string]*[2]int64{}}
		for i, mu := range op.muts {
			w, _, err := s.applyOne(tx, now, sw, mu)
			if err != nil {
				if e := conditionFailed(mu, err); e != nil {
					failed = append(failed, condFailure{i: i, existing: e.Item})
					continue
				}
				return err
			}
			results[i] = w
		}
		if err := sw.flush(); err != nil {
			return err
		}
		return post(tx, failed)
	})
	return failed, s.finishWrite(s.bg, op, results, err)
}

// conditionFailed returns err when it is mu's condition failing (a
// ConditionalCheckFailedException), else nil. (Apart from applyLoad, so
// that a write that succeeds allocates no target for errors.As.)
func conditionFailed(mu *mutation, err error) *ddb.Error {
	var e *ddb.Error
	if mu.cond != nil && errors.As(err, &e) && e.Code == ddb.ConditionalCheckFailedException {
		return e
	}
	return nil
}
