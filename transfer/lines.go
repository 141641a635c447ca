package transfer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ddblocal/ddblocal/attr"
)

// maxLine bounds one JSON line: a 400 KB item in DynamoDB-JSON with base64
// binaries and escapes stays well under it.
const maxLine = 8 << 20

// Format is how a JSON-lines file writes its items.
type Format int

const (
	// Unknown: decided by the file's first item.
	Unknown Format = iota
	// DynamoDBJSON: {"pk":{"S":"a"}}, or {"Item":{...}} as DynamoDB's
	// export to S3 and Export write it.
	DynamoDBJSON
	// PlainJSON: {"pk":"a","n":1}; strings, numbers, booleans, null, arrays
	// and objects become S, N, BOOL, NULL, L and M.
	PlainJSON
)

// LineError is an error in one line of a file.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader reads items from JSON lines, one item per line; blank lines are
// skipped. Which Format the lines are in is decided by the first item
// unless set: an item whose every attribute is a one-member object naming a
// DynamoDB type ({"S":...}, {"N":...}, ...), or a single "Item" member
// holding such an object, makes the file DynamoDB-JSON.
type Reader struct {
	sc     *bufio.Scanner
	file   string
	line   int
	format Format
}

// NewReader returns a Reader naming file in its errors.
func NewReader(r io.Reader, file string, f Format) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return &Reader{sc: sc, file: file, format: f}
}

// Next returns the next item and its line number, io.EOF after the last,
// or a *LineError naming the file and line of a bad one.
func (r *Reader) Next() (attr.Item, int, error) {
	for r.sc.Scan() {
		r.line++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		it, err := r.decode(b)
		if err != nil {
			return nil, r.line, &LineError{File: r.file, Line: r.line, Err: err}
		}
		return it, r.line, nil
	}
	if err := r.sc.Err(); err != nil {
		return nil, r.line + 1, &LineError{File: r.file, Line: r.line + 1, Err: err}
	}
	return nil, r.line, io.EOF
}

// decode reads one line in the Reader's format, deciding it first if needed.
func (r *Reader) decode(b []byte) (attr.Item, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if r.format == Unknown {
		r.format = PlainJSON
		if looksTyped(top) {
			r.format = DynamoDBJSON
		}
	}
	if r.format == PlainJSON {
		return decodePlain(b)
	}
	if inner, ok := top["Item"]; ok && len(top) == 1 {
		b = inner
	}
	var it attr.Item
	if err := it.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	if len(it) == 0 {
		return nil, errors.New("empty item")
	}
	return it, nil
}

// looksTyped reports whether an item's attributes are all DynamoDB-JSON
// attribute values, or the item is {"Item":{...}}.
func looksTyped(top map[string]json.RawMessage) bool {
	if inner, ok := top["Item"]; ok && len(top) == 1 {
		var m map[string]json.RawMessage
		if json.Unmarshal(inner, &m) == nil {
			top = m
		}
	}
	if len(top) == 0 {
		return false
	}
	for _, raw := range top {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || len(m) != 1 {
			return false
		}
		for k := range m {
			if attr.ParseType(k) == 0 {
				return false
			}
		}
	}
	return true
}

// decodePlain reads {"a":"x","n":1.5,...} with exact numbers.
func decodePlain(b []byte) (attr.Item, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, errors.New("empty item")
	}
	it := make(attr.Item, len(m))
	for k, x := range m {
		v, err := plainValue(x)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		it[k] = v
	}
	return it, nil
}

// plainValue is one type switch over what encoding/json decodes into any.
func plainValue(x any) (attr.Value, error) {
	switch x := x.(type) {
	case string:
		return attr.String(x), nil
	case json.Number:
		return attr.Number(string(x))
	case bool:
		return attr.Bool(x), nil
	case nil:
		return attr.Null(), nil
	case []any:
		l := make([]attr.Value, len(x))
		for i, e := range x {
			v, err := plainValue(e)
			if err != nil {
				return attr.Value{}, err
			}
			l[i] = v
		}
		return attr.List(l), nil
	case map[string]any:
		m := make(map[string]attr.Value, len(x))
		for k, e := range x {
			v, err := plainValue(e)
			if err != nil {
				return attr.Value{}, fmt.Errorf("%s: %w", k, err)
			}
			m[k] = v
		}
		return attr.Map(m), nil
	}
	return attr.Value{}, fmt.Errorf("unsupported JSON value %T", x)
}

// AppendLine appends it as one export line, {"Item":{...}}\n, the shape
// DynamoDB's export to S3 writes.
func AppendLine(dst []byte, it attr.Item) []byte {
	dst = append(dst, `{"Item":`...)
	dst = attr.AppendItemJSON(dst, it)
	return append(dst, "}\n"...)
}
