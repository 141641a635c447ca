package table

import (
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
)

// The capacity rules are package capacity's; here a request's Meter
// becomes the ConsumedCapacity member of its response.

// addWrite charges committed write w to mt.
func addWrite(mt *capacity.Meter, w written) {
	mt.AddWrite(w.oldSize, w.newSize, w.old == nil && !w.stored, w.lsi, nil)
	for i, d := range w.gsiDefs {
		if u := w.gsiWriteUnits(i); u != 0 {
			mt.AddIndex(true, d.Name, u)
		}
	}
	for name, b := range w.vec {
		mt.Vector = addUnits(mt.Vector, name, b)
	}
}

// unitsOf is u as a Capacity of mt's kind (read or write units).
func unitsOf(mt *capacity.Meter, u float64) ddb.Capacity {
	c := ddb.Capacity{CapacityUnits: u}
	if mt.Read {
		c.ReadCapacityUnits = &u
	} else {
		c.WriteCapacityUnits = &u
	}
	return c
}

// reported says whether ReturnConsumedCapacity mode asks for a report.
func reported(mode string) bool { return mode == "TOTAL" || mode == "INDEXES" }

// report renders mt for ReturnConsumedCapacity mode ("", NONE, TOTAL or
// INDEXES); nil when none was asked for.
func report(mt *capacity.Meter, mode string) *ddb.ConsumedCapacity {
	if !reported(mode) {
		return nil
	}
	total := mt.Total()
	tc := unitsOf(mt, total)
	cc := &ddb.ConsumedCapacity{TableName: mt.Table, CapacityUnits: total,
		ReadCapacityUnits: tc.ReadCapacityUnits, WriteCapacityUnits: tc.WriteCapacityUnits}
	if mode != "INDEXES" {
		return cc
	}
	mult := mt.Multiplier()
	t := unitsOf(mt, mt.TableUnits*mult)
	cc.Table = &t
	for _, src := range []struct {
		in  map[string]float64
		out *map[string]ddb.Capacity
	}{{mt.LSI, &cc.LocalSecondaryIndexes}, {mt.GSI, &cc.GlobalSecondaryIndexes}} {
		for name, u := range src.in {
			if *src.out == nil {
				*src.out = map[string]ddb.Capacity{}
			}
			(*src.out)[name] = unitsOf(mt, u*mult)
		}
	}
	cc.VectorIndexes = vectorCapacity(mt.Vector)
	return cc
}
