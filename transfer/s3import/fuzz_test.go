package s3import

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// FuzzDecoders feeds arbitrary bytes to each format's decoder (and to the
// bulk loads' record decoders, which read conditions too): it never
// panics, never loops, and every item it yields is a valid DynamoDB item.
func FuzzDecoders(f *testing.F) {
	f.Add([]byte(`{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}` + "\nnot json\n"))
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",n:1.5d2,s:$dynamodb_NS::[1.,2.]}}` + "\n"))
	f.Add([]byte(`{"Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}` + "\n"))
	f.Add([]byte("pk,n\na,1\n\"b\",\"2\"\nbad\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i, format := range []string{FormatJSON, FormatIon, FormatCSV, FormatJSON, FormatIon, FormatJSON, FormatJSON} {
			d := newDecoder(bytes.NewReader(b), "k", Options{Format: format, KeyTypes: map[string]attr.Type{"n": attr.TypeN},
				Conditions: i > 2 && i != 5, Encoded: i >= 5})
			for i := 0; ; i++ {
				if i > len(b)+2 {
					t.Fatalf("%s: more records than bytes", format)
				}
				rec, err := d.next()
				it := rec.Item
				if it == nil && err == nil {
					if it, err = rec.Encoded.Item(); err != nil {
						t.Fatalf("%s: undecodable encoding: %v", format, err)
					}
				}
				if err == io.EOF {
					break
				}
				var rerr *RecordError
				if errors.As(err, &rerr) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: fatal error from in-memory input: %v", format, err)
				}
				if err := it.Validate(); err != nil || len(it) == 0 {
					t.Fatalf("%s: invalid item %v: %v", format, it, err)
				}
			}
		}
	})
}

// TestJSONLineFastIsPlain: the JSON fast path answers as its plain twin.
func TestJSONLineFastIsPlain(t *testing.T) {
	for _, line := range []string{
		`{"Item":{"a":{"S":"x"},"n":{"N":"1.50"}}}`, `{"Item":{}}`, `{"Item":{"a":{"S":"x"}}, "Item":{"b":{"S":"y"}}}`,
		`{"Item":{"a":{"S":"x"}},"Other":1}`, `{"Item":{"a":{"S":"x"}}}}`, `{"Item":{"a":{"S":"\ud800"}}}`, `{"Item":null}`,
		`{"Item":{"a":{"SS":["x","x"]}}}`, `{ "Item":{"a":{"B":"AAE="}}}`, `{"Item":{"a":{"N":"1e400"}}}`,
		`{"Item":{"pk":{"S":"a"},"ss":{"SS":["b","a"]},"ok":{"BOOL":true},"n":{"N":"07"}}}`, `{"Item":{ }}`, `{"Item":{"a":{"S":"x"}} }`,
		`{"Item":{"a":{"S":"x"}}{}}`, `{"Item":{"a":{"S":"x"},"a":{"S":"y"}}}`, `{"Item":{"a":{"M":{}}}}`,
	} {
		checkJSONTwins(t, []byte(line))
	}
}

func checkJSONTwins(t *testing.T, b []byte) {
	t.Helper()
	fast, ferr := decodeJSONLine(b)
	plain, perr := decodeJSONLinePlain(b)
	rec, eerr := decodeJSONEncoded(b)
	if (eerr == nil) != (perr == nil) {
		t.Fatalf("%s: encoded %v; plain %v", b, eerr, perr)
	}
	if eerr == nil && !rec.Encoded.IsZero() {
		it, err := rec.Encoded.Item()
		if err != nil || rec.Item != nil || !attr.Equal(attr.Map(it), attr.Map(plain)) || rec.Encoded.Size() != plain.Size() {
			t.Fatalf("%s: encoded %v (size %d), %v; plain %v (size %d)", b, it, rec.Encoded.Size(), err, plain, plain.Size())
		}
	} else if eerr == nil && !attr.Equal(attr.Map(rec.Item), attr.Map(plain)) {
		t.Fatalf("%s: encoded path's item %v; plain %v", b, rec.Item, plain)
	}
	if (ferr == nil) != (perr == nil) || len(fast) != len(plain) {
		t.Fatalf("%s: fast %v, %v; plain %v, %v", b, fast, ferr, plain, perr)
	}
	for k, v := range plain {
		if !attr.Equal(fast[k], v) {
			t.Fatalf("%s: %q fast %#v, plain %#v", b, k, fast[k], v)
		}
	}
}

func FuzzJSONLineTwins(f *testing.F) {
	f.Add([]byte(`{"Item":{"a":{"S":"x"},"n":{"N":"1.50"}}}`))
	f.Add([]byte(`{"Item":{"a":{"M":{"b":{"L":[{"NULL":true}]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) { checkJSONTwins(t, b) })
}

// TestJSONRecordEncodedIsPlain: a bulk load's JSON record decoder with
// Options.Encoded answers as the one without it, for lines of an item
// alone (which the encoded path takes when it can) and lines with
// conditions (which it leaves to decodeJSONRecord).
func TestJSONRecordEncodedIsPlain(t *testing.T) {
	encoded := 0
	for _, line := range []string{
		`{"Item":{"a":{"S":"x"},"n":{"N":"1.50"}}}`, `{"Item":{}}`, `{"Item":{"a":{"S":"x"}}, "Item":{"b":{"S":"y"}}}`,
		`{"Item":{"a":{"S":"x"}},"Other":1}`, `{"Item":{"a":{"S":"x"}}}}`, `{"Item":{"a":{"S":"\ud800"}}}`, `{"Item":null}`,
		`{"Item":{"a":{"SS":["x","x"]}}}`, `{ "Item":{"a":{"B":"AAE="}}}`, `{"Item":{"a":{"N":"1e400"}}}`, `{"Item":{"a":{"S":"x"}} }`,
		`{"Item":{"pk":{"S":"a"},"ss":{"SS":["b","a"]},"ok":{"BOOL":true},"n":{"N":"07"},"m":{"M":{"l":{"L":[{"NULL":true}]}}}}}`,
		`{"Item":{"a":{"S":"x"},"a":{"S":"y"}}}`, `{"Item":{"a":{"M":{}}}}`, `{"Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}`,
		`{"Item":{"pk":{"S":"b"}},"ConditionExpression":"#v < :v","ExpressionAttributeNames":{"#v":"v"},"ExpressionAttributeValues":{":v":{"N":"2"}}}`,
		`{"ConditionExpression":"attribute_not_exists(pk)","Item":{"pk":{"S":"a"}}}`, `{"Item":{"pk":{"S":"c"}},"ConditionExpression":7}`,
		`{"Item":{"pk":{"S":"c"}},"ExpressionAttributeValues":{}}`, `{"Item":{"pk":{"S":"c"}},"ExpressionAttributeNames":null}`,
	} {
		if checkJSONRecordTwins(t, []byte(line)) {
			encoded++
		}
	}
	if encoded < 3 {
		t.Errorf("the encoded path took %d lines, want 3 or more", encoded)
	}
}

// checkJSONRecordTwins fails when decodeJSONRecordEncoded reads b
// otherwise than decodeJSONRecord; it reports whether it took the encoded
// path.
func checkJSONRecordTwins(t *testing.T, b []byte) bool {
	t.Helper()
	got, gerr := decodeJSONRecordEncoded(b)
	want, werr := decodeJSONRecord(b)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("%s: encoded error %v; plain %v", b, gerr, werr)
	}
	if got.Encoded.IsZero() {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: encoded path %#v; plain %#v", b, got, want)
		}
		return false
	}
	it, err := got.Encoded.Item()
	if err != nil || got.Item != nil || got.Condition != nil || want.Condition != nil || !attr.Equal(attr.Map(it), attr.Map(want.Item)) ||
		got.Encoded.Size() != want.Item.Size() {
		t.Fatalf("%s: encoded %v (size %d), %v; plain %v (size %d), condition %+v", b, it, got.Encoded.Size(), err, want.Item, want.Item.Size(), want.Condition)
	}
	return true
}

func FuzzJSONRecordTwins(f *testing.F) {
	f.Add([]byte(`{"Item":{"a":{"S":"x"},"n":{"N":"1.50"}}}`))
	f.Add([]byte(`{"Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}`))
	f.Fuzz(func(t *testing.T, b []byte) { checkJSONRecordTwins(t, b) })
}

// TestIonLineFastIsPlain: the Ion fast path reads the lines it takes as
// the Ion library reads them, takes the common ones (an export's lines),
// and leaves the rest to the library.
func TestIonLineFastIsPlain(t *testing.T) {
	for _, tc := range []struct {
		line string
		fast bool // the fast path takes it
	}{
		{`$ion_1_0 {Item:{pk:"user-000000007",n:49.,name:"some name 7",tags:$dynamodb_SS::["a","b7"],ok:true}}`, true},
		{`{Item:{pk:"a",n:1.50,b:{{AAE=}},l:[1,-2,3.0d2,-0.5,0.,-0,null,false],m:{'x y':"z",e:"",u:"\u00e9t\u00e9"}}}`, false},
		{`{Item:{pk:"a",n:1.50,b:{{AAE=}},l:[1,-2,3.0d2,-0.5,0.,-0,null,false],m:{'x y':"z",e:"",u:"été"}}}`, true},
		{`$ion_1_0  { Item : { a : 1d-3 , b : [ ] , c : { } , ns:$dynamodb_NS::[1.,2.50,3d1] , bs:$dynamodb_BS::[{{AQ==}}] } }`, true},
		{`{Item:{a:1.5D+2,b:-12345678901234567890123456789012345678.}}`, true},
		{`{Item:{a:1,a:2}}`, true},
		{`{Item:{}}`, false}, {`{Item:{a:1}} x`, false}, {`{Item:{a:1},b:2}`, false}, {`{Item:{a:1,}}`, false}, {`{Item:{a:[1,]}}`, false},
		{`{Item:{a:1e3}}`, false}, {`{Item:{a:0x1F}}`, false}, {`{Item:{a:1_000}}`, false}, {`{Item:{a:007}}`, false},
		{`{Item:{a:2020-01-01T00:00Z}}`, false}, {`{Item:{a:null.string}}`, false}, {`{Item:{a:sym}}`, false}, {`{Item:{a:'sym'}}`, false},
		{`{Item:{a:nan}}`, false}, {`{Item:{a:+inf}}`, false}, {`{Item:{a:"x\"y"}}`, false}, {`{Item:{a:'''long'''}}`, false},
		{`{Item:{a:$dynamodb_SS::["x","x"]}}`, false}, {`{Item:{a:$dynamodb_SS::[]}}`, false}, {`{Item:{a:$dynamodb_NS::["1"]}}`, false},
		{`{Item:{a:$other::[1]}}`, false}, {`{Item:{a:{{ AAE= }}}}`, false}, {`{Item:{a:{{AAF=}}}}`, false}, {`{Item:{a:1d99999}}`, false},
		{`{Item:{$10:1}}`, false}, {`{Item:{null:1}}`, false}, {`{Item:{"a":1}}`, false}, {`{Item:{a:1 /* c */}}`, false},
		{`$ion_1_0{Item:{a:1}}`, false}, {`{Item:{{AAE=}}}`, false}, {"{Item:{a:\"\xff\"}}", false}, {`{Item:{a:1d}}`, false},
		{`{Item:{a:-}}`, false}, {`{Item:{a:--1}}`, false}, {`{Item:{a:1.2.3}}`, false}, {`{Item:{a:[1 2]}}`, false},
	} {
		if _, ok := decodeIonFast([]byte(tc.line)); ok != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.line, ok, tc.fast)
		}
		checkIonTwins(t, []byte(tc.line))
		checkIonRecordTwins(t, []byte(tc.line))
	}
	for _, line := range []string{
		`$ion_1_0 {Item:{pk:"b"},ConditionExpression:"#v < :v",ExpressionAttributeNames:{'#v':"v"},ExpressionAttributeValues:{':v':2.}}`,
		`{ConditionExpression:"attribute_not_exists(pk)",Item:{pk:"a"}}`, `{Item:{pk:"c"},ConditionExpression:7}`, `{Item:{pk:"a"},Other:1}`,
	} {
		checkIonRecordTwins(t, []byte(line))
	}
}

// checkIonRecordTwins fails when a bulk load's Ion record decoder reads b
// otherwise than the Ion library does (decodeIonRecordPlain).
func checkIonRecordTwins(t *testing.T, b []byte) {
	t.Helper()
	got, gerr := decodeIonRecord(b)
	want, werr := decodeIonRecordPlain(b)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: fast %#v, %v; the library %#v, %v", b, got, gerr, want, werr)
	}
}

// checkIonTwins fails when the fast path reads b otherwise than the Ion
// library does.
func checkIonTwins(t *testing.T, b []byte) {
	t.Helper()
	fast, ok := decodeIonFast(b)
	if !ok {
		return
	}
	plain, err := decodeIonLinePlain(b)
	if err != nil || !reflect.DeepEqual(fast, plain) {
		t.Fatalf("%s: fast %#v; the library %#v, %v", b, fast, plain, err)
	}
}

func FuzzIonLineTwins(f *testing.F) {
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",n:1.50,s:$dynamodb_NS::[1.,2.]}}`))
	f.Add([]byte(`{Item:{a:[1,-2,3.0d2,{b:{{AAE=}}}],'q':null,t:true}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkIonTwins(t, b)
		checkIonRecordTwins(t, b)
	})
}
