package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// A write-ahead log record is one committed write transaction:
//
//	length uint32 LE | crc32c(body) uint32 LE | body
//
// and the body is a sequence of operations, each an op byte, its target and
// its operands:
//
//	put      target uvarint(len key) uvarint(len val) key val
//	delete   target uvarint(len key) key
//	sequence target uvarint(seq)
//	create   uvarint(len id) id
//	drop     uvarint(len id) id
//
// where target is uvarint(len id) id sub (sub catalogSub names the catalog).
// Every operation sets state rather than changing it (a put stores, a
// sequence is the value reached, a create starts from an empty space), so
// applying a record again over a state that already holds some prefix of it
// ends in the same state: a checkpoint interrupted half-way is simply redone.
const (
	opPut byte = iota + 1
	opDelete
	opSequence
	opCreateSpace
	opDropSpace
)

// catalogSub is the sub byte of an operation on the catalog.
const catalogSub = 0xff

// recordHeader is the length of a record's length and checksum.
const recordHeader = 8

// maxRecord bounds a record's body: a longer length field can only be a torn
// or corrupt write.
const maxRecord = 1 << 31

// castagnoli is CRC-32C, which the CPU computes in hardware.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCorruptRecord reports a record whose checksum matched but whose
// operations do not parse: a bug, not a torn write.
var errCorruptRecord = errors.New("store: corrupt write-ahead log record")

// recorder builds the record of one write transaction.
type recorder struct{ buf []byte }

// reset starts an empty record.
func (r *recorder) reset() {
	if cap(r.buf) > 16<<20 {
		r.buf = nil // do not keep one huge transaction's buffer for good
	}
	r.buf = append(r.buf[:0], make([]byte, recordHeader)...)
}

func (r *recorder) empty() bool { return len(r.buf) <= recordHeader }

// seal writes the header and returns the whole record.
func (r *recorder) seal() []byte {
	body := r.buf[recordHeader:]
	binary.LittleEndian.PutUint32(r.buf[0:4], uint32(len(body)))
	binary.LittleEndian.PutUint32(r.buf[4:8], crc32.Checksum(body, castagnoli))
	return r.buf
}

func (r *recorder) bytes(b []byte) {
	r.buf = binary.AppendUvarint(r.buf, uint64(len(b)))
	r.buf = append(r.buf, b...)
}

func (r *recorder) target(op byte, id string, sub byte) {
	r.buf = append(r.buf, op)
	r.buf = binary.AppendUvarint(r.buf, uint64(len(id)))
	r.buf = append(r.buf, id...)
	r.buf = append(r.buf, sub)
}

func (r *recorder) put(id string, sub byte, key, val []byte) {
	r.target(opPut, id, sub)
	r.buf = binary.AppendUvarint(r.buf, uint64(len(key)))
	r.buf = binary.AppendUvarint(r.buf, uint64(len(val)))
	r.buf = append(r.buf, key...)
	r.buf = append(r.buf, val...)
}

func (r *recorder) delete(id string, sub byte, key []byte) {
	r.target(opDelete, id, sub)
	r.bytes(key)
}

func (r *recorder) sequence(id string, sub byte, seq uint64) {
	r.target(opSequence, id, sub)
	r.buf = binary.AppendUvarint(r.buf, seq)
}

func (r *recorder) createSpace(id string) {
	r.buf = append(r.buf, opCreateSpace)
	r.bytes([]byte(id))
}

func (r *recorder) dropSpace(id string) {
	r.buf = append(r.buf, opDropSpace)
	r.bytes([]byte(id))
}

// readRecords calls fn with the body of each intact record read from rd, in
// order, and returns how many bytes those records span. It stops without an
// error at the end of the data or at the first record that is incomplete or
// fails its checksum: the tail of a write the process did not finish (or
// zeros), after which nothing was acknowledged. body is valid only during fn.
func readRecords(rd io.Reader, fn func(body []byte) error) (int64, error) {
	br := bufio.NewReaderSize(rd, 1<<20)
	var (
		hdr  [recordHeader]byte
		body []byte
		end  int64
	)
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return end, readEnd(err)
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		if n == 0 || n > maxRecord {
			return end, nil
		}
		if cap(body) < int(n) {
			body = make([]byte, n)
		}
		body = body[:n]
		if _, err := io.ReadFull(br, body); err != nil {
			return end, readEnd(err)
		}
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(hdr[4:8]) {
			return end, nil
		}
		if err := fn(body); err != nil {
			return end, err
		}
		end += recordHeader + int64(n)
	}
}

// readEnd maps running out of data to the normal end of a log.
func readEnd(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// applyRecord carries out a record's operations in t. Values are copied:
// body belongs to the reader.
func applyRecord(t txn, body []byte) error {
	d := recordDecoder{b: body}
	for len(d.b) > 0 && d.err == nil {
		op := d.byte()
		switch op {
		case opCreateSpace, opDropSpace:
			id := string(d.bytes())
			if d.err != nil {
				break
			}
			// A create starts from an empty space, so both drop first.
			if err := t.dropSpace(id); err != nil {
				return err
			}
			if op == opCreateSpace {
				if err := t.createSpace(id); err != nil {
					return err
				}
			}
		case opPut, opDelete, opSequence:
			b := d.target(t)
			if d.err != nil {
				break
			}
			if err := d.apply(op, b); err != nil {
				return err
			}
		default:
			d.fail()
		}
	}
	return d.err
}

// recordDecoder reads a record's body; the first malformed field sets err
// and makes every later read return zero values.
type recordDecoder struct {
	b   []byte
	err error
}

func (d *recordDecoder) fail() {
	if d.err == nil {
		d.err = errCorruptRecord
	}
	d.b = nil
}

func (d *recordDecoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *recordDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *recordDecoder) take(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *recordDecoder) bytes() []byte { return d.take(d.uvarint()) }

// target reads an operation's target and resolves it in t; nil (and no
// error) for a space that does not exist. Every space is created before
// it is written, so a space is missing only when the state already holds a
// later record of the log that dropped it (a checkpoint interrupted after
// some of its transactions, replayed from the segment's start): the
// operation is skipped, since that drop, applied again after it, would
// erase it anyway. A keyspace out of range is a corrupt record.
func (d *recordDecoder) target(t txn) bucket {
	id := d.bytes()
	sub := d.byte()
	if d.err != nil {
		return nil
	}
	if sub == catalogSub {
		return t.catalog()
	}
	if int(sub) >= subCount {
		d.err = fmt.Errorf("%w: no keyspace %d", errCorruptRecord, sub)
		return nil
	}
	sp := t.space(string(id))
	if sp == nil {
		return nil
	}
	return sp.sub(int(sub))
}

// apply reads an operation's operands and carries it out on b (nil: its
// space is gone, and it is skipped).
func (d *recordDecoder) apply(op byte, b bucket) error {
	switch op {
	case opPut:
		klen, vlen := d.uvarint(), d.uvarint()
		key, val := d.take(klen), d.take(vlen)
		if d.err != nil || b == nil {
			return nil
		}
		// Copied: body is the reader's, and bbolt reads values until
		// its commit.
		kv := make([]byte, len(key)+len(val))
		copy(kv, key)
		copy(kv[len(key):], val)
		return b.put(kv[:len(key)], kv[len(key):])
	case opDelete:
		key := d.bytes()
		if d.err != nil || b == nil {
			return nil
		}
		return b.delete(key)
	default: // opSequence
		seq := d.uvarint()
		if d.err != nil || b == nil {
			return nil
		}
		return b.setSequence(seq)
	}
}
