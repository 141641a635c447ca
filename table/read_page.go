package table

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
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
	scan     bool // a Scan's page (else a Query's), for insights
	// index: the space holds index entries (a size header, then the item)
	// rather than items.
	index    bool
	keyNames []string // attributes a LastEvaluatedKey carries
	keyOf    func(item attr.Item) attr.Item
	// buf, when not nil, is an empty scratch buffer to append the items'
	// JSON to (one recycled from an earlier page).
	buf []byte
	// plain decodes every entry whole before the filter and projection see
	// it: the plain twin of the lazy decoding (Service.plain).
	plain bool
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
	// lastRead is the storage key prefix (partition hash) of the last
	// entry read, for insights to charge a Scan page to its partitions.
	lastRead uint64
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
	sp := tx.Space(ps.space)
	if sp == nil {
		return page{items: ps.buf}, ddb.NotFound("")
	}
	r := newPageReader(tx, ps, ov)
	var err error
	if ps.reverse {
		err = sp.Descend(ps.from, ps.to, r.visit)
	} else {
		err = sp.Ascend(ps.from, ps.to, r.visit)
	}
	if err == nil {
		err = r.err
	}
	if err == nil && !r.ended {
		r.emitBefore(nil)
		err = r.err
	}
	return r.pg, err
}

// pageReader is one readPage in progress.
type pageReader struct {
	tx                        *store.Tx
	ps                        pageSpec
	pg                        page
	filterNames, projectNames []string
	// scratch receives the filter's attributes of each stored entry: one
	// map for the page rather than one per entry read.
	scratch attr.Item
	// shown and hidden are the overlay's entries, merged in key order
	// (reversed for a descending read) from shown[next] on.
	shown  []shownEntry
	hidden map[string]bool
	next   int
	ended  bool  // the page ended before the range did
	err    error // what stopped the iteration, if it failed
}

func newPageReader(tx *store.Tx, ps pageSpec, ov *overlay) *pageReader {
	r := &pageReader{tx: tx, ps: ps, pg: page{items: ps.buf}}
	if ps.filter != nil {
		r.filterNames = ps.filter.TopLevelNames()
	}
	if ps.project != nil {
		r.projectNames = ps.project.TopLevelNames()
	}
	if ov != nil {
		r.shown, r.hidden = ov.shown, ov.hidden
	}
	if ps.reverse {
		r.next = len(r.shown) - 1
	}
	if ps.filter != nil && ps.fetch == nil && !ps.plain {
		r.scratch = make(attr.Item, len(r.filterNames))
	}
	return r
}

// visit is the store iteration's callback for stored entry k, v.
func (r *pageReader) visit(k, v []byte) bool {
	if r.next >= 0 && r.next < len(r.shown) && !r.emitBefore(k) {
		r.ended = true
		return false
	}
	if r.hidden != nil && r.hidden[string(k)] {
		return true
	}
	if len(k) >= attr.HashPrefixLen {
		r.pg.lastRead = binary.BigEndian.Uint64(k)
	}
	e := lazyEntry{body: v, filtered: r.scratch}
	var err error
	if r.ps.plain {
		err = r.plainEntry(&e)
	} else {
		err = r.entry(&e)
	}
	if err != nil {
		r.err = err
		return false
	}
	if !r.process(&e) {
		r.ended = true
		return false
	}
	return true
}

// entry fills in stored entry e's size, and the filter's attributes in
// scratch, from its bytes e.body.
func (r *pageReader) entry(e *lazyEntry) error {
	if !r.ps.index {
		var err error
		e.size, err = attr.BinarySizeNames(e.body, r.filterNames, r.scratch)
		return err
	}
	size, w, err := index.SplitEntry(e.body)
	e.size, e.body = size, e.body[w:]
	if err == nil && r.scratch != nil {
		_, err = attr.BinarySizeNames(e.body, r.filterNames, r.scratch)
	}
	return err
}

// plainEntry is entry's plain twin: the stored entry e.body decoded whole,
// its size that of the decoded item (an index entry's is recorded in it).
func (r *pageReader) plainEntry(e *lazyEntry) error {
	body, size := e.body, 0
	if r.ps.index {
		var w int
		var err error
		if size, w, err = index.SplitEntry(body); err != nil {
			return err
		}
		body = body[w:]
	}
	item, err := attr.DecodeBinary(body)
	if !r.ps.index {
		size = item.Size()
	}
	*e = lazyEntry{item: item, size: size}
	return err
}

// emitBefore processes the shown entries that come before key k (all of
// them when k is nil); false means the page ended.
func (r *pageReader) emitBefore(k []byte) bool {
	for r.next >= 0 && r.next < len(r.shown) {
		c := bytes.Compare(r.shown[r.next].key, k)
		if k != nil && ((!r.ps.reverse && c >= 0) || (r.ps.reverse && c <= 0)) {
			return true
		}
		e := r.shown[r.next].entry
		if r.ps.reverse {
			r.next--
		} else {
			r.next++
		}
		if !r.process(&lazyEntry{item: e, size: e.Size()}) {
			return false
		}
	}
	return true
}

// process counts entry e, returns it when it passes the filter, and reports
// whether the page goes on.
func (r *pageReader) process(e *lazyEntry) bool {
	ps := &r.ps
	r.pg.scanned++
	r.pg.bytes += e.size
	item, err := r.filterInput(e)
	if err != nil {
		r.err = err
		return false
	}
	if ps.filter == nil || ps.filter.Eval(item) {
		if !ps.count {
			if err := r.appendItem(e, item); err != nil {
				r.err = err
				return false
			}
		}
		r.pg.count++
	}
	if (ps.limit > 0 && r.pg.scanned >= ps.limit) || r.pg.bytes >= maxPageBytes {
		keys, err := e.get(ps.keyNames)
		if err != nil {
			r.err = err
			return false
		}
		r.pg.lastEvaluated = ps.keyOf(keys)
		return false
	}
	return true
}

// filterInput returns what the filter and projection see of e: the whole
// item fetched from the table for a local index read that needs it, else
// the filter's attributes of e.
func (r *pageReader) filterInput(e *lazyEntry) (attr.Item, error) {
	switch {
	case r.ps.fetch != nil:
		entry, err := e.get(nil)
		if err != nil {
			return nil, err
		}
		full, size, err := r.ps.fetch(r.tx, entry)
		if err != nil {
			return nil, err
		}
		r.pg.fetched = append(r.pg.fetched, size)
		return full, nil
	case e.filtered != nil:
		return e.filtered, nil
	case r.ps.filter != nil:
		return e.get(r.filterNames)
	}
	return nil, nil
}

// appendItem appends the JSON of what the page returns for e, whose
// filter input was item.
func (r *pageReader) appendItem(e *lazyEntry, item attr.Item) error {
	ps := &r.ps
	if r.pg.count > 0 {
		r.pg.items = append(r.pg.items, ',')
	}
	var fetched attr.Item
	if ps.fetch != nil {
		fetched = item
	}
	var err error
	if r.pg.items, err = e.appendJSON(r.pg.items, fetched, ps.project, r.projectNames); err != nil {
		return err
	}
	if r.pg.count == 0 && ps.limit > 1 {
		// Room for Limit items like the first saves regrowing a page of
		// similar items several times.
		r.pg.items = slices.Grow(r.pg.items, min((len(r.pg.items)+1)*(ps.limit-1), maxPageBytes*2))
	}
	return nil
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
			return false, false, ddb.Errorf(ddb.ValidationException, "Cannot specify the AttributesToGet when choosing to get only the Count")
		}
		return true, false, nil
	case "ALL_ATTRIBUTES":
		if hasProjection {
			return false, false, ddb.Errorf(ddb.ValidationException, "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES")
		}
		if idx != nil && idx.Global && idx.ProjectionType != "ALL" {
			return false, false, invalid("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", idx.Name)
		}
		return false, true, nil
	case "ALL_PROJECTED_ATTRIBUTES":
		if idx == nil {
			return false, false, ddb.Errorf(ddb.ValidationException, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
		if hasProjection {
			return false, false, ddb.Errorf(ddb.ValidationException, "Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasProjection {
			return false, false, invalid("SPECIFIC_ATTRIBUTES requires AttributesToGet or ProjectionExpression")
		}
	}
	return false, false, nil
}
