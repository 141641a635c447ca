package table

import (
	"bytes"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// maxPageBytes is the data one Query or Scan page reads at most (1 MB).
const maxPageBytes = 1 << 20

// maxPooledPage is the largest scratch buffer for a page's JSON that the
// Service keeps for reuse: a Query or filtered Scan page fits, while the
// rare full 1 MB page's is left to the garbage collector rather than
// pinned in the pool.
const maxPooledPage = 256 << 10

// pageSpec is one Query or Scan page over a key range of a table or index space.
type pageSpec struct {
	space    string
	from, to []byte // [from, to); nil is open
	reverse  bool
	limit    int // items read at most; 0 = no limit
	filter   *expressions.Condition
	project  *expressions.Projection
	count    bool // Select COUNT: return no items
	// index: the space holds index entries (a size header, then the item)
	// rather than items.
	index    bool
	keyNames []string // attributes a LastEvaluatedKey carries
	keyOf    func(item attr.Item) attr.Item
	// buf, when not nil, is an empty scratch buffer to append the items'
	// JSON to (one recycled from an earlier page).
	buf []byte
	// fetch, for local index reads that need attributes the index does not
	// project, returns the whole item from the table and its size.
	fetch func(tx *store.Tx, entry attr.Item) (attr.Item, int, error)
}

// page is what a pageSpec read.
type page struct {
	// items is the JSON of the returned items, comma-separated: written
	// straight from the stored bytes, since the response needs nothing else.
	items         []byte
	count         int
	scanned       int
	bytes         int   // bytes read from the space
	fetched       []int // sizes of items fetched from the table
	lastEvaluated attr.Item
}

// shownEntry is an entry an eventually consistent read sees that the current
// state no longer has (or has differently): its key and decoded entry.
type shownEntry struct {
	key   []byte
	entry attr.Item
}

// overlay is what an eventually consistent read changes in the current
// state: entries to skip, and entries to read instead, in key order.
type overlay struct {
	hidden map[string]bool
	shown  []shownEntry
}

// lazyEntry is one stored entry, decoded only as far as the page needs: its
// size, the attributes the filter names, and in full only when it is returned.
type lazyEntry struct {
	body []byte    // attr binary encoding; nil when item is set
	item attr.Item // the whole entry, once decoded
	size int
	// filtered, when not nil, holds the attributes the filter names, decoded
	// with the size; it is reused for the next entry once the filter ran.
	filtered attr.Item
}

// get returns the attributes names of the entry (all of them for nil).
func (e *lazyEntry) get(names []string) (attr.Item, error) {
	if e.item != nil {
		return e.item, nil
	}
	if names == nil {
		item, err := attr.DecodeBinary(e.body)
		e.item = item
		return item, err
	}
	return attr.DecodeBinaryNames(e.body, names)
}

// appendJSON appends the JSON of what the page returns for the entry: the
// projection of fetched (the whole item fetched from the table, or nil), or
// else of the entry itself. Without a projection a stored entry is
// transcoded without being decoded.
func (e *lazyEntry) appendJSON(dst []byte, fetched attr.Item, project *expressions.Projection, projectNames []string) ([]byte, error) {
	out := fetched
	if out == nil {
		switch {
		case project == nil && e.item == nil:
			return attr.AppendBinaryJSON(dst, e.body)
		case project == nil:
			out = e.item
		default:
			var err error
			if out, err = e.get(projectNames); err != nil {
				return dst, err
			}
		}
	}
	if project != nil {
		out = project.Apply(out)
	}
	return attr.AppendItemJSON(dst, out), nil
}

// readPage reads one page: entries in key order until the range ends, the
// Limit is reached, or 1 MB has been read, with ov (may be nil) merged over
// the current state. Limit and the 1 MB cap count what was read, before the
// filter, as DynamoDB does; either one ends the page with a LastEvaluatedKey
// even when no item matched. Entries are decoded lazily: a filter that
// rejects an item only decodes the attributes it names.
func readPage(tx *store.Tx, ps pageSpec, ov *overlay) (page, error) {
	pg := page{items: ps.buf}
	sp := tx.Space(ps.space)
	if sp == nil {
		return pg, errNotFound("", "")
	}
	var filterNames, projectNames []string
	if ps.filter != nil {
		filterNames = ps.filter.TopLevelNames()
	}
	if ps.project != nil {
		projectNames = ps.project.TopLevelNames()
	}
	var visitErr error
	process := func(e *lazyEntry) bool {
		pg.scanned++
		pg.bytes += e.size
		var item attr.Item // what the filter and projection see
		var err error
		switch {
		case ps.fetch != nil:
			entry, err := e.get(nil)
			if err != nil {
				visitErr = err
				return false
			}
			full, size, err := ps.fetch(tx, entry)
			if err != nil {
				visitErr = err
				return false
			}
			item = full
			pg.fetched = append(pg.fetched, size)
		case e.filtered != nil:
			item = e.filtered
		case ps.filter != nil:
			item, err = e.get(filterNames)
		}
		if err != nil {
			visitErr = err
			return false
		}
		if ps.filter == nil || ps.filter.Eval(item) {
			if !ps.count {
				if pg.count > 0 {
					pg.items = append(pg.items, ',')
				}
				var fetched attr.Item
				if ps.fetch != nil {
					fetched = item
				}
				if pg.items, err = e.appendJSON(pg.items, fetched, ps.project, projectNames); err != nil {
					visitErr = err
					return false
				}
				if pg.count == 0 && ps.limit > 1 {
					// Room for Limit items like the first saves regrowing a
					// page of similar items several times.
					pg.items = slices.Grow(pg.items, min((len(pg.items)+1)*(ps.limit-1), maxPageBytes*2))
				}
			}
			pg.count++
		}
		if (ps.limit > 0 && pg.scanned >= ps.limit) || pg.bytes >= maxPageBytes {
			keys, err := e.get(ps.keyNames)
			if err != nil {
				visitErr = err
				return false
			}
			pg.lastEvaluated = ps.keyOf(keys)
			return false
		}
		return true
	}
	// Shown entries are merged in key order (reversed for a descending read).
	var shown []shownEntry
	var hidden map[string]bool
	if ov != nil {
		shown, hidden = ov.shown, ov.hidden
	}
	next := 0
	if ps.reverse {
		next = len(shown) - 1
	}
	// emitBefore processes the shown entries that come before key k (all of
	// them when k is nil); false means the page ended.
	emitBefore := func(k []byte) bool {
		for next >= 0 && next < len(shown) {
			c := bytes.Compare(shown[next].key, k)
			if k != nil && ((!ps.reverse && c >= 0) || (ps.reverse && c <= 0)) {
				return true
			}
			e := shown[next].entry
			if ps.reverse {
				next--
			} else {
				next++
			}
			if !process(&lazyEntry{item: e, size: e.Size()}) {
				return false
			}
		}
		return true
	}
	// scratch receives the filter's attributes of each stored entry: one map
	// for the page rather than one per entry read.
	var scratch attr.Item
	if ps.filter != nil && ps.fetch == nil {
		scratch = make(attr.Item, len(filterNames))
	}
	ended := false
	visit := func(k, v []byte) bool {
		if !emitBefore(k) {
			ended = true
			return false
		}
		if hidden[string(k)] {
			return true
		}
		e := lazyEntry{body: v, filtered: scratch}
		var err error
		if ps.index {
			var w int
			e.size, w, err = index.SplitEntry(v)
			e.body = v[w:]
			if err == nil && scratch != nil {
				_, err = attr.BinarySizeNames(e.body, filterNames, scratch)
			}
		} else {
			e.size, err = attr.BinarySizeNames(v, filterNames, scratch)
		}
		if err != nil {
			visitErr = err
			return false
		}
		if !process(&e) {
			ended = true
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
		err = visitErr
	}
	if err == nil && !ended {
		emitBefore(nil)
		err = visitErr
	}
	return pg, err
}

// after returns the smallest key greater than k. Storage keys are
// self-delimiting, so no other key has k as a proper prefix and k+0x00 is the
// first key after k.
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

// selectRules checks Select against the projection parameters and the read
// target, and returns whether only a count is wanted and whether the whole
// item is wanted.
func selectRules(sel string, hasProjection bool, idx *index.Def) (countOnly, allAttributes bool, err error) {
	if sel == "" {
		switch {
		case hasProjection:
			sel = "SPECIFIC_ATTRIBUTES"
		case idx != nil:
			sel = "ALL_PROJECTED_ATTRIBUTES"
		default:
			sel = "ALL_ATTRIBUTES"
		}
	}
	switch sel {
	case "COUNT":
		if hasProjection {
			return false, false, Errorf(ValidationException, "Cannot specify the AttributesToGet when choosing to get only the Count")
		}
		return true, false, nil
	case "ALL_ATTRIBUTES":
		if hasProjection {
			return false, false, Errorf(ValidationException, "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES")
		}
		if idx != nil && idx.Global && idx.ProjectionType != "ALL" {
			return false, false, invalid("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", idx.Name)
		}
		return false, true, nil
	case "ALL_PROJECTED_ATTRIBUTES":
		if idx == nil {
			return false, false, Errorf(ValidationException, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
		if hasProjection {
			return false, false, Errorf(ValidationException, "Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasProjection {
			return false, false, invalid("SPECIFIC_ATTRIBUTES requires AttributesToGet or ProjectionExpression")
		}
	}
	return false, false, nil
}
