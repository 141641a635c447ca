package s3import

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// FuzzDecoders feeds arbitrary bytes to each format's decoder: it never
// panics, never loops, and every item it yields is a valid DynamoDB item.
func FuzzDecoders(f *testing.F) {
	f.Add([]byte(`{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}` + "\nnot json\n"))
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",n:1.5d2,s:$dynamodb_NS::[1.,2.]}}` + "\n"))
	f.Add([]byte("pk,n\na,1\n\"b\",\"2\"\nbad\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, format := range []string{FormatJSON, FormatIon, FormatCSV} {
			d := newDecoder(bytes.NewReader(b), "k", Options{Format: format, KeyTypes: map[string]attr.Type{"n": attr.TypeN}})
			for i := 0; ; i++ {
				if i > len(b)+2 {
					t.Fatalf("%s: more records than bytes", format)
				}
				it, err := d.next()
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
