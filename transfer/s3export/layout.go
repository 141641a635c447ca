// Package s3export writes a table export in the layout DynamoDB's
// ExportTableToPointInTime writes to S3 (developer guide, "DynamoDB table
// export output format"), so code that reads a real export reads ours:
//
//	PREFIX/AWSDynamoDB/EXPORTID/_started                   empty, written first
//	PREFIX/AWSDynamoDB/EXPORTID/data/NAME.json.gz          or .ion.gz, gzip JSON/Ion lines
//	PREFIX/AWSDynamoDB/EXPORTID/manifest-files.json        one JSON line per data file
//	PREFIX/AWSDynamoDB/EXPORTID/manifest-files.checksum
//	PREFIX/AWSDynamoDB/EXPORTID/manifest-summary.json      written last
//	PREFIX/AWSDynamoDB/EXPORTID/manifest-summary.checksum
//
// A data file line is {"Item":{...}} for a full export and
// {"Metadata":{"WriteTimestampMicros":{"N":"…"}},"Keys":{…},"NewImage":{…},"OldImage":{…}}
// for an incremental one; in Ion, "$ion_1_0 " and the same structure in
// Ion text. The Writer streams: memory holds one compressor and one
// manifest line per data file, never the items.
package s3export

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
)

// Export formats, as ExportFormat names them.
const (
	FormatJSON = "DYNAMODB_JSON"
	FormatIon  = "ION"
)

// Export types and incremental views, as the API names them.
const (
	FullExport        = "FULL_EXPORT"
	IncrementalExport = "INCREMENTAL_EXPORT"
	ViewNewImage      = "NEW_IMAGE"
	ViewNewAndOld     = "NEW_AND_OLD_IMAGES"
)

// Manifest versions: the guide's full-export summary says "2020-06-30";
// incremental summaries carry "2023-08-01".
const (
	fullVersion        = "2020-06-30"
	incrementalVersion = "2023-08-01"
)

// NewID returns an export ID shaped as the service's: the start time in
// milliseconds as 14 digits, a dash, 8 hex digits
// ("01604474914028-a1b2c3d4").
func NewID(start time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%014d-%x", start.UnixMilli(), b)
}

// Base is the key of the export's folder: PREFIX/AWSDynamoDB/ID, or
// AWSDynamoDB/ID with no prefix. Trailing slashes of prefix are dropped so
// that "p/" and "p" give one folder.
func Base(prefix, id string) string {
	prefix = strings.TrimRight(prefix, "/")
	if prefix == "" {
		return "AWSDynamoDB/" + id
	}
	return prefix + "/AWSDynamoDB/" + id
}

// SummaryKey is the key DescribeExport's ExportManifest names.
func SummaryKey(prefix, id string) string { return Base(prefix, id) + "/manifest-summary.json" }

// dataName returns the name of an export's n-th data file: 26 lower-case
// base32 characters like the service's random names, but derived from the
// export ID, so that an export run again after a crash (from the same
// snapshot, so with the same files) replaces its files rather than
// leaving the first run's beside them.
func dataName(id string, n int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", id, n))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}

// timeString is the manifests' time format: UTC with milliseconds
// ("2020-11-04T07:28:34.028Z").
func timeString(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
