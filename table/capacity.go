package table

import (
	"github.com/ddblocal/ddblocal/index"

	"github.com/ddblocal/ddblocal/ddb"
)

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

// readUnits is the cost of reading size bytes in one unit of rounding.
func readUnits(size int, consistent bool) float64 {
	u := float64((size + readUnitBytes - 1) / readUnitBytes)
	if u < 1 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

// writeUnits is the cost of a write whose old and new item sizes are given
// (0 for absent).
func writeUnits(oldSize, newSize int) float64 {
	size := max(oldSize, newSize)
	u := float64((size + writeUnitBytes - 1) / writeUnitBytes)
	if u < 1 {
		u = 1
	}
	return u
}

// indexWriteUnits is what an index change costs: nothing when the item is in
// neither image or its entry does not change (an update of attributes the
// index does not project); one write of the larger projected size for an insert, a
// delete or an in-place update; a delete plus a put when the index key changed.
func indexWriteUnits(c index.Change) float64 {
	switch {
	case c.Unchanged, c.OldKey == nil && c.NewKey == nil:
		return 0
	case c.OldKey == nil:
		return writeUnits(0, c.NewSize)
	case c.NewKey == nil:
		return writeUnits(c.OldSize, 0)
	case string(c.OldKey) == string(c.NewKey):
		return writeUnits(c.OldSize, c.NewSize)
	default:
		return writeUnits(c.OldSize, 0) + writeUnits(0, c.NewSize)
	}
}

// meter accumulates one request's consumption on one table.
type meter struct {
	table       string
	read        bool // read units (else write units)
	tableUnits  float64
	lsi, gsi    map[string]float64
	transaction bool
}

func newMeter(table string, read bool) *meter { return &meter{table: table, read: read} }

func (m *meter) addTable(u float64) { m.tableUnits += u }

// addWrite charges a committed write: the table for the larger of old and new
// item, each index for its own change.
func (m *meter) addWrite(w written) {
	if w.old == nil && !w.stored {
		m.tableUnits++ // deleting an absent item still costs a unit
	} else {
		m.tableUnits += writeUnits(w.oldSize, w.newSize)
	}
	for name, u := range w.lsi {
		m.addIndex(false, name, u)
	}
	for name, u := range w.gsi {
		m.addIndex(true, name, u)
	}
}

func (m *meter) addIndex(global bool, name string, u float64) {
	p := &m.lsi
	if global {
		p = &m.gsi
	}
	if *p == nil {
		*p = map[string]float64{}
	}
	(*p)[name] += u
}

func (m *meter) capacity(u float64) ddb.Capacity {
	c := ddb.Capacity{CapacityUnits: u}
	if m.read {
		c.ReadCapacityUnits = &u
	} else {
		c.WriteCapacityUnits = &u
	}
	return c
}

// report renders the consumption for ReturnConsumedCapacity mode ("", NONE,
// TOTAL or INDEXES); nil when none was asked for.
func (m *meter) report(mode string) *ddb.ConsumedCapacity {
	if mode != "TOTAL" && mode != "INDEXES" {
		return nil
	}
	mult := 1.0
	if m.transaction {
		mult = 2
	}
	total := m.tableUnits * mult
	for _, u := range m.lsi {
		total += u * mult
	}
	for _, u := range m.gsi {
		total += u * mult
	}
	tc := m.capacity(total)
	cc := &ddb.ConsumedCapacity{TableName: m.table, CapacityUnits: total,
		ReadCapacityUnits: tc.ReadCapacityUnits, WriteCapacityUnits: tc.WriteCapacityUnits}
	if mode == "INDEXES" {
		t := m.capacity(m.tableUnits * mult)
		cc.Table = &t
		for _, src := range []struct {
			in  map[string]float64
			out *map[string]ddb.Capacity
		}{{m.lsi, &cc.LocalSecondaryIndexes}, {m.gsi, &cc.GlobalSecondaryIndexes}} {
			for name, u := range src.in {
				if *src.out == nil {
					*src.out = map[string]ddb.Capacity{}
				}
				(*src.out)[name] = m.capacity(u * mult)
			}
		}
	}
	return cc
}
