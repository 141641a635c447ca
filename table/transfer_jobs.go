package table

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// Exports to S3 and imports from S3 run in the background (s.background)
// and keep their state in the store space "transfers": one JSON record per
// job, keyed region ‖ 0 ‖ kind ‖ 0 ‖ id, where an id starts with its
// creation time in milliseconds, so a region's jobs list in creation order
// and DescribeExport and DescribeImport answer after a restart. A job that
// was IN_PROGRESS when its server stopped is FAILED when the next one
// starts (failInterrupted): nothing resumes it.
const transfersSpace = "transfers"

// Job kinds, in keys and ARNs.
const (
	kindExport = "export"
	kindImport = "import"
)

// clientTokenLife is how long ExportTableToPointInTime's and ImportTable's
// ClientToken makes a request idempotent.
const clientTokenLife = 8 * time.Hour

// exportJob is an export's record.
type exportJob struct {
	Created int64 // Unix nanoseconds
	Desc    ddb.ExportDescription
}

// importJob is an import's record.
type importJob struct {
	Created int64
	Desc    ddb.ImportTableDescription
}

func jobKey(region, kind, id string) []byte { return []byte(region + "\x00" + kind + "\x00" + id) }

// jobID returns the id of a job started at t, shaped as the service's.
func jobID(t time.Time) string { return newBackupID(t, false) }

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

// saveJob writes a job's record in its own transaction, from the job's
// goroutine (the request that started it has returned).
func (s *Service) saveJob(region, kind, id string, v any) error {
	return s.db.Update(s.bg, func(tx *store.Tx) error { return writeJob(tx, region, kind, id, v) })
}

// jobIDFromARN returns ID from arn:…:table/NAME/KIND/ID.
func jobIDFromARN(arn, kind string) (string, bool) {
	_, id, ok := strings.Cut(arn, "/"+kind+"/")
	if !ok || id == "" || strings.Contains(id, "/") || !strings.HasPrefix(arn, "arn:") {
		return "", false
	}
	return id, true
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

// failInterrupted marks the jobs a stopped server left IN_PROGRESS as
// FAILED. Only a server that owns its store does: in cluster mode another
// front-end may be running them.
func (s *Service) failInterrupted() error {
	if s.db.Shared() {
		return nil
	}
	end := epochSeconds(s.now().UnixNano())
	return s.db.Update(s.bg, func(tx *store.Tx) error {
		sp := tx.Space(transfersSpace)
		if sp == nil {
			return nil
		}
		var keys [][]byte
		var vals []any
		var err error
		sp.Ascend(nil, nil, func(k, v []byte) bool {
			var val any
			if val, err = interrupted(k, v, end); val != nil {
				keys, vals = append(keys, bytes.Clone(k)), append(vals, val)
			}
			return err == nil
		})
		for i := range keys {
			if err != nil {
				break
			}
			var raw []byte
			if raw, err = json.Marshal(vals[i]); err == nil {
				err = sp.Put(keys[i], raw)
			}
		}
		return err
	})
}

// interrupted returns the FAILED record of a job left IN_PROGRESS (or
// CANCELLING), or nil.
func interrupted(k, v []byte, end float64) (any, error) {
	const code, msg = "UnknownError", "The server stopped while the job ran"
	ref, _ := parseJobKey(k)
	switch ref.kind {
	case kindExport:
		var j exportJob
		if err := json.Unmarshal(v, &j); err != nil || j.Desc.ExportStatus != "IN_PROGRESS" {
			return nil, err
		}
		j.Desc.ExportStatus, j.Desc.FailureCode, j.Desc.FailureMessage, j.Desc.EndTime = "FAILED", code, msg, &end
		return j, nil
	case kindBulk:
		var j bulkJob
		if err := json.Unmarshal(v, &j); err != nil || (j.Desc.BulkOperationStatus != "IN_PROGRESS" && j.Desc.BulkOperationStatus != "CANCELLING") {
			return nil, err
		}
		j.Desc.BulkOperationStatus, j.Desc.FailureCode, j.Desc.FailureMessage, j.Desc.EndTime = "FAILED", code, msg, &end
		return j, nil
	}
	var j importJob
	if err := json.Unmarshal(v, &j); err != nil || j.Desc.ImportStatus != "IN_PROGRESS" {
		return nil, err
	}
	j.Desc.ImportStatus, j.Desc.FailureCode, j.Desc.FailureMessage, j.Desc.EndTime = "FAILED", code, msg, &end
	return j, nil
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
