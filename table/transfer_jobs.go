package table

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// Exports to S3 and imports from S3 run in the background (s.background)
// and keep their state in the store space "transfers": one JSON record per
// job, keyed region ‖ 0 ‖ kind ‖ 0 ‖ id, where an id starts with its
// creation time in milliseconds, so a region's jobs list in creation order
// and DescribeExport and DescribeImport answer after a restart. The jobs
// themselves run wherever this process owns the transfers (transfer_run.go):
// a job a stopped server left IN_PROGRESS is resumed by the next owner.
const transfersSpace = "transfers"

// Job kinds, in keys and ARNs.
const (
	kindExport = "export"
	kindImport = "import"
)

// clientTokenLife is how long ExportTableToPointInTime's and ImportTable's
// ClientToken makes a request idempotent.
const clientTokenLife = 8 * time.Hour

// exportJob is an export's record. At (a full export's instant) and From
// and To (an incremental one's window) are kept in Unix nanoseconds, exactly,
// for a resumed export to read the same items as the first attempt.
type exportJob struct {
	Created      int64 // Unix nanoseconds
	At, From, To int64 `json:",omitempty"`
	Desc         ddb.ExportDescription
}

// importJob is an import's record. Progress is its checkpoint.
type importJob struct {
	Created  int64
	Desc     ddb.ImportTableDescription
	Progress jobProgress
}

// jobProgress is how far an import or bulk load has come, written in the
// same store transaction as the chunk of items it counts: a resumed job
// reads on from Pos and neither loses nor repeats an item.
type jobProgress struct {
	Pos     s3import.Position
	Written int64 // items written
	Bytes   int64 // their size (bulk loads' BulkPutBytes)
	Reports int   // error report objects written (bulk loads)
	// CondReports counts a bulk load's condition-check failure report
	// objects.
	CondReports int `json:",omitempty"`
	// GSI, LSI and Vector are the bytes of the entries the table's global,
	// local and vector indexes store for the items written, by index name
	// (bulk loads).
	GSI, LSI, Vector map[string]int64 `json:",omitempty"`
	// Bulk marks an import that builds its table whole
	// (transfer_import_bulk.go): it keeps no position, and a resumed one
	// starts again from the first object.
	Bulk bool `json:",omitempty"`
}

func (j *exportJob) token() (string, int64) { return j.Desc.ClientToken, j.Created }
func (j *importJob) token() (string, int64) { return j.Desc.ClientToken, j.Created }
func (j *bulkJob) token() (string, int64)   { return j.Desc.ClientToken, j.Created }

// jobByToken returns the job of kind in region started with token less
// than clientTokenLife ago, or nil (always nil for no token).
func jobByToken[J any, P interface {
	*J
	token() (string, int64)
}](s *Service, tx *store.Tx, region, kind, token string) (*J, error) {
	if token == "" {
		return nil, nil
	}
	var found *J
	var err error
	since := s.now().Add(-clientTokenLife).UnixNano()
	eachJob(tx, region, kind, func(raw []byte) bool {
		j := new(J)
		if err = json.Unmarshal(raw, j); err != nil {
			return false
		}
		if tok, created := P(j).token(); tok == token && created >= since {
			found = j
		}
		return true
	})
	return found, err
}

func jobKey(region, kind, id string) []byte { return []byte(region + "\x00" + kind + "\x00" + id) }

// jobID returns the id of a job started at t, shaped as the service's.
func jobID(t time.Time) string { return newBackupID(t, false) }

// pageTokenDigits is the least length of a listing's NextToken: ListImports'
// NextToken is documented as 112 to 1024 characters of ([0-9a-f]{16})+,
// ListBulkOperations' as 1 to 1024 of the same pattern, and the validator
// holds a request's token to that.
const pageTokenDigits = 112

// pageToken is the NextToken that names job id in ListImports and
// ListBulkOperations: id's bytes in hex, then zeros up to pageTokenDigits
// (or the next multiple of 16), so that it is of the documented shape.
func pageToken(id string) string {
	digits := hex.EncodeToString([]byte(id))
	n := max(pageTokenDigits, (len(digits)+15)/16*16)
	return digits + strings.Repeat("0", n-len(digits))
}

// pageTokenID is the job id a NextToken names (pageToken's inverse): ""
// for none, and a token no pageToken made names what its bytes spell.
func pageTokenID(tok string) string {
	if len(tok)%2 == 1 {
		tok += "0"
	}
	b, err := hex.DecodeString(tok)
	if err != nil {
		return tok
	}
	return strings.TrimRight(string(b), "\x00")
}

// readJob decodes the record of job id into v; it reports whether one was
// found.
func readJob(tx *store.Tx, region, kind, id string, v any) (bool, error) {
	sp := tx.Space(transfersSpace)
	if sp == nil {
		return false, nil
	}
	raw := sp.Get(jobKey(region, kind, id))
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("table: corrupt %s record %s: %w", kind, id, err)
	}
	return true, nil
}

// writeJob stores v as the record of job id.
func writeJob(tx *store.Tx, region, kind, id string, v any) error {
	sp := tx.Space(transfersSpace)
	if sp == nil {
		if err := tx.CreateSpace(transfersSpace); err != nil {
			return err
		}
		sp = tx.Space(transfersSpace)
	}
	val, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sp.Put(jobKey(region, kind, id), val)
}

// eachJob calls fn with the raw record of each of region's jobs of kind, in
// creation order, until it returns false.
func eachJob(tx *store.Tx, region, kind string, fn func(raw []byte) bool) {
	sp := tx.Space(transfersSpace)
	if sp == nil {
		return
	}
	from := jobKey(region, kind, "")
	to := jobKey(region, kind, "\xff")
	sp.Ascend(from, to, func(_, v []byte) bool { return fn(v) })
}

// endJob records how a job ended, in its own transaction, from the job's
// goroutine, only while this process still owns the transfers (o). A job
// stopped by the loss of ownership or by Close is left as it is, for its
// next owner to resume.
func (s *Service) endJob(o *store.Ownership, region, kind, id string, v any) {
	err := s.db.Update(s.bg, func(tx *store.Tx) error {
		if err := o.Fence(tx); err != nil {
			return err
		}
		return writeJob(tx, region, kind, id, v)
	})
	if err != nil && !s.jobStopped(err) {
		s.logError("transfer: recording a job's end", "kind", kind, "id", id, "err", err)
	}
}

// jobStopped reports whether a job's error means it was interrupted (this
// process lost the transfers or is closing) rather than failed.
func (s *Service) jobStopped(err error) bool {
	return errors.Is(err, store.ErrNotOwner) || s.bg.Err() != nil
}

// jobIDFromARN returns ID from arn:…:table/NAME/KIND/ID.
func jobIDFromARN(arn, kind string) (string, bool) {
	_, id, ok := strings.Cut(arn, "/"+kind+"/")
	if !ok || id == "" || strings.Contains(id, "/") || !strings.HasPrefix(arn, "arn:") {
		return "", false
	}
	return id, true
}

// s3Store is the S3 store as a job of scope region reaches it, with
// owner (its S3BucketOwner) as the bucket's expected owner
// (bucket.ExpectOwner): an S3 endpoint checks it; a folder's buckets are
// the requester's account's, so another owner fails the job with
// S3AccessDenied, as the service's does when the bucket's owner is not
// the one named.
func (s *Service) s3Store(region, owner string) bucket.Store {
	account, _ := access.SplitScope(region)
	return bucket.ExpectOwner(s.opts.S3, owner, account)
}

// errNoS3 fails a job when the Service was given no S3 store.
var errNoS3 = errors.New("table: no S3 location is configured (Options.S3)")

// logError logs a background job's error, when there is a logger.
func (s *Service) logError(msg string, args ...any) {
	if s.opts.Logger != nil {
		s.opts.Logger.Error(msg, args...)
	}
}

// s3Failure is the FailureCode and FailureMessage of a failed export or
// import, in the service's codes for S3 errors where one fits.
func s3Failure(err error) (code, msg string) {
	switch {
	case errors.Is(err, bucket.ErrNoSuchBucket):
		return "S3NoSuchBucket", "The specified bucket does not exist"
	case errors.Is(err, bucket.ErrAccessDenied):
		return "S3AccessDenied", "Access Denied"
	case errors.Is(err, bucket.ErrNoSuchKey):
		return "S3NoSuchKey", "The specified key does not exist."
	}
	return "UnknownError", err.Error()
}

// parseJobKey splits a transfers key (region ‖ 0 ‖ kind ‖ 0 ‖ id).
func parseJobKey(k []byte) (jobRef, bool) {
	parts := strings.Split(string(k), "\x00")
	if len(parts) != 3 {
		return jobRef{}, false
	}
	return jobRef{parts[0], parts[1], parts[2]}, true
}

// jobRef names one job record.
type jobRef struct{ region, kind, id string }
