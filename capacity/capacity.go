// Package capacity holds DynamoDB's capacity rules: what a read, a write
// and an index change cost in capacity units, from item sizes, and the
// Meter that adds up one request's consumption on one table. It knows
// sizes, not tables; package table renders a Meter as a response's
// ConsumedCapacity.
package capacity

import "github.com/ddblocal/ddblocal/index"

// Capacity accounting, all in one place. The rules come from the DynamoDB
// Developer Guide, "Read/write capacity mode" and "Item sizes and formats":
//
//   - A read request unit covers one strongly consistent read of an item up to
//     4 KB; eventually consistent reads cost half. GetItem and BatchGetItem
//     round each item up to the next 4 KB; an absent item still costs the
//     minimum (one unit, or half for eventual consistency).
//   - Query and Scan add up the sizes of all items read (before any filter) and
//     round the total up to the next 4 KB, so many small items share units.
//   - A write request unit covers one write of an item up to 1 KB, rounded up,
//     and the size is the larger of the item before and after the write. A
//     condition that fails still consumes the write; deleting an absent item
//     costs one unit.
//   - Transactional reads and writes cost twice the units.
//   - Index writes cost their own units (a key change on an index is a delete
//     plus a put there), reported under INDEXES.

const (
	readUnitBytes  = 4096
	writeUnitBytes = 1024
)

// ReadUnits is the cost of reading size bytes in one unit of rounding.
func ReadUnits(size int, consistent bool) float64 {
	u := float64((size + readUnitBytes - 1) / readUnitBytes)
	if u < 1 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

// WriteUnits is the cost of a write whose old and new item sizes are given
// (0 for absent).
func WriteUnits(oldSize, newSize int) float64 {
	size := max(oldSize, newSize)
	u := float64((size + writeUnitBytes - 1) / writeUnitBytes)
	if u < 1 {
		u = 1
	}
	return u
}

// IndexWriteUnits is what an index change costs: nothing when the item is in
// neither image or its entry does not change (an update of attributes the
// index does not project); one write of the larger projected size for an insert, a
// delete or an in-place update; a delete plus a put when the index key changed.
func IndexWriteUnits(c index.Change) float64 {
	switch {
	case c.Unchanged, c.OldKey == nil && c.NewKey == nil:
		return 0
	case c.OldKey == nil:
		return WriteUnits(0, c.NewSize)
	case c.NewKey == nil:
		return WriteUnits(c.OldSize, 0)
	case string(c.OldKey) == string(c.NewKey):
		return WriteUnits(c.OldSize, c.NewSize)
	default:
		return WriteUnits(c.OldSize, 0) + WriteUnits(0, c.NewSize)
	}
}

// Meter accumulates one request's consumption on one table.
type Meter struct {
	Table      string
	Read       bool    // read units (else write units)
	TableUnits float64 // the table's own units, before Transaction doubles them
	// LSI and GSI are each index's units by name; nil until one is added.
	LSI, GSI map[string]float64
	// Vector is the bytes each vector index was written, by name (vector
	// indexes are metered in bytes, not units; nil until one is added).
	Vector map[string]float64
	// Transaction doubles every unit, as transactional reads and writes
	// cost twice.
	Transaction bool
}

// NewMeter returns an empty Meter of table, counting read units if read,
// else write units.
func NewMeter(table string, read bool) *Meter { return &Meter{Table: table, Read: read} }

// AddTable charges u units to the table.
func (m *Meter) AddTable(u float64) { m.TableUnits += u }

// AddIndex charges u units to the global (else local) index name.
func (m *Meter) AddIndex(global bool, name string, u float64) {
	p := &m.LSI
	if global {
		p = &m.GSI
	}
	if *p == nil {
		*p = map[string]float64{}
	}
	(*p)[name] += u
}

// AddWrite charges a committed write whose old and new items have the
// given sizes: the larger of them, or one unit for deleting an absent item
// (absent), and each index for its own change (units by index name).
func (m *Meter) AddWrite(oldSize, newSize int, absent bool, lsi, gsi map[string]float64) {
	if absent {
		m.TableUnits++
	} else {
		m.TableUnits += WriteUnits(oldSize, newSize)
	}
	for name, u := range lsi {
		m.AddIndex(false, name, u)
	}
	for name, u := range gsi {
		m.AddIndex(true, name, u)
	}
}

// Multiplier is what every unit of m counts for: 2 in a transaction, else 1.
func (m *Meter) Multiplier() float64 {
	if m.Transaction {
		return 2
	}
	return 1
}

// Total is every unit m counted, the table's and its indexes', times the
// Multiplier.
func (m *Meter) Total() float64 {
	total := m.TableUnits
	for _, u := range m.LSI {
		total += u
	}
	for _, u := range m.GSI {
		total += u
	}
	return total * m.Multiplier()
}
