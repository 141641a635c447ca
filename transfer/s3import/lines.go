package s3import

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/iontext"
)

// maxLine bounds one record's line: a 400 KB item in JSON with base64
// binaries and escaped characters stays well under it. A longer line is a
// bad record, skipped to its end.
const maxLine = 4 << 20

// lineDecoder reads newline-delimited records; blank lines are skipped.
type lineDecoder struct {
	r      *bufio.Reader
	key    string
	n      int
	buf    []byte
	decode func([]byte) (Record, error)
}

func newLineDecoder(r io.Reader, key string, decode func([]byte) (Record, error)) *lineDecoder {
	return &lineDecoder{r: bufio.NewReaderSize(r, 256<<10), key: key, decode: decode}
}

func (d *lineDecoder) line() int { return d.n }

func (d *lineDecoder) next() (Record, error) {
	for {
		b, tooLong, err := d.readLine()
		if err != nil {
			return Record{}, err
		}
		d.n++
		if tooLong {
			return Record{}, &RecordError{Key: d.key, Line: d.n, Err: tooLongErr()}
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		rec, err := d.decode(b)
		if err != nil {
			return Record{}, &RecordError{Key: d.key, Line: d.n, Err: err}
		}
		return rec, nil
	}
}

// tooLongErr is the error of a line longer than maxLine.
func tooLongErr() error { return fmt.Errorf("line longer than %d bytes", maxLine) }

// readLine returns the next line without its newline; io.EOF only when
// nothing is left. A line over maxLine is consumed and reported tooLong.
func (d *lineDecoder) readLine() (b []byte, tooLong bool, err error) {
	d.buf = d.buf[:0]
	for {
		frag, err := d.r.ReadSlice('\n')
		if len(d.buf)+len(frag) > maxLine {
			tooLong = true
		} else {
			d.buf = append(d.buf, frag...)
		}
		switch {
		case err == nil:
			return d.buf, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && (len(d.buf) > 0 || tooLong):
			return d.buf, tooLong, nil
		default:
			return nil, false, err
		}
	}
}

// decodeJSONLine reads {"Item":{...}}. The line as an export writes it
// (no space around the wrapper) is decoded straight by attr's decoder; any
// other line, or one that fails there, takes the plain twin,
// decodeJSONLinePlain, whose answer it then is (TestJSONLineFastIsPlain).
func decodeJSONLine(b []byte) (attr.Item, error) {
	if it, ok := decodeJSONFast(b); ok {
		return it, nil
	}
	return decodeJSONLinePlain(b)
}

// decodeJSONFast decodes a line that is exactly {"Item":{...}}, as an
// export writes it; ok is false for any other line.
func decodeJSONFast(b []byte) (attr.Item, bool) {
	const prefix = `{"Item":`
	if inner, ok := bytes.CutPrefix(b, []byte(prefix)); ok && len(inner) > 1 && inner[len(inner)-1] == '}' {
		var it attr.Item
		if it.UnmarshalJSON(inner[:len(inner)-1]) == nil && len(it) > 0 {
			return it, true
		}
	}
	return nil, false
}

// decodeJSONEncoded is decodeJSONLine for Options.Encoded: a line
// {"Item":{...}} (no space around the wrapper) whose non-empty item
// attr.Encoded's one-pass decoder takes comes back in Record.Encoded,
// every other line as decodeJSONLine reads it (TestJSONLineFastIsPlain).
func decodeJSONEncoded(b []byte) (Record, error) {
	if e, ok := encodeJSONFast(b); ok {
		return Record{Encoded: e}, nil
	}
	it, err := decodeJSONLine(b)
	return Record{Item: it}, err
}

// encodeJSONFast is decodeJSONEncoded's fast path; ok is false for any
// line it does not take.
func encodeJSONFast(b []byte) (attr.Encoded, bool) {
	inner, ok := bytes.CutPrefix(b, []byte(`{"Item":`))
	if !ok || len(inner) < 3 || inner[0] != '{' || inner[len(inner)-1] != '}' {
		return attr.Encoded{}, false
	}
	inner = inner[:len(inner)-1]
	if rest := bytes.TrimLeft(inner[1:], " \t\r\n"); len(rest) == 0 || rest[0] == '}' {
		return attr.Encoded{}, false // an empty item: the plain path words it
	}
	var e attr.Encoded
	if n, ok := e.UnmarshalJSONPrefix(inner); !ok || n != len(inner) {
		return attr.Encoded{}, false
	}
	return e, true
}

// decodeJSONRecord reads a bulk load's line: {"Item":{...}} with, beside
// the item, an optional ConditionExpression and its
// ExpressionAttributeNames and ExpressionAttributeValues. A line of the
// item alone takes decodeJSONLine's fast path.
func decodeJSONRecord(b []byte) (Record, error) {
	if it, ok := decodeJSONFast(b); ok {
		return Record{Item: it}, nil
	}
	var rec struct {
		Item                      *attr.Item
		ConditionExpression       *string
		ExpressionAttributeNames  map[string]string
		ExpressionAttributeValues map[string]attr.Value
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return Record{}, err
	}
	if rec.Item == nil || len(*rec.Item) == 0 {
		return Record{}, errors.New(`want {"Item":{...}}`)
	}
	out := Record{Item: *rec.Item}
	if rec.ConditionExpression != nil || rec.ExpressionAttributeNames != nil || rec.ExpressionAttributeValues != nil {
		out.Condition = &Condition{Expression: rec.ConditionExpression, Names: rec.ExpressionAttributeNames, Values: rec.ExpressionAttributeValues}
	}
	return out, nil
}

// decodeJSONRecordEncoded is decodeJSONRecord for Options.Encoded: a line
// that is an item alone, {"Item":{...}} (no space around the wrapper),
// whose non-empty item attr.Encoded's one-pass decoder takes comes back in
// Record.Encoded; every other line (one with a condition, say) as
// decodeJSONRecord reads it (TestJSONRecordEncodedIsPlain).
func decodeJSONRecordEncoded(b []byte) (Record, error) {
	if e, ok := encodeJSONFast(b); ok {
		return Record{Encoded: e}, nil
	}
	return decodeJSONRecord(b)
}

// decodeJSONLinePlain reads {"Item":{...}} with encoding/json.
func decodeJSONLinePlain(b []byte) (attr.Item, error) {
	var rec struct {
		Item *attr.Item
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	if rec.Item == nil || len(*rec.Item) == 0 {
		return nil, errors.New(`want {"Item":{...}}`)
	}
	return *rec.Item, nil
}

// decodeIonLine reads $ion_1_0 {Item:{...}}: by hand when
// decodeIonFast can, else with the Ion library (decodeIonLinePlain).
func decodeIonLine(b []byte) (attr.Item, error) {
	if it, ok := decodeIonFast(b); ok {
		return it, nil
	}
	return decodeIonLinePlain(b)
}

// decodeIonLinePlain reads $ion_1_0 {Item:{...}} with the Ion library.
func decodeIonLinePlain(b []byte) (attr.Item, error) {
	m, err := iontext.DecodeLine(b)
	if err != nil {
		return nil, err
	}
	it, ok := m["Item"]
	if !ok || it.T != attr.TypeM || len(it.M) == 0 {
		return nil, errors.New("want {Item:{...}}")
	}
	return it.M, nil
}

// decodeIonRecord reads a bulk load's Ion line: {Item:{...}} with an
// optional ConditionExpression (a string), ExpressionAttributeNames (a
// struct of strings) and ExpressionAttributeValues (a struct of values,
// typed as in Item) beside the item. A line of the item alone takes
// decodeIonLine's fast path; any other, the Ion library
// (decodeIonRecordPlain, its twin: TestIonRecordFastIsPlain).
func decodeIonRecord(b []byte) (Record, error) {
	if it, ok := decodeIonFast(b); ok {
		return Record{Item: it}, nil
	}
	return decodeIonRecordPlain(b)
}

// decodeIonRecordPlain is decodeIonRecord with the Ion library alone.
func decodeIonRecordPlain(b []byte) (Record, error) {
	m, err := iontext.DecodeLine(b)
	if err != nil {
		return Record{}, err
	}
	it, ok := m["Item"]
	if !ok || it.T != attr.TypeM || len(it.M) == 0 {
		return Record{}, errors.New("want {Item:{...}}")
	}
	c, err := ionCondition(m)
	return Record{Item: it.M, Condition: c}, err
}

// ionCondition reads the condition fields of an Ion record (nil when it
// has none).
func ionCondition(m map[string]attr.Value) (*Condition, error) {
	e, hasE := m["ConditionExpression"]
	n, hasN := m["ExpressionAttributeNames"]
	v, hasV := m["ExpressionAttributeValues"]
	if !hasE && !hasN && !hasV {
		return nil, nil
	}
	c := &Condition{}
	if hasE {
		if e.T != attr.TypeS {
			return nil, errors.New("ConditionExpression: want a string")
		}
		c.Expression = &e.S
	}
	if hasN {
		if n.T != attr.TypeM {
			return nil, errors.New("ExpressionAttributeNames: want a struct of strings")
		}
		c.Names = make(map[string]string, len(n.M))
		for k, x := range n.M {
			if x.T != attr.TypeS {
				return nil, errors.New("ExpressionAttributeNames: want a struct of strings")
			}
			c.Names[k] = x.S
		}
	}
	if hasV {
		if v.T != attr.TypeM {
			return nil, errors.New("ExpressionAttributeValues: want a struct")
		}
		c.Values = v.M
	}
	return c, nil
}

// csvDecoder reads CSV rows as items.
type csvDecoder struct {
	r      *csv.Reader
	key    string
	header []string
	types  map[string]attr.Type
	n      int
	err    error
}

func newCSVDecoder(r io.Reader, key string, o Options) *csvDecoder {
	cr := csv.NewReader(bufio.NewReaderSize(r, 256<<10))
	cr.Comma = ','
	if o.CSV.Delimiter != "" {
		cr.Comma = rune(o.CSV.Delimiter[0])
	}
	cr.ReuseRecord = true
	d := &csvDecoder{r: cr, key: key, header: o.CSV.Header, types: o.KeyTypes}
	if d.header == nil {
		rec, err := cr.Read()
		switch {
		case err == io.EOF:
			d.err = io.EOF
		case errors.As(err, new(*csv.ParseError)):
			d.err = &RecordError{Key: key, Line: 1, Err: fmt.Errorf("header: %w", err)}
		case err != nil:
			d.err = err // the object breaks off (or the store fails) in the header
		default:
			d.header = append([]string(nil), rec...)
		}
	}
	if d.header != nil {
		cr.FieldsPerRecord = len(d.header)
	}
	return d
}

func (d *csvDecoder) line() int { return d.n }

func (d *csvDecoder) next() (Record, error) {
	if d.err != nil {
		err := d.err
		d.err = io.EOF // a bad header makes the whole file one bad record
		return Record{}, err
	}
	rec, err := d.r.Read()
	if err == io.EOF {
		return Record{}, io.EOF
	}
	var perr *csv.ParseError
	if errors.As(err, &perr) {
		d.n = perr.StartLine
		return Record{}, &RecordError{Key: d.key, Line: d.n, Err: err}
	}
	if err != nil {
		return Record{}, err
	}
	d.n, _ = d.r.FieldPos(0)
	it, err := d.item(rec)
	if err != nil {
		return Record{}, &RecordError{Key: d.key, Line: d.n, Err: err}
	}
	return Record{Item: it}, nil
}

// item types a row: key columns by their attribute type, others as
// strings; an empty cell is no attribute.
func (d *csvDecoder) item(rec []string) (attr.Item, error) {
	it := make(attr.Item, len(rec))
	for i, cell := range rec {
		if cell == "" {
			continue
		}
		name := d.header[i]
		switch d.types[name] {
		case attr.TypeN:
			v, err := attr.Number(cell)
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", name, err)
			}
			it[name] = v
		case attr.TypeB:
			b, err := base64.StdEncoding.DecodeString(cell)
			if err != nil {
				return nil, fmt.Errorf("column %q: invalid base64", name)
			}
			it[name] = attr.Binary(b)
		default:
			it[name] = attr.String(cell)
		}
	}
	if len(it) == 0 {
		return nil, errors.New("empty row")
	}
	return it, nil
}
