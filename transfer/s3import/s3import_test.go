package s3import_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
	"github.com/ddblocal/ddblocal/transfer/s3export"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

func compress(t *testing.T, kind string, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case s3import.CompressionGzip:
		w = gzip.NewWriter(&out)
	case s3import.CompressionZstd:
		zw, err := zstd.NewWriter(&out)
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	default:
		return b
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func putObject(t *testing.T, s bucket.Store, bkt, key string, b []byte) {
	t.Helper()
	w, err := s.Create(context.Background(), bkt, key)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// sources: the same records in each format, with two bad records each.
var sources = map[string]string{
	s3import.FormatJSON: `{"Item":{"pk":{"S":"a"},"n":{"N":"1.50"},"b":{"B":"AAE="}}}
{"Item":{"pk":{"S":"b"},"ss":{"SS":["x","y"]}}}

not json
{"NotItem":{}}
{"Item":{"pk":{"S":"c"},"big":{"N":"12345678901234567890123456789012345678"}}}
`,
	s3import.FormatIon: `$ion_1_0 {Item:{pk:"a",n:1.50,b:{{AAE=}}}}
$ion_1_0 {Item:{pk:"b",ss:$dynamodb_SS::["x","y"]}}

$ion_1_0 {Item:{pk:
{Other:{}}
$ion_1_0 {Item:{pk:"c",big:12345678901234567890123456789012345678.}}
`,
	s3import.FormatCSV: `pk,n,note
a,1.50,hello
b,,"quoted, with comma"
bad,row
c,12345678901234567890123456789012345678,
d,"unterminated
`,
}

func TestReadFormatsAndCompressions(t *testing.T) {
	stores := map[string]bucket.Store{"dir": bucket.Dir{Root: t.TempDir()}, "s3": buckettest.Start(t, "src").Store(t)}
	for sname, s := range stores {
		for format, src := range sources {
			for _, comp := range []string{s3import.CompressionNone, s3import.CompressionGzip, s3import.CompressionZstd} {
				t.Run(fmt.Sprintf("%s/%s/%s", sname, format, comp), func(t *testing.T) {
					prefix := format + "/" + comp + "/"
					putObject(t, s, "src", prefix+"part-1", compress(t, comp, []byte(src)))
					putObject(t, s, "src", prefix+"part-2", compress(t, comp, []byte(src)))
					var got []attr.Item
					var bad []*s3import.RecordError
					st, err := s3import.Read(context.Background(), s, "src", prefix, s3import.Options{Format: format, Compression: comp,
						KeyTypes: map[string]attr.Type{"pk": attr.TypeS}},
						func(it attr.Item) error { got = append(got, it); return nil },
						func(e *s3import.RecordError) { bad = append(bad, e) })
					if err != nil {
						t.Fatal(err)
					}
					if st.Objects != 2 || st.Processed != 10 || st.Errors != 4 || len(got) != 6 || len(bad) != 4 {
						t.Fatalf("stats %+v, %d items, %d bad: %v", st, len(got), len(bad), bad)
					}
					if bad[0].Key != prefix+"part-1" || bad[0].Line != 4 {
						t.Errorf("first bad record at %s:%d, want %spart-1:4", bad[0].Key, bad[0].Line, prefix)
					}
					checkFirst(t, format, got[0])
				})
			}
		}
	}
}

func checkFirst(t *testing.T, format string, it attr.Item) {
	t.Helper()
	want := attr.Item{"pk": attr.String("a"), "n": attr.Value{T: attr.TypeN, S: "1.5"}, "b": attr.Binary([]byte{0, 1})}
	if format == s3import.FormatCSV {
		want = attr.Item{"pk": attr.String("a"), "n": attr.String("1.50"), "note": attr.String("hello")}
	}
	if len(it) != len(want) {
		t.Fatalf("first item %v, want %v", it, want)
	}
	for k, v := range want {
		if !attr.Equal(it[k], v) {
			t.Errorf("%s = %#v, want %#v", k, it[k], v)
		}
	}
}

func TestCSVOptions(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	putObject(t, s, "src", "t.csv", []byte("1|x|AAE=\n2|y|\n"))
	var got []attr.Item
	st, err := s3import.Read(context.Background(), s, "src", "", s3import.Options{Format: s3import.FormatCSV,
		CSV:      s3import.CSVOptions{Delimiter: "|", Header: []string{"id", "name", "bin"}},
		KeyTypes: map[string]attr.Type{"id": attr.TypeN, "bin": attr.TypeB}},
		func(it attr.Item) error { got = append(got, it); return nil }, nil)
	if err != nil || st.Processed != 2 || st.Errors != 0 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	if got[0]["id"].T != attr.TypeN || got[0]["id"].S != "1" || got[0]["bin"].T != attr.TypeB || len(got[1]) != 2 {
		t.Errorf("items = %v", got)
	}
}

func TestCheckRefusalIsCounted(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	putObject(t, s, "src", "x", []byte(sources[s3import.FormatJSON]))
	st, err := s3import.Read(context.Background(), s, "src", "", s3import.Options{Format: s3import.FormatJSON,
		Check: func(it attr.Item) error {
			if _, ok := it["n"]; !ok {
				return errors.New("missing key n")
			}
			return nil
		}}, func(attr.Item) error { return nil }, nil)
	if err != nil || st.Processed != 5 || st.Errors != 4 {
		t.Errorf("stats %+v, %v; want 5 processed, 4 errors", st, err)
	}
}

func TestFatalErrors(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	put := func(attr.Item) error { return nil }
	if _, err := s3import.Read(context.Background(), s, "nobucket", "", s3import.Options{Format: s3import.FormatJSON}, put, nil); !errors.Is(err, bucket.ErrNoSuchBucket) {
		t.Errorf("missing bucket: %v", err)
	}
	putObject(t, s, "src", "a", []byte("not gzip"))
	if _, err := s3import.Read(context.Background(), s, "src", "", s3import.Options{Format: s3import.FormatJSON, Compression: s3import.CompressionGzip}, put, nil); err == nil {
		t.Error("corrupt gzip: no error")
	}
	if _, err := s3import.Read(context.Background(), s, "src", "zzz", s3import.Options{Format: s3import.FormatJSON}, put, nil); !errors.Is(err, s3import.ErrNoObjects) {
		t.Errorf("empty prefix: %v", err)
	}
	long := strings.Repeat("x", 5<<20) + "\n" + `{"Item":{"pk":{"S":"a"}}}` + "\n"
	putObject(t, s, "src", "long", []byte(long))
	st, err := s3import.Read(context.Background(), s, "src", "long", s3import.Options{Format: s3import.FormatJSON}, put, nil)
	if err != nil || st.Processed != 2 || st.Errors != 1 {
		t.Errorf("over-long line: %+v, %v", st, err)
	}
}

// TestReadsAnExport imports what s3export wrote: the data/ folder of an
// export is a valid import source in both formats.
func TestReadsAnExport(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	for _, format := range []string{s3export.FormatJSON, s3export.FormatIon} {
		w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "b", ID: format, Format: format, FileBytes: 200})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			w.Add(attr.Item{"pk": attr.String(fmt.Sprint(i)), "bs": attr.BinarySet([]byte{1}, []byte{2})})
		}
		if _, err := w.Finish(s3export.Summary{}); err != nil {
			t.Fatal(err)
		}
		n := 0
		st, err := s3import.Read(context.Background(), s, "b", s3export.Base("", format)+"/data/", s3import.Options{Format: format, Compression: s3import.CompressionGzip},
			func(it attr.Item) error { n++; return nil }, nil)
		if err != nil || n != 30 || st.Errors != 0 || st.Objects < 2 {
			t.Errorf("%s: read %d items, %+v, %v", format, n, st, err)
		}
	}
}

// TestReadFromResumes resumes a read after every item in turn: it must
// give exactly the items after that one, and the same final counts.
func TestReadFromResumes(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	for _, format := range []string{s3import.FormatJSON, s3import.FormatCSV} {
		t.Run(format, func(t *testing.T) {
			for _, part := range []string{"part-1", "part-2", "part-3"} {
				putObject(t, s, "src", format+"/"+part, compress(t, s3import.CompressionGzip, []byte(sources[format])))
			}
			o := s3import.Options{Format: format, Compression: s3import.CompressionGzip, KeyTypes: map[string]attr.Type{"pk": attr.TypeS}}
			read := func(from s3import.Position) ([]string, []s3import.Position, s3import.Stats) {
				var items []string
				var at []s3import.Position
				st, err := s3import.ReadFrom(context.Background(), s, "src", format+"/", o, from, func(it attr.Item, p s3import.Position) error {
					items, at = append(items, fmt.Sprint(it)), append(at, p)
					return nil
				}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return items, at, st
			}
			all, at, want := read(s3import.Position{})
			if len(all) != 9 || want.Objects != 3 || want.Processed != 15 {
				t.Fatalf("whole read: %d items, %+v", len(all), want)
			}
			for i, p := range at {
				got, _, st := read(p)
				if fmt.Sprint(got) != fmt.Sprint(all[i+1:]) {
					t.Errorf("resumed after item %d (%+v): got %v, want %v", i, p, got, all[i+1:])
				}
				if st != want {
					t.Errorf("resumed after item %d: stats %+v, want %+v", i, st, want)
				}
			}
		})
	}
}

// TestReadRecordsConditions: with Options.Conditions a bulk load's record
// carries its condition beside the item, in DYNAMODB_JSON and ION alike;
// a record without one has none; a condition field of the wrong type, or
// one CheckCondition refuses, makes the record bad; without
// Options.Conditions the fields are ignored (ImportTable).
func TestReadRecordsConditions(t *testing.T) {
	sources := map[string]string{
		s3import.FormatJSON: `{"Item":{"pk":{"S":"a"}}}
{"Item":{"pk":{"S":"b"}},"ConditionExpression":"#v < :v","ExpressionAttributeNames":{"#v":"v"},"ExpressionAttributeValues":{":v":{"N":"2"}}}
{"Item":{"pk":{"S":"c"}},"ConditionExpression":7}
{"Item":{"pk":{"S":"d"}},"ConditionExpression":"refused"}
`,
		s3import.FormatIon: `$ion_1_0 {Item:{pk:"a"}}
$ion_1_0 {Item:{pk:"b"},ConditionExpression:"#v < :v",ExpressionAttributeNames:{'#v':"v"},ExpressionAttributeValues:{':v':2.}}
$ion_1_0 {Item:{pk:"c"},ConditionExpression:7}
$ion_1_0 {Item:{pk:"d"},ConditionExpression:"refused"}
`,
	}
	for format, src := range sources {
		t.Run(format, func(t *testing.T) {
			s := bucket.Dir{Root: t.TempDir()}
			putObject(t, s, "b", "in/1", []byte(src))
			o := s3import.Options{Format: format, Conditions: true, CheckCondition: func(c *s3import.Condition) error {
				if c.Expression != nil && *c.Expression == "refused" {
					return errors.New("refused")
				}
				return nil
			}}
			var recs []s3import.Record
			var bad []int
			st, err := s3import.ReadRecords(context.Background(), s, "b", "in/", o, s3import.Position{},
				func(r s3import.Record, _ s3import.Position) error { recs = append(recs, r); return nil },
				func(e *s3import.RecordError, _ s3import.Position) { bad = append(bad, e.Line) })
			if err != nil || st.Processed != 4 || st.Errors != 2 || fmt.Sprint(bad) != "[3 4]" || len(recs) != 2 {
				t.Fatalf("stats %+v, err %v, bad lines %v, records %+v", st, err, bad, recs)
			}
			if recs[0].Condition != nil || recs[0].Key != "in/1" || recs[0].Line != 1 {
				t.Errorf("record without a condition: %+v", recs[0])
			}
			c, two := recs[1].Condition, mustNumber(t, "2")
			if c == nil || *c.Expression != "#v < :v" || c.Names["#v"] != "v" || !attr.Equal(c.Values[":v"], two) || recs[1].Line != 2 {
				t.Errorf("record with a condition: %+v, condition %+v", recs[1], c)
			}
			o.Conditions = false
			var n int
			st, err = s3import.ReadRecords(context.Background(), s, "b", "in/", o, s3import.Position{},
				func(r s3import.Record, _ s3import.Position) error {
					if r.Condition != nil {
						t.Errorf("condition read without Options.Conditions: %+v", r)
					}
					n++
					return nil
				}, nil)
			if err != nil || n != 4 || st.Errors != 0 {
				t.Errorf("conditions ignored: %d records, %+v, %v", n, st, err)
			}
		})
	}
}

func mustNumber(t *testing.T, s string) attr.Value {
	t.Helper()
	v, err := attr.Number(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
