package s3export

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Summary is what the caller knows about the export for
// manifest-summary.json; the Writer adds the bucket, prefix, counts, sizes,
// format and the files manifest's key.
type Summary struct {
	ExportArn, TableArn, TableID string
	StartTime, EndTime           time.Time
	// ExportTime is the point in time of a full export.
	ExportTime time.Time
	// S3SseAlgorithm is AES256 or KMS; empty means AES256, the default.
	S3SseAlgorithm, S3SseKmsKeyID string
	// ExportType is FullExport or IncrementalExport; empty means full.
	ExportType string
	// FromTime, ToTime and View describe an incremental export.
	FromTime, ToTime time.Time
	View             string
}

// Result is what DescribeExport reports of a finished export.
type Result struct {
	// ManifestKey is manifest-summary.json's key (ExportManifest).
	ManifestKey     string
	ItemCount       int64
	BilledSizeBytes int64
	Files           int
}

// summaryDoc is manifest-summary.json, fields in the guide's order.
type summaryDoc struct {
	Version            string  `json:"version"`
	ExportArn          string  `json:"exportArn"`
	StartTime          string  `json:"startTime"`
	EndTime            string  `json:"endTime"`
	TableArn           string  `json:"tableArn"`
	TableID            string  `json:"tableId"`
	ExportTime         string  `json:"exportTime,omitempty"`
	ExportFromTime     string  `json:"exportFromTime,omitempty"`
	ExportToTime       string  `json:"exportToTime,omitempty"`
	S3Bucket           string  `json:"s3Bucket"`
	S3Prefix           *string `json:"s3Prefix"`
	S3SseAlgorithm     string  `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string  `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64   `json:"billedSizeBytes"`
	ItemCount          int64   `json:"itemCount"`
	OutputFormat       string  `json:"outputFormat"`
	OutputView         string  `json:"outputView,omitempty"`
	ExportType         string  `json:"exportType,omitempty"`
}

// Finish closes the last data file (writing one empty file if none was
// written, as the service always writes at least one), then writes
// manifest-files.json, manifest-summary.json and their checksum files, the
// summary last, so a reader that finds the summary finds a whole export.
// The Writer is unusable afterwards.
func (w *Writer) Finish(s Summary) (Result, error) {
	if err := w.flush(); err != nil {
		w.Abort()
		return Result{}, err
	}
	if w.files == nil && w.cur == nil {
		if err := w.open(); err != nil {
			return Result{}, err
		}
	}
	if w.cur != nil {
		if err := w.closeFile(); err != nil {
			return Result{}, err
		}
	}
	var files bytes.Buffer
	enc := json.NewEncoder(&files)
	for _, f := range w.files {
		if err := enc.Encode(f); err != nil {
			return Result{}, err
		}
	}
	filesKey := w.base + "/manifest-files.json"
	if err := w.putWithChecksum("manifest-files", files.Bytes()); err != nil {
		return Result{}, err
	}
	doc, err := json.Marshal(w.summaryDoc(s, filesKey))
	if err != nil {
		return Result{}, err
	}
	if err := w.putWithChecksum("manifest-summary", doc); err != nil {
		return Result{}, err
	}
	res := Result{ManifestKey: w.base + "/manifest-summary.json", ItemCount: w.items, BilledSizeBytes: w.billed, Files: len(w.files)}
	w.files = nil
	w.enc = nil
	return res, nil
}

func (w *Writer) summaryDoc(s Summary, filesKey string) summaryDoc {
	d := summaryDoc{
		Version: fullVersion, ExportArn: s.ExportArn, StartTime: timeString(s.StartTime), EndTime: timeString(s.EndTime),
		TableArn: s.TableArn, TableID: s.TableID, S3Bucket: w.o.Bucket, S3SseAlgorithm: s.S3SseAlgorithm,
		ManifestFilesS3Key: filesKey, BilledSizeBytes: w.billed, ItemCount: w.items, OutputFormat: w.o.Format,
	}
	if w.o.Prefix != "" {
		d.S3Prefix = &w.o.Prefix
	}
	if d.S3SseAlgorithm == "" {
		d.S3SseAlgorithm = "AES256"
	}
	if s.S3SseKmsKeyID != "" {
		d.S3SseKmsKeyID = &s.S3SseKmsKeyID
	}
	if s.ExportType == IncrementalExport {
		d.Version, d.ExportType, d.OutputView = incrementalVersion, IncrementalExport, s.View
		d.ExportFromTime, d.ExportToTime = timeString(s.FromTime), timeString(s.ToTime)
	} else {
		d.ExportTime = timeString(s.ExportTime)
	}
	return d
}

// putWithChecksum writes NAME.json and NAME.checksum. The guide names the
// checksum files without saying what they hold; they hold the hex MD5 of
// the manifest, as an S3 ETag would.
func (w *Writer) putWithChecksum(name string, b []byte) error {
	if err := w.putSmall(name+".json", b); err != nil {
		return err
	}
	sum := md5.Sum(b)
	return w.putSmall(name+".checksum", []byte(hex.EncodeToString(sum[:])))
}
