package s3import_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// brokenSource writes under src/<compression>/ two good objects around
// broken ones: one cut in the middle of its compressed stream, one whose
// checksum at the end is wrong, one that is not of the compression at
// all, and an empty one (no records, as a folder marker). It returns the
// lines of each object by key.
func brokenSource(t *testing.T, s bucket.Store, comp string) map[string][]string {
	t.Helper()
	lines := func(obj, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf(`{"Item":{"pk":{"S":"o%d-%d"},"pad":{"S":"%s"}}}`, obj, i, strings.Repeat("p", i%50)))
		}
		return out
	}
	objs := map[string][]string{}
	for obj, n := range []int{30, 3000, 3000, 1, 0, 20} {
		key := fmt.Sprintf("%s/part-%d", comp, obj)
		objs[key] = lines(obj, n)
		b := compress(t, comp, []byte(strings.Join(objs[key], "\n")+"\n"))
		switch obj {
		case 1:
			b = b[:len(b)/2]
		case 2:
			b[len(b)-5] ^= 0xff // in the trailer's checksum (GZIP) or the frame's (ZSTD)
		case 3:
			b = []byte("not compressed at all")
		case 4:
			b = nil
		}
		putObject(t, s, "src", key, b)
	}
	return objs
}

// TestBrokenObjectIsOneError: with SkipBroken, an object whose compressed
// bytes break off is one bad record where they do, the records before it
// are read (those a GZIP stream gives before the cut, all of them before a
// bad checksum) and the next objects too; the same with several
// goroutines, and resumed after any record. Without SkipBroken such an
// object stops the read, as does the store's failure with it.
func TestBrokenObjectIsOneError(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	for _, comp := range []string{s3import.CompressionGzip, s3import.CompressionZstd} {
		t.Run(comp, func(t *testing.T) {
			objs := brokenSource(t, s, comp)
			o := s3import.Options{Format: s3import.FormatJSON, Compression: comp, SkipBroken: true}
			plain := readFlat(t, s, o, comp+"/", s3import.Position{}, 1)
			if plain.st.Errors != 3 || plain.st.Objects != 6 || int(plain.st.Processed) != len(plain.recs)+3 {
				t.Fatalf("%+v, %d records; want 3 errors (one per broken object), 6 objects", plain.st, len(plain.recs))
			}
			byKey := map[string]int{}
			for _, r := range plain.recs {
				if want := objs[r.Key][byKey[r.Key]]; r.Item["pk"].S != want[len(`{"Item":{"pk":{"S":"`):strings.Index(want, `"},`)] {
					t.Fatalf("%s:%d is %v, not its object's next line", r.Key, r.Line, r.Item)
				}
				byKey[r.Key]++
			}
			for _, k := range []string{"/part-0", "/part-5"} {
				if byKey[comp+k] != len(objs[comp+k]) {
					t.Errorf("%s: %d of %d records read", k, byKey[comp+k], len(objs[comp+k]))
				}
			}
			if n := byKey[comp+"/part-1"]; n >= 3000 || comp == s3import.CompressionGzip && n == 0 {
				t.Errorf("the cut object gave %d of its 3000 records", n)
			}
			if n := byKey[comp+"/part-2"]; comp == s3import.CompressionGzip && n != 3000 {
				t.Errorf("the object with a bad checksum gave %d of its 3000 records before it", n)
			}
			for _, e := range plain.bad {
				if !strings.Contains(e, "the rest of it is skipped") {
					t.Errorf("bad record %q", e)
				}
			}
			par := readFlat(t, s, o, comp+"/", s3import.Position{}, 3)
			if !reflect.DeepEqual(par.recs, plain.recs) || !reflect.DeepEqual(par.bad, plain.bad) || par.st != plain.st {
				t.Fatalf("3 workers: %d records, %v, %+v; plain %d, %v, %+v", len(par.recs), par.bad, par.st, len(plain.recs), plain.bad, plain.st)
			}
			resumes(t, s, o, comp+"/", plain)
			o.SkipBroken = false
			for _, workers := range []int{1, 3} {
				if _, err := s3import.ReadChunks(context.Background(), s, "src", comp+"/", o, s3import.Position{}, 100, workers,
					func(s3import.Chunk) error { return nil }); err == nil {
					t.Errorf("without SkipBroken, %d workers: no error", workers)
				}
			}
		})
	}
	failing := failingStore{Store: s, after: 100}
	o := s3import.Options{Format: s3import.FormatJSON, Compression: s3import.CompressionGzip, SkipBroken: true}
	for _, workers := range []int{1, 3} {
		_, err := s3import.ReadChunks(context.Background(), failing, "src", "GZIP/part-0", o, s3import.Position{}, 100, workers,
			func(s3import.Chunk) error { return nil })
		if !errors.As(err, new(storeFailure)) {
			t.Errorf("the store failing, %d workers: %v", workers, err)
		}
	}
}

// resumes reads again from the Position after records of the plain read
// r (every 500th, and those before and after each broken object's) and
// checks the records after it and the final counts.
func resumes(t *testing.T, s bucket.Store, o s3import.Options, prefix string, r flat) {
	t.Helper()
	var at []s3import.Position
	var all []string
	s3import.ReadRecords(context.Background(), s, "src", prefix, o, s3import.Position{},
		func(rec s3import.Record, p s3import.Position) error {
			at, all = append(at, p), append(all, fmt.Sprint(rec.Item))
			return nil
		},
		func(e *s3import.RecordError, p s3import.Position) { at, all = append(at, p), append(all, e.Error()) })
	for i := range at {
		broken := func(j int) bool { return j < len(all) && strings.Contains(all[j], "the rest of it is skipped") }
		if i%500 != 0 && !broken(i) && !broken(i+1) {
			continue
		}
		var got []string
		st, err := s3import.ReadRecords(context.Background(), s, "src", prefix, o, at[i],
			func(rec s3import.Record, _ s3import.Position) error {
				got = append(got, fmt.Sprint(rec.Item))
				return nil
			},
			func(e *s3import.RecordError, _ s3import.Position) { got = append(got, e.Error()) })
		if err != nil || st != r.st || fmt.Sprint(got) != fmt.Sprint(all[i+1:]) {
			t.Fatalf("resumed after record %d (%+v): %v, %+v (want %+v), %d records (want %d)", i, at[i], err, st, r.st, len(got), len(all)-i-1)
		}
	}
}

// storeFailure is failingStore's failure.
type storeFailure struct{}

func (storeFailure) Error() string { return "the store failed" }

// failingStore's objects fail after their first bytes.
type failingStore struct {
	bucket.Store
	after int64
}

func (f failingStore) Open(ctx context.Context, bkt, key string) (io.ReadCloser, error) {
	rc, err := f.Store.Open(ctx, bkt, key)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(io.LimitReader(rc, f.after), failingReader{}), rc}, nil
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, storeFailure{} }
