package table

import (
	"sort"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/vector"
)

// Vector index capacity, from the developer guide's "Monitoring vector
// index capacity": a write that changes what a vector index holds of an
// item replicates that entry and is metered in bytes (VectorWriteRequestBytes,
// per index, reported under INDEXES); one that changes nothing the index
// holds costs nothing there; and each request is metered at least 1 KB,
// once however many indexes it touches. How the service splits that
// minimum between indexes is not documented: ddblocal adds the shortfall to
// the first index by name.

// vectorWriteBytes is what write w replicates into each of m's vector
// indexes: the entry's size (its float32 vector, 4 bytes a dimension, and
// its projected attributes) when the item enters the index or its entry
// changes, the old entry's when the item leaves; nil when nothing changes.
func (m *tableMeta) vectorWriteBytes(old, new attr.Item) map[string]float64 {
	var out map[string]float64
	for i, d := range m.vectors {
		v := m.VectorIndexes[i]
		oldIn, newIn := inVectorIndex(d, old), inVectorIndex(d, new)
		var b int
		switch {
		case newIn && (!oldIn || !m.sameVectorEntry(v, old, new)):
			b = m.vectorEntrySize(v, new)
		case oldIn && !newIn:
			b = m.vectorEntrySize(v, old)
		}
		out = addUnits(out, d.Name, float64(b))
	}
	return out
}

// inVectorIndex reports whether item is in index d: it has the vector
// (valid, since writes are checked) and any HASH attribute with its type.
func inVectorIndex(d *vector.Def, item attr.Item) bool {
	if item == nil {
		return false
	}
	if _, ok := item[d.Attribute]; !ok {
		return false
	}
	if d.Hash.Name != "" {
		h, ok := item[d.Hash.Name]
		return ok && h.T == d.Hash.Type
	}
	return true
}

// sameVectorEntry reports whether old and new hold the same values of every
// attribute index v keeps (all of them for ALL).
func (m *tableMeta) sameVectorEntry(v vectorMeta, old, new attr.Item) bool {
	projected := m.vectorProjected(v)
	if projected == nil {
		if len(old) != len(new) {
			return false
		}
		for name, a := range old {
			if b, ok := new[name]; !ok || !attr.Equal(a, b) {
				return false
			}
		}
		return true
	}
	for name := range projected {
		a, aok := old[name]
		b, bok := new[name]
		if aok != bok || (aok && !attr.Equal(a, b)) {
			return false
		}
	}
	return true
}

// vectorEntrySize is the size of item's entry in index v: its vector as
// float32 values and its other projected attributes.
func (m *tableMeta) vectorEntrySize(v vectorMeta, item attr.Item) int {
	projected := m.vectorProjected(v)
	size := 4 * int(v.Dims)
	for name, a := range item {
		if name != v.Attribute && (projected == nil || projected[name]) {
			size += len(name) + a.Size()
		}
	}
	return size
}

// vectorCapacity renders a request's vector write bytes per index with the
// per-request minimum (nil when the request changed no vector index).
func vectorCapacity(bytes map[string]float64) map[string]ddb.VectorCapacity {
	if len(bytes) == 0 {
		return nil
	}
	names := make([]string, 0, len(bytes))
	total := 0.0
	for name, b := range bytes {
		names = append(names, name)
		total += b
	}
	sort.Strings(names)
	out := make(map[string]ddb.VectorCapacity, len(bytes))
	for i, name := range names {
		b := bytes[name]
		if i == 0 && total < minVectorMetered {
			b += minVectorMetered - total
		}
		out[name] = ddb.VectorCapacity{VectorWriteRequestBytes: &b}
	}
	return out
}
