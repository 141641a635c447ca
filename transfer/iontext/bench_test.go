package iontext

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// scaleItems returns n items shaped as BenchmarkTransfer's (integration).
func scaleItems(n int) []attr.Item {
	out := make([]attr.Item, n)
	for i := range out {
		out[i] = attr.Item{"pk": attr.String(fmt.Sprintf("user-%09d", i)), "n": attr.Int(int64(i) * 7),
			"name": attr.String(fmt.Sprintf("some name %d", i)), "tags": attr.StringSet("a", "b"+strconv.Itoa(i%13)),
			"ok": attr.Bool(true)}
	}
	return out
}

// BenchmarkAppendRecord encodes one export line per op, with the fast
// path (AppendRecord) and with the Ion library's writer alone.
func BenchmarkAppendRecord(b *testing.B) {
	its := scaleItems(1024)
	for _, path := range []string{"fast", "library"} {
		b.Run(path, func(b *testing.B) {
			e := NewEncoder()
			var line []byte
			b.ReportAllocs()
			for i := range b.N {
				var err error
				fields := []Field{{Name: "Item", Item: its[i%len(its)]}}
				if path == "fast" {
					line, err = e.AppendRecord(line[:0], fields...)
				} else {
					line, err = e.appendRecordPlain(line[:0], fields)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
