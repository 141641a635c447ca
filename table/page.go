package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
)

// maxPageBytes is the data one Query or Scan page reads at most (1 MB).
const maxPageBytes = 1 << 20

// pageSpec is one Query or Scan page over a key range of a space.
type pageSpec struct {
	from, to []byte // [from, to); nil is open
	reverse  bool
	limit    int // items read at most; 0 = no limit
	// stop ends the range early at the first item it rejects (begins_with).
	stop    func(item attr.Item) bool
	filter  *expressions.Condition
	project *expressions.Projection
	count   bool // Select COUNT: return no items
	keyOf   func(item attr.Item) attr.Item
}

// page is what a pageSpec read.
type page struct {
	items         []attr.Item
	count         int
	scanned       int
	bytes         int
	lastEvaluated attr.Item
}

// readPage reads one page from sp: items in key order until the range ends,
// the Limit is reached, or 1 MB has been read. Limit and the 1 MB cap count
// what was read, before the filter, as DynamoDB does; either one ends the page
// with a LastEvaluatedKey even when no item matched.
func readPage(sp *store.Space, ps pageSpec) (page, error) {
	var pg page
	var decodeErr error
	visit := func(k, v []byte) bool {
		item, err := attr.DecodeBinary(v)
		if err != nil {
			decodeErr = err
			return false
		}
		if ps.stop != nil && ps.stop(item) {
			return false
		}
		pg.scanned++
		pg.bytes += item.Size()
		if ps.filter == nil || ps.filter.Eval(item) {
			pg.count++
			if !ps.count {
				out := item
				if ps.project != nil {
					out = ps.project.Apply(item)
				}
				pg.items = append(pg.items, out)
			}
		}
		if (ps.limit > 0 && pg.scanned >= ps.limit) || pg.bytes >= maxPageBytes {
			pg.lastEvaluated = ps.keyOf(item)
			return false
		}
		return true
	}
	var err error
	if ps.reverse {
		err = sp.Descend(ps.from, ps.to, visit)
	} else {
		err = sp.Ascend(ps.from, ps.to, visit)
	}
	if err == nil {
		err = decodeErr
	}
	return pg, err
}

// after returns the smallest key greater than k and every key with prefix k.
// Storage keys are self-delimiting, so no other key has k as a prefix and
// k+0x00 is the first key after k.
func after(k []byte) []byte {
	return append(append(make([]byte, 0, len(k)+1), k...), 0)
}

// prefixEnd returns the first key greater than every key with prefix p, or nil
// when there is none.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// selectRules checks Select against the projection parameters, and returns
// whether only a count is wanted.
func selectRules(sel string, hasProjection bool, index bool) (countOnly bool, err error) {
	switch sel {
	case "COUNT":
		if hasProjection {
			return false, Errorf(ValidationException, "Cannot specify the AttributesToGet when choosing to get only the Count")
		}
		return true, nil
	case "ALL_ATTRIBUTES":
		if hasProjection {
			return false, Errorf(ValidationException, "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES")
		}
	case "ALL_PROJECTED_ATTRIBUTES":
		if !index {
			return false, Errorf(ValidationException, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
		if hasProjection {
			return false, Errorf(ValidationException, "Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasProjection {
			return false, Errorf(ValidationException, "One or more parameter values were invalid: SPECIFIC_ATTRIBUTES requires AttributesToGet or ProjectionExpression")
		}
	}
	return false, nil
}
