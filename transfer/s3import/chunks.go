package s3import

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// Chunk is a run of records in read order, good and bad, and the Position
// after the last of them: work done with a chunk and checkpointed with its
// Pos is resumed from there (ReadChunks' from).
type Chunk struct {
	Records []Record
	Bad     []*RecordError
	Pos     Position
}

// chunkBytes bounds the raw lines of one chunk, so that a chunk of large
// items holds a few MiB, not size times 400 KB.
const chunkBytes = 4 << 20

// ReadChunks reads what ReadRecords reads, from from on, and gives it to
// fn in chunks of about size records (good and bad), in read order, on
// the caller's goroutine, while the next chunks are read. fn's error stops
// the read and is returned.
//
// With workers > 1, the lines of a DYNAMODB_JSON or ION source are read
// and split on one goroutine and each chunk's lines decoded and checked on
// one of workers others, so a load uses every core. The chunks reach fn in
// order, with the same records, errors and positions as with one worker
// (TestReadChunksParallelIsPlain), but cut differently: at most size
// records, never two objects' records, and no more than 4 MiB of lines
// (large items), with a few chunks per worker in memory. A CSV source
// (whose records may span lines) is read on one goroutine.
func ReadChunks(ctx context.Context, s bucket.Store, bkt, prefix string, o Options, from Position, size, workers int, fn func(Chunk) error) (Stats, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if workers <= 1 || o.Format == FormatCSV {
		return readChunksPlain(ctx, cancel, s, bkt, prefix, o, from, size, fn)
	}
	return readChunksParallel(ctx, cancel, s, bkt, prefix, o, from, size, workers, fn)
}

// readChunksPlain is ReadChunks with one reading goroutine, which decodes
// too: the plain twin of readChunksParallel. Its chunks may span objects.
func readChunksPlain(ctx context.Context, cancel context.CancelCauseFunc, s bucket.Store, bkt, prefix string, o Options, from Position, size int, fn func(Chunk) error) (Stats, error) {
	chunks := make(chan Chunk, 1)
	var st Stats
	var readErr error
	go func() {
		defer close(chunks)
		o.CPU.Acquire()
		defer o.CPU.Release()
		var cur Chunk
		send := func() error {
			o.CPU.Release()
			defer o.CPU.Acquire()
			select {
			case chunks <- cur:
				cur = Chunk{}
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		st, readErr = ReadRecords(ctx, s, bkt, prefix, o, from, func(r Record, pos Position) error {
			cur.Records, cur.Pos = append(cur.Records, r), pos
			if len(cur.Records)+len(cur.Bad) >= size {
				return send()
			}
			return nil
		}, func(e *RecordError, pos Position) {
			cur.Bad, cur.Pos = append(cur.Bad, e), pos
		})
		if readErr == nil && len(cur.Records)+len(cur.Bad) > 0 {
			readErr = send()
		}
	}()
	return drainChunks(chunks, cancel, fn, func() (Stats, error) { return st, readErr })
}

// drainChunks gives each chunk to fn; on fn's error it cancels the read
// and waits for its end. result is the read's outcome, valid once chunks
// is closed.
func drainChunks(chunks <-chan Chunk, cancel context.CancelCauseFunc, fn func(Chunk) error, result func() (Stats, error)) (Stats, error) {
	for c := range chunks {
		if err := fn(c); err != nil {
			cancel(err)
			for range chunks { // let the reader see the cancellation and stop
			}
			st, _ := result()
			return st, err
		}
	}
	return result()
}

// rawChunk is a chunk's lines as read, not yet decoded: the object, each
// line's text (in one buffer) and number, the error of each line that is
// a bad record already (too long, or where the object breaks off), and
// the Position after them with the errors not yet counted.
type rawChunk struct {
	key   string
	buf   []byte
	ends  []int // lines[i] is buf[ends[i-1]:ends[i]]
	lines []int
	bad   []error // nil while no line is bad
	pos   Position
	done  chan Chunk // the decoded chunk, once a worker has it
}

// newRawChunk returns an empty chunk of object key, sized for size lines
// and, in its buffer, for the text of a chunk like after (nil: none yet)
// and an eighth more: a buffer grown by appending alone allocated about
// twice its text (and a quarter of an import's garbage, read with
// BenchmarkTransfer's heap profile).
func newRawChunk(key string, size int, after *rawChunk) *rawChunk {
	c := &rawChunk{key: key, ends: make([]int, 0, min(size, 1<<16)), lines: make([]int, 0, min(size, 1<<16))}
	if after != nil {
		c.buf = make([]byte, 0, min(chunkBytes, len(after.buf)+len(after.buf)/8))
	}
	return c
}

// add appends a line (b, or none with its error) to the chunk and
// advances pos past it.
func (c *rawChunk) add(b []byte, line int, bad error, pos *Position) {
	if bad != nil && c.bad == nil {
		c.bad = make([]error, len(c.ends), cap(c.ends))
	}
	c.buf = append(c.buf, b...)
	c.ends, c.lines = append(c.ends, len(c.buf)), append(c.lines, line)
	if c.bad != nil {
		c.bad = append(c.bad, bad)
	}
	pos.Records++
	pos.Stats.Processed++
}

// badAt returns the error of line i when it is a bad record already.
func (c *rawChunk) badAt(i int) error {
	if c.bad == nil {
		return nil
	}
	return c.bad[i]
}

// readChunksParallel is ReadChunks with workers decoding.
func readChunksParallel(ctx context.Context, cancel context.CancelCauseFunc, s bucket.Store, bkt, prefix string, o Options, from Position, size, workers int, fn func(Chunk) error) (Stats, error) {
	work := make(chan *rawChunk, workers)
	ordered := make(chan *rawChunk, workers+1)
	for range workers {
		go func() {
			for raw := range work {
				var c Chunk
				o.CPU.Run(func() { c = decodeChunk(o, raw) })
				raw.done <- c
			}
		}()
	}
	var st Stats
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		st, readErr = splitLines(ctx, s, bkt, prefix, o, from, size, func(raw *rawChunk) error {
			raw.done = make(chan Chunk, 1)
			select {
			case ordered <- raw:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			select {
			case work <- raw:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
	}()
	chunks := make(chan Chunk)
	nbad := from.Stats.Errors
	go func() {
		defer close(chunks)
		for raw := range ordered {
			var c Chunk
			select {
			case c = <-raw.done:
			case <-ctx.Done():
				continue
			}
			nbad += int64(len(c.Bad))
			c.Pos.Stats.Errors = nbad
			select {
			case chunks <- c:
			case <-ctx.Done():
			}
		}
	}()
	return drainChunks(chunks, cancel, fn, func() (Stats, error) {
		st.Errors = nbad
		return st, readErr
	})
}

// decodeChunk decodes and checks a chunk's lines, as lineDecoder.next and
// record do one at a time.
func decodeChunk(o Options, raw *rawChunk) Chunk {
	c := Chunk{Records: make([]Record, 0, len(raw.lines)), Pos: raw.pos}
	decode := lineDecodeFunc(o)
	start := 0
	for i, end := range raw.ends {
		o.CPU.Pause(i)
		b := raw.buf[start:end]
		start = end
		line := raw.lines[i]
		if bad := raw.badAt(i); bad != nil {
			c.Bad = append(c.Bad, &RecordError{Key: raw.key, Line: line, Err: bad})
			continue
		}
		rec, err := decode(b)
		if err == nil {
			err = check(o, &rec)
		}
		if err != nil {
			c.Bad = append(c.Bad, &RecordError{Key: raw.key, Line: line, Err: err})
			continue
		}
		rec.Key, rec.Line = raw.key, line
		c.Records = append(c.Records, rec)
	}
	return c
}

// lineDecodeFunc is the decoder of one line of a line format (JSON, Ion)
// read with o: newDecoder's and a chunk's workers'.
func lineDecodeFunc(o Options) func([]byte) (Record, error) {
	switch {
	case o.Format == FormatIon && o.Conditions:
		return decodeIonRecord
	case o.Format == FormatIon:
		return itemOnly(decodeIonLine)
	case o.Conditions && o.Encoded:
		return decodeJSONRecordEncoded
	case o.Conditions:
		return decodeJSONRecord
	case o.Encoded:
		return decodeJSONEncoded
	}
	return itemOnly(decodeJSONLine)
}

// splitLines reads every object under prefix from from on, as ReadRecords
// does, into raw chunks of at most size non-blank lines (each one record)
// given to emit, and returns the counts but the errors.
func splitLines(ctx context.Context, s bucket.Store, bkt, prefix string, o Options, from Position, size int, emit func(*rawChunk) error) (Stats, error) {
	return walkObjects(ctx, s, bkt, prefix, from, func(pos *Position) error {
		return splitObject(ctx, s, bkt, o, pos, size, emit)
	})
}

// splitObject reads the lines of the object pos names, skipping its first
// pos.Records records, into raw chunks.
func splitObject(ctx context.Context, s bucket.Store, bkt string, o Options, pos *Position, size int, emit func(*rawChunk) error) error {
	key, skip := pos.Key, pos.Records
	obj, err := openObject(ctx, s, bkt, key, o.Compression)
	if err != nil {
		return err
	}
	defer obj.close()
	// The lines are split holding a unit of o.CPU, given back while a
	// chunk is handed on.
	o.CPU.Acquire()
	defer o.CPU.Release()
	emitFree := func(c *rawChunk) error {
		o.CPU.Release()
		defer o.CPU.Acquire()
		return emit(c)
	}
	d := newLineDecoder(obj, key, nil)
	cur := newRawChunk(key, size, nil)
	for n := int64(0); ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, tooLong, err := d.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ferr := obj.failed(key); ferr != nil || !o.SkipBroken || !obj.broken(err) {
				return cmp.Or(ferr, fmt.Errorf("%s: %w", key, err))
			}
			if n++; n > skip { // else counted before the read resumed
				cur.add(nil, d.n+1, brokenErr(err), pos)
			}
			break
		}
		d.n++
		o.CPU.Pause(d.n)
		var bad error
		if tooLong {
			b, bad = nil, tooLongErr() // a bad record: its text is not kept
		} else if b = bytes.TrimSpace(b); len(b) == 0 {
			continue
		}
		if n++; n <= skip {
			continue
		}
		cur.add(b, d.n, bad, pos)
		if len(cur.ends) == size || len(cur.buf) >= chunkBytes {
			cur.pos = *pos
			if err := emitFree(cur); err != nil {
				return err
			}
			cur = newRawChunk(key, size, cur)
		}
	}
	if len(cur.ends) == 0 {
		return nil
	}
	cur.pos = *pos
	return emitFree(cur)
}
