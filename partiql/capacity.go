package partiql

import (
	"github.com/ddblocal/ddblocal/ddb"
)

// addCapacity adds b's units to a (either may be nil) and returns the sum:
// what one statement that ran as several reads consumed in all.
func addCapacity(a, b *ddb.ConsumedCapacity) *ddb.ConsumedCapacity {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		c.Table = copyUnits(b.Table)
		c.ReadCapacityUnits, c.WriteCapacityUnits = copyFloat(b.ReadCapacityUnits), copyFloat(b.WriteCapacityUnits)
		c.LocalSecondaryIndexes = addIndexUnits(nil, b.LocalSecondaryIndexes)
		c.GlobalSecondaryIndexes = addIndexUnits(nil, b.GlobalSecondaryIndexes)
		return &c
	}
	a.CapacityUnits += b.CapacityUnits
	a.ReadCapacityUnits = addFloat(a.ReadCapacityUnits, b.ReadCapacityUnits)
	a.WriteCapacityUnits = addFloat(a.WriteCapacityUnits, b.WriteCapacityUnits)
	if b.Table != nil {
		if a.Table == nil {
			a.Table = &ddb.Capacity{}
		}
		a.Table.CapacityUnits += b.Table.CapacityUnits
		a.Table.ReadCapacityUnits = addFloat(a.Table.ReadCapacityUnits, b.Table.ReadCapacityUnits)
		a.Table.WriteCapacityUnits = addFloat(a.Table.WriteCapacityUnits, b.Table.WriteCapacityUnits)
	}
	a.LocalSecondaryIndexes = addIndexUnits(a.LocalSecondaryIndexes, b.LocalSecondaryIndexes)
	a.GlobalSecondaryIndexes = addIndexUnits(a.GlobalSecondaryIndexes, b.GlobalSecondaryIndexes)
	return a
}

func copyFloat(f *float64) *float64 {
	if f == nil {
		return nil
	}
	v := *f
	return &v
}

func addFloat(a, b *float64) *float64 {
	switch {
	case b == nil:
		return a
	case a == nil:
		return copyFloat(b)
	}
	v := *a + *b
	return &v
}

func copyUnits(c *ddb.Capacity) *ddb.Capacity {
	if c == nil {
		return nil
	}
	out := *c
	out.ReadCapacityUnits, out.WriteCapacityUnits = copyFloat(c.ReadCapacityUnits), copyFloat(c.WriteCapacityUnits)
	return &out
}

func addIndexUnits(a, b map[string]ddb.Capacity) map[string]ddb.Capacity {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]ddb.Capacity{}
	}
	for name, c := range b {
		sum := a[name]
		sum.CapacityUnits += c.CapacityUnits
		sum.ReadCapacityUnits = addFloat(sum.ReadCapacityUnits, c.ReadCapacityUnits)
		sum.WriteCapacityUnits = addFloat(sum.WriteCapacityUnits, c.WriteCapacityUnits)
		a[name] = sum
	}
	return a
}

// perTable merges capacities by table, in the order tables first appear.
func perTable(list []*ddb.ConsumedCapacity) []*ddb.ConsumedCapacity {
	var out []*ddb.ConsumedCapacity
	at := map[string]int{}
	for _, c := range list {
		if c == nil {
			continue
		}
		if i, ok := at[c.TableName]; ok {
			out[i] = addCapacity(out[i], c)
			continue
		}
		at[c.TableName] = len(out)
		out = append(out, addCapacity(nil, c))
	}
	return out
}
