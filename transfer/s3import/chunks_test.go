package s3import_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// chunkSource writes, per format, three objects of mixed good, bad, blank
// and (in one) too long lines under src/<format>/ and returns their number
// of records.
func chunkSource(t *testing.T, s bucket.Store, format string) int {
	t.Helper()
	records := 0
	for obj := range 3 {
		var b strings.Builder
		for i := range 700 + 300*obj {
			switch {
			case i%97 == 5:
				b.WriteString("not a record\n")
			case i%89 == 7:
				b.WriteString("   \n") // blank: no record
				continue
			case obj == 1 && i == 400:
				b.WriteString(strings.Repeat("x", 5<<20) + "\n") // longer than a line may be
			case format == s3import.FormatIon:
				fmt.Fprintf(&b, "$ion_1_0 {Item:{pk:\"o%d-%d\",n:%d.}}\n", obj, i, i)
			default:
				fmt.Fprintf(&b, `{"Item":{"pk":{"S":"o%d-%d"},"n":{"N":"%d"}}}`+"\n", obj, i, i)
			}
			records++
		}
		putObject(t, s, "src", fmt.Sprintf("%s/part-%d.gz", format, obj), compress(t, s3import.CompressionGzip, []byte(b.String())))
	}
	return records
}

// flat is what a read gave, record by record: each good record and each
// bad one, with the Position after it when the read reported one there.
type flat struct {
	recs []s3import.Record
	bad  []string
	pos  map[string]s3import.Position // by "key:line" of a chunk's last record
	st   s3import.Stats
}

func readFlat(t *testing.T, s bucket.Store, o s3import.Options, prefix string, from s3import.Position, workers int) flat {
	t.Helper()
	f := flat{pos: map[string]s3import.Position{}}
	st, err := s3import.ReadChunks(context.Background(), s, "src", prefix, o, from, 100, workers, func(c s3import.Chunk) error {
		o.CPU.Acquire()
		defer o.CPU.Release()
		if len(c.Records)+len(c.Bad) == 0 {
			t.Fatal("an empty chunk")
		}
		f.recs = append(f.recs, c.Records...)
		var key string
		var line int
		later := func(k string, l int) {
			if k > key || (k == key && l > line) {
				key, line = k, l
			}
		}
		for _, r := range c.Records {
			later(r.Key, r.Line)
		}
		for _, e := range c.Bad {
			f.bad = append(f.bad, e.Error())
			later(e.Key, e.Line)
		}
		f.pos[fmt.Sprintf("%s:%d", key, line)] = c.Pos
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.st = st
	return f
}

// TestReadChunksParallelIsPlain: decoding on several goroutines (bounded
// by a Budget or not) gives the records, the errors and the final counts
// of the plain one-goroutine read, and each chunk's Position is the one the plain read reports after
// the same record, from the start and resumed from a chunk's Position.
func TestReadChunksParallelIsPlain(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	for _, format := range []string{s3import.FormatJSON, s3import.FormatIon} {
		t.Run(format, func(t *testing.T) {
			n := chunkSource(t, s, format)
			o := s3import.Options{Format: format, Compression: s3import.CompressionGzip, Conditions: format == s3import.FormatIon,
				Check: func(it attr.Item) error {
					if it["pk"].S == "o2-11" {
						return errors.New("refused by the check")
					}
					return nil
				}}
			plain := readFlat(t, s, o, format+"/", s3import.Position{}, 1)
			if plain.st.Processed != int64(n) || plain.st.Objects != 3 || plain.st.Errors != int64(len(plain.bad)) || len(plain.recs)+len(plain.bad) != n {
				t.Fatalf("plain read: %+v, %d records, %d bad; want %d processed", plain.st, len(plain.recs), len(plain.bad), n)
			}
			every := map[string]s3import.Position{}
			s3import.ReadRecords(context.Background(), s, "src", format+"/", o, s3import.Position{},
				func(r s3import.Record, p s3import.Position) error {
					every[fmt.Sprintf("%s:%d", r.Key, r.Line)] = p
					return nil
				},
				func(e *s3import.RecordError, p s3import.Position) { every[fmt.Sprintf("%s:%d", e.Key, e.Line)] = p })
			var resumeAt s3import.Position
			for _, workers := range []int{2, 3, 8, -3} {
				o := o
				if workers < 0 { // bounded by one unit of CPU, which fn takes too, as an import's writer does
					workers, o.CPU = -workers, s3import.NewBudget(1)
				}
				par := readFlat(t, s, o, format+"/", s3import.Position{}, workers)
				if !reflect.DeepEqual(par.recs, plain.recs) || !reflect.DeepEqual(par.bad, plain.bad) || par.st != plain.st {
					t.Fatalf("%d workers: %d records, %d bad, %+v; plain: %d, %d, %+v", workers, len(par.recs), len(par.bad), par.st,
						len(plain.recs), len(plain.bad), plain.st)
				}
				for at, p := range par.pos {
					if every[at] != p {
						t.Fatalf("%d workers: the chunk ending at %s says %+v, the plain read %+v", workers, at, p, every[at])
					}
					if p.Key == format+"/part-1.gz" && p.Records > resumeAt.Records {
						resumeAt = p
					}
				}
			}
			plainRest := readFlat(t, s, o, format+"/", resumeAt, 1)
			parRest := readFlat(t, s, o, format+"/", resumeAt, 2)
			if len(parRest.recs) == 0 || !reflect.DeepEqual(parRest.recs, plainRest.recs) || !reflect.DeepEqual(parRest.bad, plainRest.bad) ||
				parRest.st != plain.st || plainRest.st != plain.st {
				t.Fatalf("resumed from %+v: parallel %d records, %+v; plain %d records, %+v; whole read %+v", resumeAt,
					len(parRest.recs), parRest.st, len(plainRest.recs), plainRest.st, plain.st)
			}
		})
	}
}

// TestReadChunksStops: fn's error stops the read and is returned, with
// one worker and with several, with and without a Budget.
func TestReadChunksStops(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	chunkSource(t, s, s3import.FormatJSON)
	stop := errors.New("stop here")
	for _, workers := range []int{1, 4, -1, -4} {
		o := s3import.Options{Format: s3import.FormatJSON, Compression: s3import.CompressionGzip}
		if workers < 0 { // bounded by one unit of CPU, held by fn as it stops the read
			workers, o.CPU = -workers, s3import.NewBudget(1)
		}
		calls := 0
		_, err := s3import.ReadChunks(context.Background(), s, "src", "DYNAMODB_JSON/", o, s3import.Position{}, 100, workers, func(s3import.Chunk) error {
			o.CPU.Acquire()
			defer o.CPU.Release()
			calls++
			if calls == 3 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || calls != 3 {
			t.Errorf("%d workers: %v after %d calls; want %v after 3", workers, err, calls, stop)
		}
	}
}
