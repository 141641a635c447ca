package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// keyspace knows the shape of the data setup loads, so the other workloads
// can pick keys that exist (get, query) or keys that do not (put).
type keyspace struct {
	items         int
	partitionSize int
	valueSize     int
}

func pkName(partition int) string { return fmt.Sprintf("p%06d", partition) }
func skName(sort int) string      { return fmt.Sprintf("s%06d", sort) }

// keyOf returns the key of the i-th loaded item (0 <= i < items).
func (k keyspace) keyOf(i int) (pk, sk string) {
	return pkName(i / k.partitionSize), skName(i % k.partitionSize)
}

// existingKey returns the key of a random loaded item.
func (k keyspace) existingKey(r *rand.Rand) (pk, sk string) {
	return k.keyOf(r.IntN(k.items))
}

// randomPartition returns a random loaded partition key.
func (k keyspace) randomPartition(r *rand.Rand) string {
	partitions := (k.items + k.partitionSize - 1) / k.partitionSize
	return pkName(r.IntN(partitions))
}

// newKey returns a key in a random existing partition whose sort key does not
// exist yet: loaded sort keys start with "s", new ones with "t" and 64 random
// bits, so they never collide with loaded items and almost never with each other.
func (k keyspace) newKey(r *rand.Rand) (pk, sk string) {
	return k.randomPartition(r), fmt.Sprintf("t%016x", r.Uint64())
}

const valueAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// randomValue returns n random alphanumeric bytes.
func randomValue(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = valueAlphabet[r.IntN(len(valueAlphabet))]
	}
	return string(b)
}

// key builds the primary key attribute map.
func key(pk, sk string) item {
	return item{"pk": {S: pk}, "sk": {S: sk}}
}

// item builds a full item: key, "v" a random string of valueSize bytes and
// "f" a number in 0..99 (f = 0 selects 1 % of a loaded table).
func (k keyspace) item(r *rand.Rand, pk, sk string, f int) item {
	it := key(pk, sk)
	it["v"] = value{S: randomValue(r, k.valueSize)}
	it["f"] = value{N: strconv.Itoa(f)}
	return it
}
