package table

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/s3export"
)

// ExportTableToPointInTime starts writing a table, as it was at ExportTime
// (default: now), to S3 in DynamoDB's export layout (package s3export), and
// returns at once with the export IN_PROGRESS; DescribeExport reports it
// COMPLETED or FAILED. The table needs point-in-time recovery, and the time
// must lie in its recovery window: the items are read as itemsAt reads them
// for a restore, from one snapshot, so the export never blocks writes.
func (s *Service) ExportTableToPointInTime(ctx context.Context, region string, in *ddb.ExportTableToPointInTimeInput) (*ddb.ExportDescriptionOutput, error) {
	incr := in.ExportType == s3export.IncrementalExport
	if !incr && in.IncrementalExportSpecification != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "IncrementalExportSpecification can only be used with ExportType INCREMENTAL_EXPORT")
	}
	if incr && in.FilterSpecification != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "FilterSpecification can only be used with ExportType FULL_EXPORT")
	}
	if _, err := s.exportFilter(in.FilterSpecification); err != nil {
		return nil, err
	}
	m, err := s.exportSource(ctx, region, in.TableArn)
	if err != nil {
		return nil, err
	}
	if m.PITR == nil {
		return nil, ddb.Errorf(ddb.PointInTimeRecoveryUnavailableException, "Point in time recovery is not enabled for table '%s'", m.Name)
	}
	now := s.now()
	at, inc := now, (*incremental)(nil)
	if incr {
		inc, err = incrementalWindow(in, m.PITR, now)
	} else {
		at, err = exportInstant(m.PITR, in.ExportTime, now)
	}
	if err != nil {
		return nil, err
	}
	job := newExportJob(m, in, now, at, inc)
	if prev, err := s.startExport(ctx, region, job); err != nil || prev != nil {
		if prev != nil {
			return &ddb.ExportDescriptionOutput{ExportDescription: prev.Desc}, nil
		}
		return nil, err
	}
	s.wakeTransfers()
	return &ddb.ExportDescriptionOutput{ExportDescription: job.Desc}, nil
}

// exportSource returns the table TableArn names in region.
func (s *Service) exportSource(ctx context.Context, region, arn string) (*tableMeta, error) {
	arnRegion, name, ok := parseTableARN(arn)
	if !ok {
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: TableArn is not a valid ARN")
	}
	if arnRegion != region {
		return nil, ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", name)
	}
	return s.backupTable(ctx, region, name)
}

// exportInstant validates ExportTime (epoch seconds) against p's window.
func exportInstant(p *pitrMeta, secs *float64, now time.Time) (time.Time, error) {
	if secs == nil {
		return now, nil
	}
	at := time.UnixMilli(int64(math.Round(*secs * 1000)))
	earliest, latest := p.window(now)
	if at.Before(earliest) || at.After(latest) {
		return time.Time{}, ddb.Errorf(ddb.InvalidExportTimeException, "ExportTime '%s' must be within EarliestRestorableDateTime '%s' and LatestRestorableDateTime '%s'",
			isoSeconds(at), isoSeconds(earliest), isoSeconds(latest))
	}
	return at, nil
}

// newExportJob returns the record of an export starting now: a full
// export at at, or an incremental one (inc).
func newExportJob(m *tableMeta, in *ddb.ExportTableToPointInTimeInput, now, at time.Time, inc *incremental) *exportJob {
	id := jobID(now)
	exportAt := epochSeconds(at.UnixNano())
	d := ddb.ExportDescription{ExportArn: m.arn() + "/export/" + id, ExportStatus: "IN_PROGRESS", ExportType: s3export.FullExport,
		ExportFormat: in.ExportFormat, TableArn: m.arn(), TableId: m.ID, S3Bucket: in.S3Bucket, S3Prefix: in.S3Prefix,
		S3BucketOwner: in.S3BucketOwner, S3SseAlgorithm: in.S3SseAlgorithm, S3SseKmsKeyId: in.S3SseKmsKeyId,
		ClientToken: in.ClientToken, StartTime: epochSeconds(now.UnixNano()), ExportTime: &exportAt,
		FilterSpecification: in.FilterSpecification}
	if d.ExportFormat == "" {
		d.ExportFormat = s3export.FormatJSON
	}
	if d.S3SseAlgorithm == "" {
		d.S3SseAlgorithm = "AES256"
	}
	j := &exportJob{Created: now.UnixNano(), At: at.UnixNano(), Desc: d}
	if inc != nil {
		from, to := epochSeconds(inc.from.UnixNano()), epochSeconds(inc.to.UnixNano())
		d.ExportType, d.ExportTime = s3export.IncrementalExport, nil
		d.IncrementalExportSpecification = &ddb.IncrementalExportSpecification{ExportFromTime: &from, ExportToTime: &to, ExportViewType: inc.view}
		j.Desc, j.At, j.From, j.To = d, 0, inc.from.UnixNano(), inc.to.UnixNano()
	}
	return j
}

// startExport records job, unless a live export already has its
// ClientToken: then it returns that export when the request is the same,
// and ExportConflictException when it is not.
func (s *Service) startExport(ctx context.Context, region string, job *exportJob) (*exportJob, error) {
	var prev *exportJob
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		prev = nil
		if tok := job.Desc.ClientToken; tok != "" {
			var err error
			if prev, err = jobByToken[exportJob](s, tx, region, kindExport, tok); err != nil || prev != nil {
				return err
			}
		}
		return writeJob(tx, region, kindExport, exportID(job), job)
	})
	if err != nil || prev == nil {
		return nil, err
	}
	if !sameExport(prev.Desc, job.Desc) {
		return nil, ddb.Errorf(ddb.ExportConflictException, "Duplicate request detected: %s", prev.Desc.ExportArn)
	}
	return prev, nil
}

func exportID(j *exportJob) string { id, _ := jobIDFromARN(j.Desc.ExportArn, kindExport); return id }

// sameExport reports whether two requests ask for the same export.
func sameExport(a, b ddb.ExportDescription) bool {
	fa, _ := json.Marshal(a.FilterSpecification)
	fb, _ := json.Marshal(b.FilterSpecification)
	return a.TableArn == b.TableArn && a.S3Bucket == b.S3Bucket && a.S3Prefix == b.S3Prefix && a.ExportFormat == b.ExportFormat &&
		a.S3SseAlgorithm == b.S3SseAlgorithm && a.S3BucketOwner == b.S3BucketOwner && string(fa) == string(fb)
}

// exportFilter compiles a FilterSpecification; nil keeps every item whole.
func (s *Service) exportFilter(f *ddb.FilterSpecification) (*expressions.Compiled, error) {
	if f == nil {
		return nil, nil
	}
	op := expressions.OpScan
	if f.KeyConditionExpression != nil {
		op = expressions.OpQuery
	}
	return s.compileExpr(expressions.Input{KeyConditionExpression: f.KeyConditionExpression, FilterExpression: f.FilterExpression,
		ProjectionExpression: f.ProjectionExpression, Names: f.ExpressionAttributeNames, Values: f.ExpressionAttributeValues, Op: op})
}

// keep applies c to it: nil when filtered out, else it projected.
func keep(c *expressions.Compiled, it attr.Item) attr.Item {
	if c == nil {
		return it
	}
	if (c.KeyCondition != nil && !c.KeyCondition.Eval(it)) || (c.Filter != nil && !c.Filter.Eval(it)) {
		return nil
	}
	if c.Projection != nil {
		return c.Projection.Apply(it)
	}
	return it
}

// runExport writes (or writes again) the export its record describes and
// records how it ended, while this process owns the transfers (o).
func (s *Service) runExport(o *store.Ownership, region, id string, job *exportJob) {
	d := &job.Desc
	res, err := s.writeExport(o, region, id, job)
	if err != nil && s.jobStopped(err) {
		return
	}
	if err != nil || d.EndTime == nil {
		end := epochSeconds(s.now().UnixNano())
		d.EndTime = &end
	}
	if err != nil {
		d.ExportStatus = "FAILED"
		d.FailureCode, d.FailureMessage = s3Failure(err)
	} else {
		d.ExportStatus, d.ExportManifest, d.ItemCount, d.BilledSizeBytes = "COMPLETED", res.ManifestKey, &res.ItemCount, &res.BilledSizeBytes
	}
	s.endJob(o, region, kindExport, id, job)
}

// exportPlan is what an export's record asks for, ready to run.
type exportPlan struct {
	m      *tableMeta
	at     time.Time
	filter *expressions.Compiled
	inc    *incremental
}

// planExport rebuilds from an export's record its table, instant, filter
// and incremental window.
func (s *Service) planExport(region string, job *exportJob) (exportPlan, error) {
	d := &job.Desc
	_, name, _ := parseTableARN(d.TableArn)
	m, err := s.catalog.get(s.db, region, name)
	if err != nil {
		return exportPlan{}, err
	}
	if m == nil || m.ID != d.TableId {
		return exportPlan{}, fmt.Errorf("table: the table %s was deleted during the export", name)
	}
	p := exportPlan{m: m, at: time.Unix(0, job.At)}
	if job.At == 0 && d.ExportTime != nil { // a record from before At was kept
		p.at = epochTime(*d.ExportTime)
	}
	if p.filter, err = s.exportFilter(d.FilterSpecification); err != nil {
		return exportPlan{}, err
	}
	if spec := d.IncrementalExportSpecification; d.ExportType == s3export.IncrementalExport && spec != nil {
		p.inc = &incremental{from: time.Unix(0, job.From), to: time.Unix(0, job.To), view: spec.ExportViewType}
		p.at = p.inc.to
	}
	return p, nil
}

// writeExport streams the table's items at the export's instant through
// s3export; it stops with store.ErrNotOwner when this process loses the
// transfers.
func (s *Service) writeExport(o *store.Ownership, region, id string, job *exportJob) (s3export.Result, error) {
	d := &job.Desc
	if s.opts.S3 == nil {
		return s3export.Result{}, errNoS3
	}
	p, err := s.planExport(region, job)
	if err != nil {
		return s3export.Result{}, err
	}
	w, err := s3export.Start(s.bg, s3export.Options{Store: s.s3Store(region, d.S3BucketOwner), Bucket: d.S3Bucket, Prefix: d.S3Prefix,
		ID: id, Format: d.ExportFormat, CPU: s.transfers.cpu})
	if err != nil {
		return s3export.Result{}, err
	}
	if err = s.db.View(func(tx *store.Tx) error { return exportItems(s, o, tx, p, w) }); err == nil && !o.Held() {
		err = store.ErrNotOwner
	}
	if err != nil {
		w.Abort()
		return s3export.Result{}, err
	}
	end := s.now() // the summary's endTime is DescribeExport's EndTime
	endSecs := epochSeconds(end.UnixNano())
	d.EndTime = &endSecs
	sum := s3export.Summary{ExportArn: d.ExportArn, TableArn: d.TableArn, TableID: d.TableId,
		StartTime: time.Unix(0, job.Created), EndTime: end, ExportTime: p.at,
		S3SseAlgorithm: d.S3SseAlgorithm, S3SseKmsKeyID: d.S3SseKmsKeyId}
	if inc := p.inc; inc != nil {
		sum.ExportType, sum.FromTime, sum.ToTime, sum.View = s3export.IncrementalExport, inc.from, inc.to, inc.view
	}
	return w.Finish(sum)
}

// exportItems writes the items of p's table into w, from one view.
func exportItems(s *Service, o *store.Ownership, tx *store.Tx, p exportPlan, w *s3export.Writer) error {
	cur, err := currentTable(tx, p.m)
	if err != nil {
		return err
	}
	if p.inc != nil {
		return writeIncremental(tx, cur, p.inc, w)
	}
	items, err := itemsAt(tx.Space(cur.ID), p.at.UnixNano()+1)
	if err != nil {
		return err
	}
	return items(func(_, v []byte) error {
		if err := s.bg.Err(); err != nil {
			return err
		}
		if !o.Held() {
			return store.ErrNotOwner
		}
		if p.filter == nil {
			return w.AddStored(v)
		}
		it, err := attr.DecodeBinary(v)
		if err != nil {
			return err
		}
		if it = keep(p.filter, it); it == nil {
			return nil
		}
		return w.Add(it)
	})
}

// DescribeExport describes one export of the request's region.
func (s *Service) DescribeExport(ctx context.Context, region string, in *ddb.DescribeExportInput) (*ddb.ExportDescriptionOutput, error) {
	id, ok := jobIDFromARN(in.ExportArn, kindExport)
	notFound := ddb.Errorf(ddb.ExportNotFoundException, "Export not found: %s", in.ExportArn)
	if !ok {
		return nil, notFound
	}
	var j exportJob
	var found bool
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		found, err = readJob(tx, region, kindExport, id, &j)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found || j.Desc.ExportArn != in.ExportArn {
		return nil, notFound
	}
	return &ddb.ExportDescriptionOutput{ExportDescription: j.Desc}, nil
}

// ListExports lists the region's exports (of one table, with TableArn) in
// the order they started, MaxResults (default 25) at a time.
func (s *Service) ListExports(ctx context.Context, region string, in *ddb.ListExportsInput) (*ddb.ListExportsOutput, error) {
	limit := 25
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	out := &ddb.ListExportsOutput{ExportSummaries: []ddb.ExportSummary{}}
	var err error
	verr := s.db.View(func(tx *store.Tx) error {
		eachJob(tx, region, kindExport, func(raw []byte) bool {
			var j exportJob
			if err = json.Unmarshal(raw, &j); err != nil {
				return false
			}
			id := exportID(&j)
			if id < in.NextToken || (in.TableArn != "" && j.Desc.TableArn != in.TableArn) {
				return true
			}
			if len(out.ExportSummaries) == limit {
				out.NextToken = id
				return false
			}
			out.ExportSummaries = append(out.ExportSummaries, ddb.ExportSummary{ExportArn: j.Desc.ExportArn,
				ExportStatus: j.Desc.ExportStatus, ExportType: j.Desc.ExportType})
			return true
		})
		return nil
	})
	if err == nil {
		err = verr
	}
	return out, err
}
