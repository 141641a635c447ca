package attr

import (
	"strings"
	"testing"
)

// queryBenchValue is the 200-byte alphanumeric value of the Query workload
// (issue 8): text that needs no escape, the common case.
func queryBenchValue() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var sb strings.Builder
	for i := range 200 {
		sb.WriteByte(alnum[(i*7+3)%len(alnum)])
	}
	return sb.String()
}

// queryBenchItem is one item of the Query workload: pk S, sk S, v S of 200
// alphanumeric bytes, f N.
func queryBenchItem() Item {
	return Item{
		"pk": String("pk-000042"),
		"sk": String("sk-000017"),
		"v":  String(queryBenchValue()),
		"f":  num("17"),
	}
}

func BenchmarkAppendBinaryJSONQueryItem(b *testing.B) {
	enc := AppendBinary(nil, queryBenchItem())
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendBinaryJSON(buf[:0], enc)
	}
}

func BenchmarkBinarySizeNames(b *testing.B) {
	enc := AppendBinary(nil, queryBenchItem())
	b.Run("nil into", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n, err := BinarySizeNames(enc, nil, nil); err != nil || n == 0 {
				b.Fatal(n, err)
			}
		}
	})
	other := queryBenchItem()
	other["f"] = num("18")
	encs := [2][]byte{enc, AppendBinary(nil, other)}
	b.Run("one name, values differ", func(b *testing.B) {
		names := []string{"f"}
		into := make(Item, 1)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if n, err := BinarySizeNames(encs[i&1], names, into); err != nil || n == 0 {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("one name", func(b *testing.B) {
		names := []string{"f"}
		into := make(Item, 1)
		b.ReportAllocs()
		for b.Loop() {
			if n, err := BinarySizeNames(enc, names, into); err != nil || n == 0 {
				b.Fatal(n, err)
			}
		}
	})
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := queryBenchValue()
	buf := make([]byte, 0, 512)
	b.Run("alnum200", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			buf = AppendJSONString(buf[:0], s)
		}
	})
	bs := []byte(s)
	b.Run("alnum200 bytes", func(b *testing.B) {
		b.SetBytes(int64(len(bs)))
		for b.Loop() {
			buf = appendJSONStr(buf[:0], bs)
		}
	})
	short := "sk-000017"
	b.Run("short9", func(b *testing.B) {
		for b.Loop() {
			buf = AppendJSONString(buf[:0], short)
		}
	})
	mixed := strings.Repeat("héllo \"wörld\"\n", 14)
	b.Run("mixed", func(b *testing.B) {
		b.SetBytes(int64(len(mixed)))
		for b.Loop() {
			buf = AppendJSONString(buf[:0], mixed)
		}
	})
}

// BenchmarkAppendBinaryQueryItem is the write-path side of the plain
// marks: AppendBinary checks each string once for JSON escapes.
func BenchmarkAppendBinaryQueryItem(b *testing.B) {
	it := queryBenchItem()
	size := it.Size()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendBinarySized(buf[:0], it, size)
	}
}
