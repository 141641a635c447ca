// Package s3import reads the items of an ImportTable source: every object
// under an S3 key prefix, in DYNAMODB_JSON ({"Item":{...}} per line), ION
// ($ion_1_0 {Item:{...}} per line) or CSV (a header row or a given header,
// key columns typed from the table's attribute definitions, every other
// column a string), each object compressed with GZIP, ZSTD or not at all.
// A record that does not parse, or that the caller's check refuses, is
// counted and reported, never fatal, as the service counts it in
// ErrorCount. An object whose bytes break off (a corrupt or truncated
// compressed stream) stops the read, or, with Options.SkipBroken, is one
// more bad record and the rest of it is skipped; a store error (the object
// unreadable) always stops it. Objects stream through: memory holds one
// decompressor and one line at a time.
package s3import

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// Input formats and compressions, as ImportTable names them.
const (
	FormatJSON = "DYNAMODB_JSON"
	FormatIon  = "ION"
	FormatCSV  = "CSV"

	CompressionNone = "NONE"
	CompressionGzip = "GZIP"
	CompressionZstd = "ZSTD"
)

// CSVOptions are ImportTable's CsvOptions.
type CSVOptions struct {
	// Delimiter is one of , \t : ; | and space; empty means a comma.
	Delimiter string
	// Header names the columns of every file, whose first line is then
	// data; nil means each file's first line is its header.
	Header []string
}

// Options says how to read the source.
type Options struct {
	Format      string
	Compression string // empty means NONE
	CSV         CSVOptions
	// KeyTypes gives the type (S, N or B) of the key attributes, for CSV,
	// where nothing else says a column is a number or binary (base64).
	KeyTypes map[string]attr.Type
	// Check validates each parsed item (key schema, size); an error makes
	// the record bad, counted and reported, not imported.
	Check func(attr.Item) error
	// Conditions reads each record's condition, as a bulk load takes it
	// (DYNAMODB_JSON and ION: ConditionExpression, ExpressionAttributeNames
	// and ExpressionAttributeValues beside Item); without it, as for
	// ImportTable, those fields are ignored. CheckCondition (when not nil)
	// validates a record's condition: an error makes the record bad.
	Conditions     bool
	CheckCondition func(*Condition) error
	// Prepare (when not nil) runs on each good record after the checks,
	// on the goroutine that decoded it, and its answer is kept in the
	// record's Prepared: work the caller would otherwise do record by
	// record on its own goroutine (a storage key, an encoding). An error
	// makes the record bad.
	Prepare func(Record) (any, error)
	// Encoded decodes a DYNAMODB_JSON item straight into its storage
	// encoding (Record.Encoded, Item nil) when it has the shape
	// attr.Encoded's one-pass decoder takes, for a caller that only keys,
	// checks and stores it; any other item is decoded as without it. With
	// Conditions, only a record that is its item alone ({"Item":{...}})
	// is: one with a condition comes in Record.Item.
	Encoded bool
	// SkipBroken makes an object whose bytes break off (a corrupt or
	// truncated compressed stream, a stream that is not of the
	// compression) one bad record where it breaks, and the read goes on
	// with the next object, as ImportTable does ("If the Amazon S3 object
	// itself is malformed ... we may skip processing the remaining portion
	// of the object"); without it such an object stops the read.
	SkipBroken bool
	// CPU (when not nil) bounds the read's goroutines that compute at once
	// (ReadChunks: splitting, decoding); the caller's fn takes units of its
	// own for its writing, from the same Budget.
	CPU *Budget
}

// Condition is a bulk-load record's condition, in PutItem's parameters of
// the same names: the item is put only if the expression holds for the
// item the table has under its key.
type Condition struct {
	Expression *string
	Names      map[string]string
	Values     map[string]attr.Value
}

// Record is one good record: its item and its condition (nil when it has
// none, or Options.Conditions is not set), and where it was read: the
// object's key and the record's line.
type Record struct {
	// Item is the record's item, nil when Encoded holds it.
	Item      attr.Item
	Encoded   attr.Encoded
	Condition *Condition
	Key       string
	Line      int
	// Prepared is what Options.Prepare made of the record (nil without it).
	Prepared any
}

// RecordError is one record that was not imported.
type RecordError struct {
	// Key is the object's key; Line its line (1-based).
	Key  string
	Line int
	Err  error
}

func (e *RecordError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Key, e.Line, e.Err) }
func (e *RecordError) Unwrap() error { return e.Err }

// Stats are an import's counts, as ImportTableDescription reports them.
type Stats struct {
	Objects int
	// Processed counts every record read, good or bad; Errors the bad.
	Processed, Errors int64
	// Bytes is the size of the objects read, as stored.
	Bytes int64
}

// ErrNoObjects is returned when nothing lies under the prefix.
var ErrNoObjects = errors.New("s3import: no objects under the prefix")

// decoder yields one object's records: an item (and its condition), or a
// *RecordError for a bad record; io.EOF after the last; any other error is
// fatal.
type decoder interface {
	next() (Record, error)
}

// Position is how far a read has come: the key of the object being
// read, how many of its records are done, and the counts so far. A reader
// resumed from a Position (ReadFrom) counts on from there and reads only
// what lies after it, so work checkpointed with the Position of its last
// record is neither lost nor done twice after a crash.
type Position struct {
	Key     string
	Records int64
	Stats   Stats
}

// Read decodes every object under prefix in key order, calling put for
// each good item and bad (when not nil) for each bad record. It returns the
// counts, and the first fatal error: the store's, a decompressor's, put's,
// ErrNoObjects, or ctx's.
func Read(ctx context.Context, s bucket.Store, bkt, prefix string, o Options, put func(attr.Item) error, bad func(*RecordError)) (Stats, error) {
	var badAt func(*RecordError, Position)
	if bad != nil {
		badAt = func(e *RecordError, _ Position) { bad(e) }
	}
	return ReadFrom(ctx, s, bkt, prefix, o, Position{}, func(it attr.Item, _ Position) error { return put(it) }, badAt)
}

// ReadFrom is Read resumed after from (the zero Position reads
// everything): objects before from.Key are skipped, and the first
// from.Records records of from.Key; counts start at from.Stats. put is
// given the Position after its item, bad the Position after its record.
func ReadFrom(ctx context.Context, s bucket.Store, bkt, prefix string, o Options, from Position, put func(attr.Item, Position) error, bad func(*RecordError, Position)) (Stats, error) {
	return ReadRecords(ctx, s, bkt, prefix, o, from, func(r Record, pos Position) error { return put(r.Item, pos) }, bad)
}

// ReadRecords is ReadFrom giving put each good record whole: its item, its
// condition (with Options.Conditions) and where it was read.
func ReadRecords(ctx context.Context, s bucket.Store, bkt, prefix string, o Options, from Position, put func(Record, Position) error, bad func(*RecordError, Position)) (Stats, error) {
	if _, ok := map[string]bool{FormatJSON: true, FormatIon: true, FormatCSV: true}[o.Format]; !ok {
		return from.Stats, fmt.Errorf("s3import: unknown format %q", o.Format)
	}
	return walkObjects(ctx, s, bkt, prefix, from, func(pos *Position) error {
		return readObject(ctx, s, bkt, o, pos, put, bad)
	})
}

// walkObjects calls each with the position of every object under prefix
// from from on (the object from names resumed after its from.Records
// records, the objects after it counted in the stats), and returns the
// stats; no object at all is ErrNoObjects.
func walkObjects(ctx context.Context, s bucket.Store, bkt, prefix string, from Position, each func(*Position) error) (Stats, error) {
	pos := from
	err := s.List(ctx, bkt, prefix, func(obj bucket.Object) error {
		switch {
		case obj.Key < from.Key:
			return nil
		case obj.Key == from.Key:
			pos.Records = from.Records
		default:
			pos.Key, pos.Records = obj.Key, 0
			pos.Stats.Objects++
			pos.Stats.Bytes += obj.Size
		}
		return each(&pos)
	})
	if err == nil && pos.Stats.Objects == 0 {
		err = ErrNoObjects
	}
	return pos.Stats, err
}

// object is one object being read: its bytes, decompressed, over the
// store's reader, which tells the store's failure (the object unreadable)
// from bytes that break off (the object malformed).
type object struct {
	io.Reader
	raw   *storeReader
	close func()
}

// storeReader is an object's reader as the store gives it; err is the
// first error other than io.EOF that it returned.
type storeReader struct {
	r   io.Reader
	err error
}

func (s *storeReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// failed returns the store's error, wrapped with the object's key, if
// the store failed under the object.
func (o *object) failed(key string) error {
	if o.raw.err != nil {
		return fmt.Errorf("%s: %w", key, o.raw.err)
	}
	return nil
}

// broken reports whether err, met reading the object's records, says
// that its bytes break off there (not a record's error, not the store's).
func (o *object) broken(err error) bool {
	return err != nil && err != io.EOF && o.raw.err == nil && !errors.As(err, new(*RecordError))
}

// brokenErr is the record error of an object that breaks off.
func brokenErr(err error) error {
	return fmt.Errorf("the object cannot be read from here on (%v): the rest of it is skipped", err)
}

// openObject opens object key of bkt and its decompressing reader; close
// closes both. A stream that is not of the compression (a bad header) is
// an object whose reads fail at once (broken); an empty one has no
// records.
func openObject(ctx context.Context, s bucket.Store, bkt, key, c string) (*object, error) {
	rc, err := s.Open(ctx, bkt, key)
	if err != nil {
		return nil, err
	}
	raw := &storeReader{r: rc}
	r, done, err := decompress(raw, c)
	switch {
	case err == nil:
		return &object{Reader: r, raw: raw, close: func() { done(); rc.Close() }}, nil
	case raw.err == nil && c != "" && c != CompressionNone:
		// err is io.EOF for an empty object: no records, as without
		// compression (a "folder" marker, say)
		return &object{Reader: errReader{err}, raw: raw, close: func() { rc.Close() }}, nil
	}
	rc.Close()
	return nil, fmt.Errorf("%s: %w", key, err)
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readObject reads the object pos names, skipping its first pos.Records
// records, and advances pos past each record it reads.
func readObject(ctx context.Context, s bucket.Store, bkt string, o Options, pos *Position, put func(Record, Position) error, bad func(*RecordError, Position)) error {
	key, skip := pos.Key, pos.Records
	obj, err := openObject(ctx, s, bkt, key, o.Compression)
	if err != nil {
		return err
	}
	defer obj.close()
	dec := newDecoder(obj, key, o)
	for n := int64(0); ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		o.CPU.Pause(int(n))
		rec, err := dec.next()
		if ferr := obj.failed(key); ferr != nil {
			return ferr
		}
		switch {
		case err == io.EOF:
			return nil
		case o.SkipBroken && obj.broken(err):
			if n < skip {
				return nil // counted before the read resumed
			}
			return record(dec, o, pos, Record{}, &RecordError{Key: key, Line: lineOf(dec) + 1, Err: brokenErr(err)}, put, bad)
		case n < skip:
			if err != nil && !errors.As(err, new(*RecordError)) {
				return fmt.Errorf("%s: %w", key, err)
			}
			continue
		}
		if err := record(dec, o, pos, rec, err, put, bad); err != nil {
			return err
		}
	}
}

// record counts one record the decoder gave (rec, or the error err) and
// hands it to put or bad.
func record(dec decoder, o Options, pos *Position, rec Record, err error, put func(Record, Position) error, bad func(*RecordError, Position)) error {
	if err == nil {
		if cerr := check(o, &rec); cerr != nil {
			err = &RecordError{Key: pos.Key, Line: lineOf(dec), Err: cerr}
		}
	}
	if err != nil {
		return badRecord(pos, err, bad)
	}
	pos.Records++
	pos.Stats.Processed++
	rec.Key, rec.Line = pos.Key, lineOf(dec)
	return put(rec, *pos)
}

// badRecord counts a bad record, err a *RecordError, and hands it to bad;
// any other err is fatal. (Apart from record, so that a good record
// allocates no target for errors.As.)
func badRecord(pos *Position, err error, bad func(*RecordError, Position)) error {
	var rerr *RecordError
	if !errors.As(err, &rerr) {
		return fmt.Errorf("%s: %w", pos.Key, err)
	}
	pos.Records++
	pos.Stats.Processed++
	pos.Stats.Errors++
	if bad != nil {
		bad(rerr, *pos)
	}
	return nil
}

// check runs the caller's checks on a parsed record, its item's then its
// condition's, and then Prepare.
func check(o Options, rec *Record) error {
	if o.Check != nil {
		it := rec.Item
		if it == nil {
			var err error
			if it, err = rec.Encoded.Item(); err != nil {
				return err
			}
		}
		if err := o.Check(it); err != nil {
			return err
		}
	}
	if rec.Condition != nil && o.CheckCondition != nil {
		if err := o.CheckCondition(rec.Condition); err != nil {
			return err
		}
	}
	if o.Prepare != nil {
		p, err := o.Prepare(*rec)
		if err != nil {
			return err
		}
		rec.Prepared = p
	}
	return nil
}

// newDecoder returns the decoder of an object in o's format: CSV's, or a
// line decoder with the line decoder a chunk's workers use
// (lineDecodeFunc), so that both read each line alike.
func newDecoder(r io.Reader, key string, o Options) decoder {
	if o.Format == FormatCSV {
		return newCSVDecoder(r, key, o)
	}
	return newLineDecoder(r, key, lineDecodeFunc(o))
}

// itemOnly makes a line's item decoder a record decoder.
func itemOnly(decode func([]byte) (attr.Item, error)) func([]byte) (Record, error) {
	return func(b []byte) (Record, error) {
		it, err := decode(b)
		return Record{Item: it}, err
	}
}

// lineOf is the line of the record the decoder returned last.
func lineOf(d decoder) int {
	if l, ok := d.(interface{ line() int }); ok {
		return l.line()
	}
	return 0
}

// decompress wraps r for the compression; done releases the decompressor.
func decompress(r io.Reader, compression string) (io.Reader, func(), error) {
	switch compression {
	case "", CompressionNone:
		return r, func() {}, nil
	case CompressionGzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	case CompressionZstd:
		// One goroutine and low memory: imports run beside foreground
		// requests, and many objects may be read one after another.
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	return nil, nil, fmt.Errorf("s3import: unknown compression %q", compression)
}
