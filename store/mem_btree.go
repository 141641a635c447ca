package store

import (
	"sync/atomic"
	"unsafe"
)

// memTree is the copy-on-write B-tree of one keyspace's entries. It does
// what github.com/tidwall/btree's BTreeG did for the memory engine (and the
// model test TestMemTreeModel holds it to that tree, its plain twin), with
// a node that suits entries without pointers: a node's entries are an
// array inside it, so that a node copied on write is one allocation that
// copies only the entries in use (BTreeG's node is a struct, its items
// slice and, inside, its children's slice and the pointer to it: two to
// four allocations, the items' whole capacity zeroed before it is copied
// over), and no count of the entries below is kept.
//
// A tree copy (Copy) shares every node; a node belongs to the copy that
// made it (owner) and any other copy copies it before changing it.
// Published trees are never changed, so readers need no lock.
type memTree struct {
	root  *memNode
	owner uint64
	ids   *atomic.Uint64 // owner numbers, shared by all copies of a tree
	// keys orders two entries whose prefixes are equal by their keys.
	keys func(x, y memEntry) int
}

const (
	memMaxItems = 2*memDegree - 1 // entries in a full node
	memMinItems = memDegree - 1   // entries in any node but the root
)

// memNode is the header of a node of a memTree: a leaf, or the first part
// of a memInner. A node's entries follow its header, which takes the room
// of one entry (memSlot). A leaf holds no pointer, so the garbage
// collector never scans it and its allocation needs no type header; it is
// allocated with room for the entries it holds and one more (leafRoom),
// not for memMaxItems: a node copied on write, the commonest allocation of
// a write, then zeroes and takes only what it uses, and a keyspace of a
// few entries (a space's metadata) is a node of a few entries. An inner
// node, with its children, is one allocation of full size.
type memNode struct {
	owner uint64
	n     int // entries in use
	cap   int // entries there is room for
	inner bool
}

// memSlot is the room of one entry; a node's header takes the first.
const memSlot = unsafe.Sizeof(memEntry{})

// memInner is an inner node of room for 31 entries: its memNode is its
// first field, then padding to one slot, its entries and its children. The
// smaller inner nodes (memInner7, 17, 23) are laid out alike, so that a
// *memNode known to be inner (inner set) finds its children after cap
// entries.
type memInner struct {
	memNode
	_     [memSlot - unsafe.Sizeof(memNode{})]byte
	items [memMaxItems]memEntry
	kids  [memMaxItems + 1]*memNode
}

type memInner7 struct {
	memNode
	_     [memSlot - unsafe.Sizeof(memNode{})]byte
	items [7]memEntry
	kids  [8]*memNode
}

type memInner17 struct {
	memNode
	_     [memSlot - unsafe.Sizeof(memNode{})]byte
	items [17]memEntry
	kids  [18]*memNode
}

type memInner23 struct {
	memNode
	_     [memSlot - unsafe.Sizeof(memNode{})]byte
	items [23]memEntry
	kids  [24]*memNode
}

// The header fits in one slot, and an inner node's entries start after it,
// where items finds a leaf's, and its children right after its entries.
var (
	_ [memSlot - unsafe.Offsetof(memInner{}.items)]struct{}
	_ [unsafe.Offsetof(memInner{}.items) - memSlot]struct{}
	_ [unsafe.Offsetof(memInner{}.kids) - memSlot*(1+memMaxItems)]struct{}
	_ [memSlot*(1+memMaxItems) - unsafe.Offsetof(memInner{}.kids)]struct{}
	_ [unsafe.Offsetof(memInner7{}.kids) - memSlot*8]struct{}
	_ [memSlot*8 - unsafe.Offsetof(memInner7{}.kids)]struct{}
	_ [unsafe.Offsetof(memInner17{}.kids) - memSlot*18]struct{}
	_ [memSlot*18 - unsafe.Offsetof(memInner17{}.kids)]struct{}
	_ [unsafe.Offsetof(memInner23{}.kids) - memSlot*24]struct{}
	_ [memSlot*24 - unsafe.Offsetof(memInner23{}.kids)]struct{}
)

// items returns the room for n's entries: n.n in use, n.cap in all.
func (n *memNode) items() []memEntry {
	return unsafe.Slice((*memEntry)(unsafe.Add(unsafe.Pointer(n), memSlot)), n.cap)
}

// kids returns an inner node's children: room for n.cap+1.
func (n *memNode) kids() []*memNode {
	if !n.inner {
		panic("store: the children of a B-tree leaf")
	}
	return unsafe.Slice((**memNode)(unsafe.Add(unsafe.Pointer(n), memSlot*uintptr(1+n.cap))), n.cap+1)
}

// newInner returns an empty inner node with room for at least room entries
// (and one child more), of the size of 384, 896, 1,152 or 1,536 bytes.
func newInner(owner uint64, room int) *memNode {
	var n *memNode
	switch {
	case room <= 7 && memMaxItems > 7:
		n = &new(memInner7).memNode
		n.cap = 7
	case room <= 17 && memMaxItems > 17:
		n = &new(memInner17).memNode
		n.cap = 17
	case room <= 23 && memMaxItems > 23:
		n = &new(memInner23).memNode
		n.cap = 23
	default:
		n = &new(memInner).memNode
		n.cap = memMaxItems
	}
	n.owner, n.inner = owner, true
	return n
}

// leafRoom returns the room to give a leaf that must hold m entries: the
// least, at or above m, that with the header fills one of the Go
// allocator's size classes (the room a larger count would use is lost to
// rounding anyway).
func leafRoom(m int) int {
	var r int
	switch {
	case m <= 11: // 80 to 480 bytes: every count has its own class
		r = max(m, 1)
	case m <= 13: // 576
		r = 13
	case m <= 15: // 640
		r = 15
	case m <= 16: // 704
		r = 16
	case m <= 18: // 768
		r = 18
	case m <= 21: // 896
		r = 21
	case m <= 24: // 1024
		r = 24
	case m <= 27: // 1152
		r = 27
	default:
		r = memMaxItems
	}
	return min(r, memMaxItems)
}

// memHint is the path of a tree's last search: a search for the same or a
// nearby key tries the same positions first. It is only a hint: every
// position is checked, so a stale hint costs comparisons, never answers.
type memHint struct {
	path  [8]uint8
	valid uint8 // levels of path that hold a position
}

func newMemTree(keys func(x, y memEntry) int) *memTree {
	ids := new(atomic.Uint64)
	return &memTree{owner: ids.Add(1), ids: ids, keys: keys}
}

// Copy returns a copy of t that may change without changing t, in O(1).
// t itself stops owning its nodes, so that neither copy's changes show in
// the other.
func (t *memTree) Copy() *memTree {
	c := t.copyValue()
	return &c
}

// copyValue is Copy for a tree held as a value (kvMap's).
func (t *memTree) copyValue() memTree {
	t.owner = t.ids.Add(1)
	return memTree{root: t.root, owner: t.ids.Add(1), ids: t.ids, keys: t.keys}
}

// cmp orders x against y.
func (t *memTree) cmp(x, y memEntry) int {
	if x.pre != y.pre {
		if lessPre(x.pre, y.pre) {
			return -1
		}
		return 1
	}
	return t.keys(x, y)
}

// newNode returns an empty node that t owns, inner or a leaf, with room
// for at least room entries.
func (t *memTree) newNode(inner bool, room int) *memNode {
	if inner {
		return newInner(t.owner, room)
	}
	room = leafRoom(room)
	buf := make([]memEntry, room+1)
	n := (*memNode)(unsafe.Pointer(&buf[0]))
	n.owner, n.cap = t.owner, room
	return n
}

// own returns *pp with room for extra more entries (as far as a node has
// room), first replaced by a copy that t owns if t does not own it, or by
// a larger copy if t owns it but it is short of room: a leaf that one
// transaction keeps filling grows by half its size at a time. Only the
// entries and children in use are copied.
func (t *memTree) own(pp **memNode, extra int) *memNode {
	n := *pp
	need := min(n.n+extra, memMaxItems)
	if n.owner == t.owner {
		if need <= n.cap {
			return n
		}
		need += n.n / 2
	}
	c := t.newNode(n.inner, need)
	c.n = n.n
	copy(c.items(), n.items()[:n.n])
	if n.inner {
		copy(c.kids()[:n.n+1], n.kids()[:n.n+1])
	}
	*pp = c
	return c
}

// bsearch returns the position of the first entry of n not below key, and
// whether it is key.
func (t *memTree) bsearch(n *memNode, key memEntry) (int, bool) {
	it := n.items()[:n.n]
	lo, hi := 0, len(it)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		switch c := t.cmp(key, it[h]); {
		case c == 0:
			return h, true
		case c > 0:
			lo = h + 1
		default:
			hi = h
		}
	}
	return lo, false
}

// find is bsearch at depth of a descent, trying h's position first and
// leaving the position found in h.
func (t *memTree) find(n *memNode, key memEntry, h *memHint, depth int) (i int, found bool) {
	if h == nil || depth >= len(h.path) {
		return t.bsearch(n, key)
	}
	if depth < int(h.valid) {
		it := n.items()[:n.n]
		i = int(h.path[depth])
		if i <= len(it) {
			if i < len(it) {
				c := t.cmp(key, it[i])
				if c == 0 {
					return i, true
				}
				if c < 0 && (i == 0 || t.cmp(it[i-1], key) < 0) {
					return i, false
				}
			} else if i > 0 && t.cmp(it[i-1], key) < 0 {
				return i, false
			}
		}
	}
	i, found = t.bsearch(n, key)
	if depth >= int(h.valid) || int(h.path[depth]) != i {
		h.path[depth] = uint8(i)
		h.valid = uint8(depth + 1)
	}
	return i, found
}

// GetHint returns the entry equal to key.
func (t *memTree) GetHint(key memEntry, h *memHint) (memEntry, bool) {
	n := t.root
	for depth := 0; n != nil; depth++ {
		i, found := t.find(n, key, h, depth)
		if found {
			return n.items()[i], true
		}
		if !n.inner {
			break
		}
		n = n.kids()[i]
	}
	return memEntry{}, false
}

// Load adds e, which is above every entry of t.
func (t *memTree) Load(e memEntry) { t.SetHint(e, nil) }

// SetHint stores e, replacing the entry equal to it, which it returns. A
// full node on the way down is split before the descent enters it (without
// copying it first), so the insert at the leaf always has room.
func (t *memTree) SetHint(e memEntry, h *memHint) (prev memEntry, replaced bool) {
	if t.root == nil {
		t.root = t.newNode(false, 1)
		t.root.items()[0], t.root.n = e, 1
		return memEntry{}, false
	}
	if t.root.n == memMaxItems {
		root := t.newNode(true, 1)
		root.kids()[0] = t.root
		t.splitChild(root, 0)
		t.root = root
	}
	pp := &t.root
	for depth := 0; ; depth++ {
		if !(*pp).inner {
			return t.setLeaf(pp, e, h, depth)
		}
		n := t.own(pp, 1)
		i, found := t.find(n, e, h, depth)
		it := n.items()
		if found {
			prev, it[i] = it[i], e
			return prev, true
		}
		if n.kids()[i].n == memMaxItems {
			t.splitChild(n, i)
			switch c := t.cmp(e, it[i]); {
			case c == 0:
				prev, it[i] = it[i], e
				return prev, true
			case c > 0:
				i++
			}
		}
		pp = &n.kids()[i]
	}
}

// setLeaf is SetHint at the leaf *pp, which is not full: it searches the
// leaf before owning it, so that an insert into a leaf t must copy (one
// it does not own, the commonest case of a write: every transaction's
// first insert into a leaf, or one short of room) builds the copy with e
// in place, in one pass over entries whose room was not zeroed first
// (setLeafPlain is the twin: own, then shift; TestMemTreeModel and
// TestSetLeafMatchesPlain).
func (t *memTree) setLeaf(pp **memNode, e memEntry, h *memHint, depth int) (memEntry, bool) {
	n := *pp
	i, found := t.find(n, e, h, depth)
	if found {
		n = t.own(pp, 0)
		prev := n.items()[i]
		n.items()[i] = e
		return prev, true
	}
	if n.owner == t.owner && n.n < n.cap {
		insertItem(n, i, e)
		return memEntry{}, false
	}
	need := n.n + 1
	if n.owner == t.owner {
		need += n.n / 2 // a leaf one transaction keeps filling grows by half
	}
	*pp = t.leafWith(n, i, e, need)
	return memEntry{}, false
}

// setLeafPlain is setLeaf as SetHint did it before: own the leaf with
// room for one more, then insert e at its place.
func (t *memTree) setLeafPlain(pp **memNode, e memEntry, h *memHint, depth int) (memEntry, bool) {
	n := t.own(pp, 1)
	i, found := t.find(n, e, h, depth)
	if found {
		prev := n.items()[i]
		n.items()[i] = e
		return prev, true
	}
	insertItem(n, i, e)
	return memEntry{}, false
}

// insertItem puts e at position i of n, which has room for it.
func insertItem(n *memNode, i int, e memEntry) {
	it := n.items()
	copy(it[i+1:n.n+1], it[i:n.n])
	it[i] = e
	n.n++
}

// leafWith returns a new leaf that t owns, with room for at least need
// entries (leafRoom), holding leaf n's entries with e inserted at i. The
// header and the entries before i are copied as the allocation's first
// bytes (make then copy: the runtime then zeroes only the rest), then e
// and the entries after it.
func (t *memTree) leafWith(n *memNode, i int, e memEntry, need int) *memNode {
	room := leafRoom(min(need, memMaxItems))
	head := unsafe.Slice((*memEntry)(unsafe.Pointer(n)), 1+i)
	buf := make([]memEntry, room+1)
	copy(buf, head)
	c := (*memNode)(unsafe.Pointer(&buf[0]))
	c.owner, c.cap = t.owner, room
	it := c.items()
	it[i] = e
	copy(it[i+1:n.n+1], n.items()[i:n.n])
	c.n = n.n + 1
	return c
}

// splitChild splits n's full child i in two halves around its middle
// entry, which moves up into n (which t owns, not full) at i. The halves
// are new nodes of half the size; the child, copied or not, is left to the
// collector.
func (t *memTree) splitChild(n *memNode, i int) {
	c := n.kids()[i]
	const mid = memMaxItems / 2
	left, right := t.newNode(c.inner, mid+1), t.newNode(c.inner, c.n-mid)
	ci := c.items()
	left.n = copy(left.items(), ci[:mid])
	right.n = copy(right.items(), ci[mid+1:c.n])
	if c.inner {
		copy(left.kids(), c.kids()[:mid+1])
		copy(right.kids(), c.kids()[mid+1:c.n+1])
	}
	it, kids := n.items(), n.kids()
	copy(it[i+1:n.n+1], it[i:n.n])
	copy(kids[i+2:n.n+2], kids[i+1:n.n+1])
	it[i], kids[i], kids[i+1] = ci[mid], left, right
	n.n++
}

// DeleteHint removes the entry equal to key and returns it.
func (t *memTree) DeleteHint(key memEntry, h *memHint) (memEntry, bool) {
	// Find it first: a removal copies the path down, which a key that is
	// not there should not cost.
	if _, ok := t.GetHint(key, h); !ok {
		return memEntry{}, false
	}
	prev := t.del(&t.root, key, h, 0)
	if r := t.root; r.n == 0 {
		if r.inner {
			t.root = r.kids()[0]
		} else {
			t.root = nil
		}
	}
	return prev, true
}

// del removes key, which is in the subtree at *pp, from it. The subtree's
// root may be left with too few entries, for its parent to rebalance.
func (t *memTree) del(pp **memNode, key memEntry, h *memHint, depth int) memEntry {
	n := t.own(pp, 0)
	i, found := t.find(n, key, h, depth)
	it := n.items()
	if !n.inner {
		prev := it[i]
		removeItem(n, i)
		return prev
	}
	var prev memEntry
	if found {
		// Replace it by its predecessor, the greatest entry of child i.
		prev = it[i]
		it[i] = t.delMax(&n.kids()[i])
	} else {
		prev = t.del(&n.kids()[i], key, h, depth+1)
	}
	t.rebalance(n, i)
	return prev
}

// delMax removes and returns the greatest entry of the subtree at *pp.
func (t *memTree) delMax(pp **memNode) memEntry {
	n := t.own(pp, 0)
	if !n.inner {
		e := n.items()[n.n-1]
		removeItem(n, n.n-1)
		return e
	}
	e := t.delMax(&n.kids()[n.n])
	t.rebalance(n, n.n)
	return e
}

func removeItem(n *memNode, i int) {
	it := n.items()
	copy(it[i:n.n-1], it[i+1:n.n])
	n.n--
	it[n.n] = memEntry{}
}

// rebalance gives n's child i, which t owns, at least memMinItems entries
// again if a removal left it fewer: from a sibling that can spare one, or
// else by merging it with a sibling.
func (t *memTree) rebalance(n *memNode, i int) {
	if n.kids()[i].n >= memMinItems {
		return
	}
	switch {
	case i > 0 && n.kids()[i-1].n > memMinItems:
		t.takeLeft(n, i)
	case i < n.n && n.kids()[i+1].n > memMinItems:
		t.takeRight(n, i)
	case i > 0:
		t.merge(n, i-1)
	default:
		t.merge(n, i)
	}
}

// takeLeft moves n's entry i-1 down to the front of child i and the last
// entry (and child) of child i-1 up in its place.
func (t *memTree) takeLeft(n *memNode, i int) {
	left, c := t.own(&n.kids()[i-1], 0), t.own(&n.kids()[i], 1)
	it, ci, li := n.items(), c.items(), left.items()
	copy(ci[1:c.n+1], ci[:c.n])
	ci[0] = it[i-1]
	if c.inner {
		copy(c.kids()[1:c.n+2], c.kids()[:c.n+1])
		c.kids()[0] = left.kids()[left.n]
		left.kids()[left.n] = nil
	}
	c.n++
	it[i-1] = li[left.n-1]
	left.n--
	li[left.n] = memEntry{}
}

// takeRight moves n's entry i down to the end of child i and the first
// entry (and child) of child i+1 up in its place.
func (t *memTree) takeRight(n *memNode, i int) {
	c, right := t.own(&n.kids()[i], 1), t.own(&n.kids()[i+1], 0)
	it := n.items()
	c.items()[c.n] = it[i]
	if c.inner {
		c.kids()[c.n+1] = right.kids()[0]
		copy(right.kids()[:right.n], right.kids()[1:right.n+1])
		right.kids()[right.n] = nil
	}
	c.n++
	it[i] = right.items()[0]
	removeItem(right, 0)
}

// merge joins n's children i and i+1 and the entry between them into
// child i and removes entry i and child i+1 from n.
func (t *memTree) merge(n *memNode, i int) {
	right := n.kids()[i+1]
	left := t.own(&n.kids()[i], right.n+1)
	it, li := n.items(), left.items()
	li[left.n] = it[i]
	copy(li[left.n+1:], right.items()[:right.n])
	if left.inner {
		copy(left.kids()[left.n+1:], right.kids()[:right.n+1])
	}
	left.n += right.n + 1
	copy(it[i:n.n-1], it[i+1:n.n])
	copy(n.kids()[i+1:n.n], n.kids()[i+2:n.n+1])
	n.kids()[n.n] = nil
	n.n--
	it[n.n] = memEntry{}
}

// Scan calls fn with every entry in order until fn returns false.
func (t *memTree) Scan(fn func(memEntry) bool) {
	if t.root != nil {
		t.ascend(t.root, nil, fn)
	}
}

// Ascend calls fn with the entries not below pivot, in order, until fn
// returns false. Every comparison with pivot is made before the first
// call of fn (mem_probe.go's pivot relies on it).
func (t *memTree) Ascend(pivot memEntry, fn func(memEntry) bool) {
	if t.root != nil {
		t.ascend(t.root, &pivot, fn)
	}
}

func (t *memTree) ascend(n *memNode, pivot *memEntry, fn func(memEntry) bool) bool {
	i, found := 0, false
	if pivot != nil {
		i, found = t.bsearch(n, *pivot)
	}
	// Child i holds the entries between entry i-1 (below pivot) and entry
	// i; when entry i is pivot itself, none of them is wanted.
	if n.inner && !found && !t.ascend(n.kids()[i], pivot, fn) {
		return false
	}
	it := n.items()
	for ; i < n.n; i++ {
		if !fn(it[i]) {
			return false
		}
		if n.inner && !t.ascend(n.kids()[i+1], nil, fn) {
			return false
		}
	}
	return true
}

// Reverse calls fn with every entry in reverse order until fn returns
// false.
func (t *memTree) Reverse(fn func(memEntry) bool) {
	if t.root != nil {
		t.descend(t.root, nil, fn)
	}
}

// Descend calls fn with the entries not above pivot, in reverse order,
// until fn returns false; as Ascend, it compares with pivot only before
// the first call of fn.
func (t *memTree) Descend(pivot memEntry, fn func(memEntry) bool) {
	if t.root != nil {
		t.descend(t.root, &pivot, fn)
	}
}

func (t *memTree) descend(n *memNode, pivot *memEntry, fn func(memEntry) bool) bool {
	i, found := n.n, false
	if pivot != nil {
		i, found = t.bsearch(n, *pivot)
	}
	it := n.items()
	if found {
		if !fn(it[i]) {
			return false
		}
		pivot = nil // child i is all below it
	}
	if n.inner && !t.descend(n.kids()[i], pivot, fn) {
		return false
	}
	for i--; i >= 0; i-- {
		if !fn(it[i]) {
			return false
		}
		if n.inner && !t.descend(n.kids()[i], nil, fn) {
			return false
		}
	}
	return true
}
