package table

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// importChunk is how many imported items one store transaction writes:
// large enough to amortise the commit, small enough that a transaction
// holds little memory and foreground writes wait little for it.
const importChunk = 1000

// ImportTable creates a table as TableCreationParameters says and starts
// loading every object under the S3 prefix into it (package s3import),
// returning at once with the import IN_PROGRESS; DescribeImport reports
// it COMPLETED or FAILED with its counts. Records that do not parse, lack
// the key, or are too large are counted in ErrorCount and skipped, as the
// service does, and so is the rest of an object whose bytes break off (a
// corrupt or truncated compressed stream); an import that skipped any
// ends FAILED (ItemValidationError) with the items it imported.
func (s *Service) ImportTable(ctx context.Context, region string, in *ddb.ImportTableInput) (*ddb.ImportTableOutput, error) {
	if err := checkImportOptions(in); err != nil {
		return nil, err
	}
	if p := in.TableCreationParameters; p != nil {
		if err := checkImportIndexWarm(p.GlobalSecondaryIndexes); err != nil { // catalog_warm.go
			return nil, err
		}
	}
	if in.ClientToken != "" {
		var prev *importJob
		err := s.db.View(func(tx *store.Tx) error {
			var err error
			prev, err = jobByToken[importJob](s, tx, region, kindImport, in.ClientToken)
			return err
		})
		if err != nil {
			return nil, err
		}
		if prev != nil {
			if !sameImport(&prev.Desc, in) {
				return nil, ddb.Errorf(ddb.ImportConflictException, "Duplicate request detected: %s", prev.Desc.ImportArn)
			}
			return &ddb.ImportTableOutput{ImportTableDescription: prev.Desc}, nil
		}
	}
	p := in.TableCreationParameters
	now := s.now()
	id := jobID(now)
	if _, err := s.createTable(ctx, region, &ddb.CreateTableInput{TableName: p.TableName, AttributeDefinitions: p.AttributeDefinitions,
		KeySchema: p.KeySchema, BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput,
		OnDemandThroughput: p.OnDemandThroughput, SSESpecification: p.SSESpecification, GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
		VectorIndexes: p.VectorIndexes}, id); err != nil {
		return nil, err
	}
	m, err := s.catalog.get(s.db, region, p.TableName)
	if err != nil {
		return nil, err
	}
	job := newImportJob(m, in, id, now)
	if err := s.db.Update(ctx, func(tx *store.Tx) error { return writeJob(tx, region, kindImport, id, job) }); err != nil {
		return nil, err
	}
	s.wakeTransfers()
	return &ddb.ImportTableOutput{ImportTableDescription: job.Desc}, nil
}

// checkImportOptions refuses CsvOptions with another format (the
// delimiter's pattern, like every member constraint, is the validator's:
// ddb tags).
func checkImportOptions(in *ddb.ImportTableInput) error {
	o := in.InputFormatOptions
	if o == nil || o.Csv == nil {
		return nil
	}
	if in.InputFormat != s3import.FormatCSV {
		return ddb.Errorf(ddb.ValidationException, "InputFormatOptions are only allowed with InputFormat CSV")
	}
	return nil
}

func newImportJob(m *tableMeta, in *ddb.ImportTableInput, id string, now time.Time) *importJob {
	d := ddb.ImportTableDescription{ImportArn: m.arn() + "/import/" + id, ImportStatus: "IN_PROGRESS",
		TableArn: m.arn(), TableId: m.ID, ClientToken: in.ClientToken, S3BucketSource: *in.S3BucketSource,
		InputFormat: in.InputFormat, InputFormatOptions: in.InputFormatOptions, InputCompressionType: in.InputCompressionType,
		TableCreationParameters: in.TableCreationParameters, StartTime: epochSeconds(now.UnixNano())}
	if d.InputCompressionType == "" {
		d.InputCompressionType = s3import.CompressionNone
	}
	return &importJob{Created: now.UnixNano(), Desc: d}
}

// sameImport reports whether in asks for the import d describes.
func sameImport(d *ddb.ImportTableDescription, in *ddb.ImportTableInput) bool {
	a, _ := json.Marshal([]any{d.S3BucketSource, d.InputFormat, d.InputFormatOptions, d.TableCreationParameters})
	comp := in.InputCompressionType
	if comp == "" {
		comp = s3import.CompressionNone
	}
	b, _ := json.Marshal([]any{in.S3BucketSource, in.InputFormat, in.InputFormatOptions, in.TableCreationParameters})
	return string(a) == string(b) && comp == d.InputCompressionType
}

// runImport loads the items (from its checkpoint on) and records how the
// import ended, while this process owns the transfers (o).
func (s *Service) runImport(o *store.Ownership, region, id string, job *importJob) {
	d := &job.Desc
	st, err := s.loadImport(o, region, id, job)
	if err != nil && s.jobStopped(err) {
		return
	}
	end := epochSeconds(s.now().UnixNano())
	d.EndTime, d.ProcessedSizeBytes = &end, &st.Bytes
	d.ProcessedItemCount, d.ErrorCount, d.ImportedItemCount = st.Processed, st.Errors, job.Progress.Written
	d.ImportStatus = "COMPLETED"
	switch {
	case err != nil:
		d.ImportStatus = "FAILED"
		d.FailureCode, d.FailureMessage = s3Failure(err)
	case st.Errors > 0:
		// The developer guide's "Import format quotas and validation"
		// (Data validation errors): the import goes on past each record
		// that fails, and ends FAILED with these words; the table keeps
		// the items imported.
		d.ImportStatus = "FAILED"
		d.FailureCode = "ItemValidationError"
		d.FailureMessage = "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details."
	}
	s.endImport(o, region, id, job)
}

// jobTable returns the table a job writes to, which must be the one it
// started with.
func (s *Service) jobTable(region, name, id string) (*tableMeta, error) {
	m, err := s.catalog.get(s.db, region, name)
	if err == nil && (m == nil || m.ID != id) {
		err = fmt.Errorf("table: the table %s was deleted while the job ran", name)
	}
	return m, err
}

// loadImport reads the source from the job's checkpoint and writes its
// items chunk by chunk, each chunk in one transaction with the checkpoint
// after it.
func (s *Service) loadImport(o *store.Ownership, region, id string, job *importJob) (s3import.Stats, error) {
	d := &job.Desc
	if s.opts.S3 == nil {
		return job.Progress.Pos.Stats, errNoS3
	}
	_, name, _ := parseTableARN(d.TableArn)
	m, err := s.jobTable(region, name, d.TableId)
	if err != nil {
		return job.Progress.Pos.Stats, err
	}
	o3 := s3import.Options{Format: d.InputFormat, Compression: d.InputCompressionType, KeyTypes: keyTypes(m), Prepare: prepareImport(m),
		CPU: s.transfers.cpu, SkipBroken: true}
	if f := d.InputFormatOptions; f != nil && f.Csv != nil {
		o3.CSV = s3import.CSVOptions{Delimiter: f.Csv.Delimiter, Header: f.Csv.HeaderList}
	}
	if s.bulkImportable(m, job) {
		if st, err := s.loadImportBulk(o, region, id, job, m, o3); err != nil || job.Progress.Bulk {
			return st, err
		}
	}
	src := d.S3BucketSource
	return s.readChunks(s.s3Store(region, src.S3BucketOwner), src.S3Bucket, src.S3KeyPrefix, o3, job.Progress.Pos, 0, func(c s3import.Chunk) error {
		s.logImportErrors(d.ImportArn, c)
		o3.CPU.Acquire()
		defer o3.CPU.Release()
		return s.writeImported(m, c.Records, func(tx *store.Tx) error {
			if err := o.Fence(tx); err != nil {
				return err
			}
			job.Progress.Pos, job.Progress.Written = c.Pos, job.Progress.Written+int64(len(c.Records))
			d.ProcessedItemCount, d.ErrorCount, d.ImportedItemCount = c.Pos.Stats.Processed, c.Pos.Stats.Errors, job.Progress.Written
			return writeJob(tx, region, kindImport, id, job)
		})
	})
}

// importPrep is what an import's decoding goroutines make of an item for
// writeImported: its storage key and its encoding.
type importPrep struct {
	key, enc []byte
	size     int // the item's Size
}

// prepareImport is itemCheck, and gives each good item its storage key and
// its encoding, computed on the goroutine that decoded it rather than on
// the one that writes: the bytes blindPut would encode.
func prepareImport(m *tableMeta) func(s3import.Record) (any, error) {
	return func(r s3import.Record) (any, error) {
		if !r.Encoded.IsZero() {
			return m.prepareEncoded(r.Encoded)
		}
		it := r.Item
		key, err := m.itemKey(it)
		if err != nil {
			return nil, err
		}
		size := it.Size()
		if err := m.checkStored(size, itemLookup(it), false); err != nil {
			return nil, err
		}
		return &importPrep{key: key, enc: attr.AppendBinarySized(make([]byte, 0, size+4*len(it)+8), it, size), size: size}, nil
	}
}

// prepareEncoded is prepareImport for an item read in its storage encoding
// (s3import.Options.Encoded), which is stored as it is.
func (m *tableMeta) prepareEncoded(e attr.Encoded) (any, error) {
	key, err := m.itemKeyFrom(e.Lookup)
	if err != nil {
		return nil, err
	}
	size := e.Size()
	if err := m.checkStored(size, e.Lookup, false); err != nil {
		return nil, err
	}
	return &importPrep{key: key, enc: e.Bytes(), size: size}, nil
}

// itemCheck refuses an item without m's key or over an item limit.
func itemCheck(m *tableMeta) func(attr.Item) error {
	return func(it attr.Item) error {
		if _, err := m.itemKey(it); err != nil {
			return err
		}
		return m.checkItem(it, false)
	}
}

// readChunks reads every object under prefix in st's bucket bkt (st from
// s3Store) in chunks of importChunk records, decoded on workers goroutines
// (0: one for each unit of o's CPU budget, its cores) while this one calls
// write with each chunk in order (s3import.ReadChunks). write's error stops
// the read.
func (s *Service) readChunks(st bucket.Store, bkt, prefix string, o s3import.Options, from s3import.Position, workers int, write func(s3import.Chunk) error) (s3import.Stats, error) {
	if workers == 0 {
		workers = o.CPU.Units()
	}
	if s.plain {
		workers = 1 // the plain twin: read and decoded on one goroutine
	}
	return s3import.ReadChunks(s.bg, st, bkt, prefix, o, from, importChunk, workers, write)
}

// keyTypes returns the types of m's attribute definitions, which type the
// key columns of a CSV source.
func keyTypes(m *tableMeta) map[string]attr.Type {
	out := map[string]attr.Type{}
	for _, d := range m.AttributeDefinitions {
		out[d.AttributeName] = attr.ParseType(d.AttributeType)
	}
	return out
}

// writeImported puts the records' items (already checked) in one store
// transaction, as BatchWriteItem puts would, so indexes and streams follow
// them (applyAll's finishWrite tells the table's applier, once); check
// (when not nil) runs first in that transaction and may refuse it.
func (s *Service) writeImported(m *tableMeta, recs []s3import.Record, check func(*store.Tx) error) error {
	if len(recs) == 0 {
		if check == nil {
			return nil
		}
		return s.db.Update(s.bg, check)
	}
	muts := make([]mutation, len(recs))
	keepLog := s.keepsLog(m)
	for i, r := range recs {
		it := r.Item
		var key, enc []byte
		if p, ok := r.Prepared.(*importPrep); ok {
			key, enc = p.key, p.enc
		} else {
			var err error
			if key, err = m.itemKey(it); err != nil {
				return err
			}
		}
		muts[i] = mutation{meta: m, key: key, enc: enc, blind: true, keepLog: keepLog,
			next: func(attr.Item) (attr.Item, error) { return it, nil }}
	}
	if !s.plain {
		// In key order, each put lands beside the one before: the memory
		// engine's search starts from the last put's path, and the
		// write-ahead record, which the checkpoint applies to bbolt in its
		// order, is sorted too. Stable: of two records with one key, the
		// later is still put last. The plain twin puts them in the order
		// read; TestImportSortedMatchesPlain shows both store the same bytes.
		slices.SortStableFunc(muts, func(a, b mutation) int { return bytes.Compare(a.key, b.key) })
	}
	_, err := s.applyAll(s.bg, muts, check, nil)
	return err
}

// DescribeImport describes one import of the request's region.
func (s *Service) DescribeImport(ctx context.Context, region string, in *ddb.DescribeImportInput) (*ddb.ImportTableOutput, error) {
	id, ok := jobIDFromARN(in.ImportArn, kindImport)
	notFound := ddb.Errorf(ddb.ImportNotFoundException, "Import not found: %s", in.ImportArn)
	if !ok {
		return nil, notFound
	}
	var j importJob
	var found bool
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		found, err = readJob(tx, region, kindImport, id, &j)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found || j.Desc.ImportArn != in.ImportArn {
		return nil, notFound
	}
	return &ddb.ImportTableOutput{ImportTableDescription: j.Desc}, nil
}

// ListImports lists the region's imports (into one table, with TableArn)
// in the order they started, PageSize (default 25) at a time; NextToken
// names the first import of the next page (pageToken).
func (s *Service) ListImports(ctx context.Context, region string, in *ddb.ListImportsInput) (*ddb.ListImportsOutput, error) {
	limit := 25
	if in.PageSize != nil {
		limit = int(*in.PageSize)
	}
	out := &ddb.ListImportsOutput{ImportSummaryList: []ddb.ImportSummary{}}
	from := pageTokenID(in.NextToken)
	var err error
	verr := s.db.View(func(tx *store.Tx) error {
		eachJob(tx, region, kindImport, func(raw []byte) bool {
			var j importJob
			if err = json.Unmarshal(raw, &j); err != nil {
				return false
			}
			id, _ := jobIDFromARN(j.Desc.ImportArn, kindImport)
			if id < from || (in.TableArn != "" && j.Desc.TableArn != in.TableArn) {
				return true
			}
			if len(out.ImportSummaryList) == limit {
				out.NextToken = pageToken(id)
				return false
			}
			d := j.Desc
			out.ImportSummaryList = append(out.ImportSummaryList, ddb.ImportSummary{ImportArn: d.ImportArn, ImportStatus: d.ImportStatus,
				TableArn: d.TableArn, S3BucketSource: d.S3BucketSource, InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime})
			return true
		})
		return nil
	})
	if err == nil {
		err = verr
	}
	return out, err
}
