package attr

import (
	"encoding/json"
	"testing"
)

// benchItemJSON is a typical ~200-byte item.
const benchItemJSON = `{"pk":{"S":"user#12345"},"sk":{"S":"order#2024-01-15T10:30:00Z"},` +
	`"amount":{"N":"129.95"},"qty":{"N":"3"},"paid":{"BOOL":true},"note":{"NULL":true},` +
	`"tags":{"SS":["gift","express"]},"addr":{"M":{"city":{"S":"Lisbon"},"zip":{"S":"1000-001"}}},` +
	`"items":{"L":[{"S":"sku-1"},{"S":"sku-2"}]}}`

func benchItem(b *testing.B) Item {
	var it Item
	if err := it.UnmarshalJSON([]byte(benchItemJSON)); err != nil {
		b.Fatal(err)
	}
	return it
}

func BenchmarkItemUnmarshalJSON(b *testing.B) {
	data := []byte(benchItemJSON)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var it Item
		if err := it.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkItemUnmarshalViaEncodingJSON is the path api takes when an Item
// is a field of a request struct decoded by encoding/json.
func BenchmarkItemUnmarshalViaEncodingJSON(b *testing.B) {
	data := []byte(`{"Item":` + benchItemJSON + `}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var r struct{ Item Item }
		if err := json.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendItemJSON(b *testing.B) {
	it := benchItem(b)
	buf := make([]byte, 0, 512)
	b.SetBytes(int64(len(benchItemJSON)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItemJSON(buf[:0], it)
	}
}

func BenchmarkAppendBinary(b *testing.B) {
	it := benchItem(b)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendBinary(buf[:0], it)
	}
}

func BenchmarkDecodeBinary(b *testing.B) {
	data := AppendBinary(nil, benchItem(b))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeBinary(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendKey(b *testing.B) {
	keys := []Value{String("user#12345"), num("-129.95"), Binary([]byte("abc\x00def"))}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			buf = AppendKey(buf[:0], k)
		}
	}
}

func BenchmarkParseNumber(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseNumber("129.95"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAddNumbers(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AddNumbers("129.95", "0.05"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPartitionHash(b *testing.B) {
	k := String("user#12345")
	for b.Loop() {
		PartitionHash(k)
	}
}

// BenchmarkBinaryRead compares the ways a filtered read can look at a
// stored item: decode all of it, or take its size and one attribute.
func BenchmarkBinaryRead(b *testing.B) {
	enc := AppendBinary(nil, benchItem(b))
	b.Run("DecodeBinary+Size", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			it, err := DecodeBinary(enc)
			if err != nil || it.Size() == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("BinarySize+DecodeBinaryNames", func(b *testing.B) {
		names := []string{"qty"}
		b.ReportAllocs()
		for b.Loop() {
			n, err := BinarySize(enc)
			if err != nil || n == 0 {
				b.Fatal(err)
			}
			if _, err := DecodeBinaryNames(enc, names); err != nil {
				b.Fatal(err)
			}
		}
	})
}
