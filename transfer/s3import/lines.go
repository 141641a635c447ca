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
	decode func([]byte) (attr.Item, error)
}

func newLineDecoder(r io.Reader, key string, decode func([]byte) (attr.Item, error)) *lineDecoder {
	return &lineDecoder{r: bufio.NewReaderSize(r, 256<<10), key: key, decode: decode}
}

func (d *lineDecoder) line() int { return d.n }

func (d *lineDecoder) next() (attr.Item, error) {
	for {
		b, tooLong, err := d.readLine()
		if err != nil {
			return nil, err
		}
		d.n++
		if tooLong {
			return nil, &RecordError{Key: d.key, Line: d.n, Err: fmt.Errorf("line longer than %d bytes", maxLine)}
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		it, err := d.decode(b)
		if err != nil {
			return nil, &RecordError{Key: d.key, Line: d.n, Err: err}
		}
		return it, nil
	}
}

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
	const prefix = `{"Item":`
	if inner, ok := bytes.CutPrefix(b, []byte(prefix)); ok && len(inner) > 1 && inner[len(inner)-1] == '}' {
		var it attr.Item
		if it.UnmarshalJSON(inner[:len(inner)-1]) == nil && len(it) > 0 {
			return it, nil
		}
	}
	return decodeJSONLinePlain(b)
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

// decodeIonLine reads $ion_1_0 {Item:{...}}.
func decodeIonLine(b []byte) (attr.Item, error) {
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
		case err != nil:
			d.err = &RecordError{Key: key, Line: 1, Err: fmt.Errorf("header: %w", err)}
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

func (d *csvDecoder) next() (attr.Item, error) {
	if d.err != nil {
		err := d.err
		d.err = io.EOF // a bad header makes the whole file one bad record
		return nil, err
	}
	rec, err := d.r.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	var perr *csv.ParseError
	if errors.As(err, &perr) {
		d.n = perr.StartLine
		return nil, &RecordError{Key: d.key, Line: d.n, Err: err}
	}
	if err != nil {
		return nil, err
	}
	d.n, _ = d.r.FieldPos(0)
	it, err := d.item(rec)
	if err != nil {
		return nil, &RecordError{Key: d.key, Line: d.n, Err: err}
	}
	return it, nil
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
