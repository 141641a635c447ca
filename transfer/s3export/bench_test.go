package s3export_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3export"
)

// scaleStored returns n items shaped as BenchmarkTransfer's (integration),
// in their storage encoding.
func scaleStored(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		it := attr.Item{"pk": attr.String(fmt.Sprintf("user-%09d", i)), "n": attr.Int(int64(i) * 7),
			"name": attr.String(fmt.Sprintf("some name %d", i)), "tags": attr.StringSet("a", "b"+strconv.Itoa(i%13)),
			"ok": attr.Bool(true)}
		out[i] = attr.AppendBinary(nil, it)
	}
	return out
}

// BenchmarkAddStored exports 100,000 stored items per op through a Writer
// into a folder, in each format: the export's work without the store. It
// reports the data files' compressed bytes per item as well.
func BenchmarkAddStored(b *testing.B) {
	stored := scaleStored(100000)
	for _, format := range []string{s3export.FormatJSON, s3export.FormatIon} {
		b.Run(format, func(b *testing.B) {
			s := bucket.Dir{Root: b.TempDir()}
			b.ReportAllocs()
			for i := range b.N {
				w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "b", ID: strconv.Itoa(i % 2), Format: format})
				if err != nil {
					b.Fatal(err)
				}
				for _, v := range stored {
					if err := w.AddStored(v); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Finish(s3export.Summary{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(stored))/b.Elapsed().Seconds(), "items/s")
			var size int64
			err := s.List(context.Background(), "b", "AWSDynamoDB/0/data/", func(o bucket.Object) error { size += o.Size; return nil })
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(size)/float64(len(stored)), "gzip-B/item")
		})
	}
}
