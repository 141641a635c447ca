package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
)

// statementSized adds UpdateItem's own size limit to next, its pure step:
// besides the finished item, what the update writes (the finished name and
// value of each top-level attribute it writes, plus a fixed cost per
// action: expressions.Update.WriteCost) must fit in 400 KB. So at a short
// key the ceiling is below 400 KB, and an attribute the update leaves alone
// does not count. DynamoDB sizes standalone UpdateItem so in 31 of its 33
// Regions, all but eu-south-2 and me-central-1 (a public conformance
// suite's "Item size limit by surface" measurements, its registry refreshed
// 2026-10-07); PartiQL's UPDATE and a transaction's Update are sized by
// the finished item alone.
func statementSized(next func(attr.Item) (attr.Item, error), upd *expressions.Update) func(attr.Item) (attr.Item, error) {
	if upd == nil {
		return next
	}
	written, cost := upd.WriteCost()
	return func(old attr.Item) (attr.Item, error) {
		item, err := next(old)
		if err != nil || item == nil {
			return item, err
		}
		n := cost
		for _, name := range written {
			if v, ok := item[name]; ok {
				n += len(name) + v.Size()
			}
		}
		if n > attr.MaxItemSize {
			return nil, ddb.Errorf(ddb.ValidationException, "Item size to update has exceeded the maximum allowed size")
		}
		return item, nil
	}
}
