package insights

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// benchKeys are storage keys of 20,000 items in 200 partitions, the shape
// `go run ./bench` loads.
func benchKeys() [][]byte {
	keys := make([][]byte, 20000)
	for i := range keys {
		pk := attr.Value{T: attr.TypeS, S: fmt.Sprintf("p%06d", i/100)}
		k := attr.AppendHashPrefix(nil, attr.PartitionHash(pk))
		keys[i] = append(k, fmt.Sprintf("p%06d\x00s%06d", i/100, i%100)...)
	}
	return keys
}

// BenchmarkRecorderRead is the recording each GetItem does, from parallel
// goroutines, over random keys of a table larger than the sketches.
func BenchmarkRecorderRead(b *testing.B) {
	r := New(Options{})
	keys := benchKeys()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(1, 2))
		for pb.Next() {
			r.Read("t1", "", keys[rng.IntN(len(keys))], 0.5)
		}
	})
}
