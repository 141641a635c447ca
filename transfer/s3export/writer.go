package s3export

import (
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"hash"
	"io"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// defaultFileBytes is when a data file is closed and the next one started,
// counted in uncompressed bytes.
const defaultFileBytes = 128 << 20

// Options says where and how an export is written.
type Options struct {
	Store          bucket.Store
	Bucket, Prefix string
	// ID is the export ID (NewID), the folder under AWSDynamoDB/.
	ID string
	// Format is FormatJSON or FormatIon.
	Format string
	// FileBytes closes a data file after this many uncompressed bytes;
	// zero means 128 MiB.
	FileBytes int
	// CPU is the budget the Ion runs are encoded and written within, the
	// one the process's imports share (s3import.NewCoresBudget: every
	// core, spare processors while it computes, yielding every 128
	// items); nil bounds nothing.
	CPU *s3import.Budget
}

// Change is one item's net change in an incremental export's window.
type Change struct {
	// WriteTime is when the change was written; exported in microseconds.
	WriteTime time.Time
	// Keys holds the item's primary key attributes.
	Keys attr.Item
	// NewImage is the item after the window (nil when it was deleted);
	// OldImage before it (nil when it was created, or with NEW_IMAGE).
	NewImage, OldImage attr.Item
}

// Writer writes one export. Its methods are not safe for concurrent use.
type Writer struct {
	ctx    context.Context
	o      Options
	base   string
	enc    encoder
	cur    *dataFile
	files  []fileEntry
	items  int64
	billed int64
	line   []byte
	// pipe encodes AddStored's items in Ion on other goroutines
	// (parallel.go); err is the first error it met, which every later
	// call returns.
	pipe *ionPipe
	err  error
	// holding is set while this goroutine holds a unit of o.CPU.
	holding bool
}

// fileEntry is one line of manifest-files.json.
type fileEntry struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// dataFile is the data file being written: items → gzip → (object, md5).
type dataFile struct {
	key   string
	obj   bucket.Writer
	gz    *gzip.Writer
	sum   hash.Hash
	items int64
	size  int
}

// Start writes the empty _started object, which proves the bucket is
// writable, and returns a Writer. Errors are the store's (a missing bucket
// is bucket.ErrNoSuchBucket) or an unknown format.
func Start(ctx context.Context, o Options) (*Writer, error) {
	enc, ok := newEncoder(o.Format)
	if !ok {
		return nil, fmt.Errorf("s3export: unknown format %q", o.Format)
	}
	if o.FileBytes <= 0 {
		o.FileBytes = defaultFileBytes
	}
	w := &Writer{ctx: ctx, o: o, base: Base(o.Prefix, o.ID), enc: enc}
	if err := w.putSmall("_started", nil); err != nil {
		return nil, err
	}
	return w, nil
}

// Add writes one item of a full export.
func (w *Writer) Add(it attr.Item) error {
	err := w.flush()
	if err != nil {
		return err
	}
	if w.line, err = w.enc.appendItem(w.line[:0], it); err != nil {
		return err
	}
	w.billed += int64(it.Size())
	return w.write()
}

// AddStored writes one item of a full export from its storage encoding
// (attr.AppendBinary). In DYNAMODB_JSON the item is transcoded without
// being decoded (attr.AppendBinaryJSON), so a large export allocates
// nothing per item and its garbage does not grow the heap; its plain twin,
// Add of the decoded item, writes the same bytes (TestAddStoredIsAdd). In
// Ion the items are encoded on other goroutines, several runs of them at
// once (parallel.go), and written in order, as Add would write them; an
// error may then show at a later call or at Finish.
func (w *Writer) AddStored(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.o.Format != FormatJSON {
		if err := w.addStoredIon(b); err != nil {
			w.err = err
			w.dropRuns()
			return err
		}
		return nil
	}
	size, err := attr.BinarySize(b)
	if err != nil {
		return err
	}
	w.o.CPU.Pause(int(w.items))
	w.line = append(w.line[:0], `{"Item":`...)
	if w.line, err = attr.AppendBinaryJSON(w.line, b); err != nil {
		return err
	}
	w.line = append(w.line, "}\n"...)
	w.billed += int64(size)
	return w.write()
}

// AddChange writes one record of an incremental export.
func (w *Writer) AddChange(c Change) error {
	err := w.flush()
	if err != nil {
		return err
	}
	if w.line, err = w.enc.appendChange(w.line[:0], c); err != nil {
		return err
	}
	w.billed += int64(c.NewImage.Size() + c.OldImage.Size())
	if c.NewImage == nil && c.OldImage == nil {
		w.billed += int64(c.Keys.Size())
	}
	return w.write()
}

func (w *Writer) write() error {
	if w.cur == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	if _, err := w.cur.gz.Write(w.line); err != nil {
		return err
	}
	w.cur.items++
	w.items++
	w.cur.size += len(w.line)
	if w.cur.size >= w.o.FileBytes {
		return w.closeFile()
	}
	return nil
}

// NextFile ends the current data file and starts another, even if nothing
// is written to it: the service writes at least one file per partition,
// an empty one for an empty partition.
func (w *Writer) NextFile() error {
	if err := w.flush(); err != nil {
		return err
	}
	if w.cur != nil {
		if err := w.closeFile(); err != nil {
			return err
		}
	}
	return w.open()
}

func (w *Writer) open() error {
	key := w.base + "/data/" + dataName(w.o.ID, len(w.files)) + w.enc.ext()
	obj, err := w.o.Store.Create(w.ctx, w.o.Bucket, key)
	if err != nil {
		return err
	}
	sum := md5.New()
	gz, _ := gzip.NewWriterLevel(io.MultiWriter(obj, sum), gzip.DefaultCompression)
	w.cur = &dataFile{key: key, obj: obj, gz: gz, sum: sum}
	return nil
}

func (w *Writer) closeFile() error {
	f := w.cur
	w.cur = nil
	if err := f.gz.Close(); err != nil {
		f.obj.Abort()
		return err
	}
	etag, err := w.commit(f.obj)
	if err != nil {
		return err
	}
	w.files = append(w.files, fileEntry{ItemCount: f.items, ETag: etag, DataFileS3Key: f.key,
		MD5Checksum: base64.StdEncoding.EncodeToString(f.sum.Sum(nil))})
	return nil
}

// commit commits obj, giving back the unit of the CPU budget the Writer
// holds, if it holds one, while the store takes the object.
func (w *Writer) commit(obj bucket.Writer) (string, error) {
	if w.holding {
		w.o.CPU.Release()
		defer w.o.CPU.Acquire()
	}
	return obj.Commit()
}

// Abort discards the data file being written. Files already committed
// stay, as a failed export of the service leaves its files.
func (w *Writer) Abort() {
	w.dropRuns()
	if w.cur != nil {
		w.cur.obj.Abort()
		w.cur = nil
	}
}

// putSmall writes a whole small object under the export's folder.
func (w *Writer) putSmall(name string, b []byte) error {
	obj, err := w.o.Store.Create(w.ctx, w.o.Bucket, w.base+"/"+name)
	if err != nil {
		return err
	}
	if _, err := obj.Write(b); err != nil {
		obj.Abort()
		return err
	}
	_, err = obj.Commit()
	return err
}

// ItemCount is how many items (or change records) were written so far;
// it first writes those AddStored still holds (an error in them stays for
// the next call to return).
func (w *Writer) ItemCount() int64 {
	_ = w.flush()
	return w.items
}
