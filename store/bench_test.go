package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func benchOpen(b *testing.B, durable bool) *DB {
	b.Helper()
	opts := Options{InMemory: true}
	if durable {
		opts = Options{Path: filepath.Join(b.TempDir(), "bench.db")}
	}
	return benchDB(b, opts)
}

// benchDB opens opts with a space "t", closed when the benchmark ends.
func benchDB(b *testing.B, opts Options) *DB {
	b.Helper()
	db, err := Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	withSpace(b, db, "t")
	return db
}

// BenchmarkUpdate measures one small Put per Update, with 1 or 16 concurrent
// writers, in NoSync (InMemory) and durable (fsync per commit) modes.
func BenchmarkUpdate(b *testing.B) {
	val := make([]byte, 100)
	for _, durable := range []bool{false, true} {
		for _, writers := range []int{1, 16} {
			mode := "nosync"
			if durable {
				mode = "durable"
			}
			b.Run(fmt.Sprintf("%s/writers=%d", mode, writers), func(b *testing.B) {
				db := benchOpen(b, durable)
				var next atomic.Uint64
				b.ReportAllocs()
				cpu0 := processCPU()
				b.ResetTimer()
				defer func() {
					b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				}()
				runWriters(b, writers, func() {
					key := binary.BigEndian.AppendUint64(nil, next.Add(1))
					err := db.Update(context.Background(), func(tx *Tx) error {
						return tx.Space("t").Put(key, val)
					})
					if err != nil {
						b.Error(err)
					}
				})
			})
		}
	}
}

// runWriters runs op b.N times in total across exactly writers goroutines.
func runWriters(b *testing.B, writers int, op func()) {
	var left atomic.Int64
	left.Store(int64(b.N))
	done := make(chan struct{})
	for range writers {
		go func() {
			defer func() { done <- struct{}{} }()
			for left.Add(-1) >= 0 {
				op()
			}
		}()
	}
	for range writers {
		<-done
	}
}

func fill(b *testing.B, db *DB, n int) [][]byte {
	b.Helper()
	keys := make([][]byte, n)
	mustUpdate(b, db, func(tx *Tx) error {
		sp := tx.Space("t")
		for i := range keys {
			keys[i] = fmt.Appendf(nil, "key%08d", i)
			if err := sp.Put(keys[i], make([]byte, 100)); err != nil {
				return err
			}
		}
		return nil
	})
	return keys
}

// BenchmarkGet measures one point read in its own View over 100k keys.
func BenchmarkGet(b *testing.B) {
	db := benchOpen(b, false)
	keys := fill(b, db, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		key := keys[i%len(keys)]
		err := db.View(func(tx *Tx) error {
			if tx.Space("t").Get(key) == nil {
				b.Fatal("missing key")
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAscend1000 measures a View that visits 1000 consecutive keys.
func BenchmarkAscend1000(b *testing.B) {
	db := benchOpen(b, false)
	fill(b, db, 100_000)
	from := []byte("key00050000")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := db.View(func(tx *Tx) error {
			return tx.Space("t").Ascend(from, nil, func(k, v []byte) bool {
				n++
				return n < 1000
			})
		})
		if err != nil || n != 1000 {
			b.Fatalf("visited %d, err %v", n, err)
		}
	}
}

// BenchmarkRandom measures Gets and 1- and 25-key Updates at random keys of a space
// holding 200,000 keys (the shape of BatchWriteItem into a loaded table), in
// memory and durable (memory, log and checkpoints, here without fsync): with
// this many keys, searches are dominated by cache misses.
func BenchmarkRandom(b *testing.B) {
	const keys = 200_000
	val := make([]byte, 250)
	key := func(i uint64) []byte { return fmt.Appendf(nil, "p%06d\x00\x01s%08d\x00\x01", i%2000, i) }
	for _, engine := range []string{"memory", "durable"} {
		b.Run(engine, func(b *testing.B) {
			db := openForBench(b, engine)
			for start := 0; start < keys; start += 1000 {
				mustUpdate(b, db, func(tx *Tx) error {
					for i := start; i < start+1000; i++ {
						if err := tx.Space("t").Put(key(uint64(i)*7919%keys), val); err != nil {
							return err
						}
					}
					return nil
				})
			}
			b.Run("get", func(b *testing.B) {
				var n uint64
				for b.Loop() {
					n++
					_ = db.View(func(tx *Tx) error {
						if tx.Space("t").Get(key(n*104729%keys)) == nil {
							b.Fatal("missing key")
						}
						return nil
					})
				}
			})
			// put1 is one random put per transaction, as a PutItem's:
			// nearly all of it is the copy-on-write of the nodes on the
			// key's path, cold in the cache.
			b.Run("put1", func(b *testing.B) {
				var n uint64
				b.ReportAllocs()
				cpu0 := processCPU()
				for b.Loop() {
					n++
					mustUpdate(b, db, func(tx *Tx) error {
						return tx.Space("t").Put(key(n*104729%(2*keys)), val)
					})
				}
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
			b.Run("put25", func(b *testing.B) {
				var n uint64
				b.ReportAllocs()
				for b.Loop() {
					mustUpdate(b, db, func(tx *Tx) error {
						sp := tx.Space("t")
						for range 25 {
							n++
							if err := sp.Put(key(n*104729%(2*keys)), val); err != nil {
								return err
							}
						}
						return nil
					})
				}
			})
		})
	}
}

func openForBench(b *testing.B, engine string) *DB {
	b.Helper()
	opts := Options{InMemory: true}
	if engine == "durable" {
		opts = Options{Path: filepath.Join(b.TempDir(), "bench.db"), NoSync: true}
	}
	return benchDB(b, opts)
}

// BenchmarkCheckpoint copies one full log segment of random 300-byte puts
// into a bbolt file that holds 200,000 keys already: the background work
// each 32 MiB of durable writes costs.
//
//	go test -run XXX -bench Checkpoint -benchmem ./store/
func BenchmarkCheckpoint(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ck.db")
	bolt, err := openBolt(osFS{}, path, true)
	if err != nil {
		b.Fatal(err)
	}
	c := &checkpointer{b: bolt, path: path}
	defer bolt.close()
	val := make([]byte, 300)
	writeSegment := func(seg uint64, keys int, seed uint64) {
		w := &wal{path: path, mode: syncNever, limit: 1 << 40}
		if err := w.create(seg); err != nil {
			b.Fatal(err)
		}
		var r recorder
		if seg == 1 {
			r.reset()
			r.createSpace("t")
			if err := w.append(r.seal()); err != nil {
				b.Fatal(err)
			}
		}
		x := seed
		for i := 0; i < keys; i += 25 {
			r.reset()
			for range 25 {
				x = x*6364136223846793005 + 1442695040888963407
				r.put("t", subData, binary.BigEndian.AppendUint64(nil, x), val)
			}
			if err := w.append(r.seal()); err != nil {
				b.Fatal(err)
			}
		}
		w.f.Close()
	}
	writeSegment(1, 200_000, 1)
	if err := c.checkpoint(1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		writeSegment(uint64(i+2), segmentLimit/330, uint64(i+2))
		b.StartTimer()
		if err := c.checkpoint(uint64(i + 2)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(segmentLimit/330)), "ns/put")
}

// BenchmarkGrowingInsert inserts new keys shaped like a table's (an 8-byte
// partition hash, the partition key, a random sort key) into one of 200
// partitions of a keyspace that starts with 400,000 keys, 100 per Update
// (a group commit of four 25-item BatchWriteItem calls): the store's share of
// the bench's batchwrite workload.
//
//	go test -run XXX -bench GrowingInsert -benchmem ./store/
func BenchmarkGrowingInsert(b *testing.B) {
	db := openMem(b)
	withSpace(b, db, "t")
	val := make([]byte, 300)
	var x uint64 = 1
	key := func() []byte {
		x = x*6364136223846793005 + 1442695040888963407
		part := (x >> 33) % 200
		k := binary.BigEndian.AppendUint64(nil, part*0x9E3779B97F4A7C15)
		return fmt.Appendf(k, "p%05d\x00\x01t%016x\x00\x01", part, x)
	}
	insert := func(n int) {
		mustUpdate(b, db, func(tx *Tx) error {
			sp := tx.Space("t")
			for range n {
				if err := sp.PutOwned(key(), val); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for range 400 {
		insert(1000)
	}
	b.ReportAllocs()
	for b.Loop() {
		insert(100)
	}
}
