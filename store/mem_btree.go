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

// memNode is a node of a memTree: a leaf, or the first part of a
// memInner. A leaf holds no pointer, so the garbage collector never scans
// it and its allocation needs no type header; an inner node, with its
// children, is one allocation too.
type memNode struct {
	owner uint64
	n     int // entries in use
	inner bool
	items [memMaxItems]memEntry
}

// memInner is an inner node: its memNode is its first field, so that a
// *memNode known to be inner (inner set) converts back to it.
type memInner struct {
	memNode
	kids [memMaxItems + 1]*memNode
}

// kids returns an inner node's children.
func (n *memNode) kids() *[memMaxItems + 1]*memNode {
	if !n.inner {
		panic("store: the children of a B-tree leaf")
	}
	return &(*memInner)(unsafe.Pointer(n)).kids
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
	t.owner = t.ids.Add(1)
	return &memTree{root: t.root, owner: t.ids.Add(1), ids: t.ids, keys: t.keys}
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

func (t *memTree) newNode(inner bool) *memNode {
	if inner {
		return &(&memInner{memNode: memNode{owner: t.owner, inner: true}}).memNode
	}
	return &memNode{owner: t.owner}
}

// own returns *pp, first replaced by a copy that t owns if t does not own
// it. Only the entries and children in use are copied.
func (t *memTree) own(pp **memNode) *memNode {
	n := *pp
	if n.owner == t.owner {
		return n
	}
	c := t.newNode(n.inner)
	c.n = n.n
	copy(c.items[:n.n], n.items[:n.n])
	if n.inner {
		copy(c.kids()[:n.n+1], n.kids()[:n.n+1])
	}
	*pp = c
	return c
}

// bsearch returns the position of the first entry of n not below key, and
// whether it is key.
func (t *memTree) bsearch(n *memNode, key memEntry) (int, bool) {
	lo, hi := 0, n.n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		switch c := t.cmp(key, n.items[h]); {
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
		i = int(h.path[depth])
		if i <= n.n {
			if i < n.n {
				c := t.cmp(key, n.items[i])
				if c == 0 {
					return i, true
				}
				if c < 0 && (i == 0 || t.cmp(n.items[i-1], key) < 0) {
					return i, false
				}
			} else if i > 0 && t.cmp(n.items[i-1], key) < 0 {
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
			return n.items[i], true
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
// full node on the way down is split before the descent enters it, so the
// insert at the leaf always has room.
func (t *memTree) SetHint(e memEntry, h *memHint) (prev memEntry, replaced bool) {
	if t.root == nil {
		t.root = t.newNode(false)
		t.root.items[0], t.root.n = e, 1
		return memEntry{}, false
	}
	n := t.own(&t.root)
	if n.n == memMaxItems {
		root := t.newNode(true)
		root.kids()[0] = n
		t.splitChild(root, 0)
		t.root, n = root, root
	}
	for depth := 0; ; depth++ {
		i, found := t.find(n, e, h, depth)
		if found {
			prev, n.items[i] = n.items[i], e
			return prev, true
		}
		if !n.inner {
			copy(n.items[i+1:n.n+1], n.items[i:n.n])
			n.items[i] = e
			n.n++
			return memEntry{}, false
		}
		if t.own(&n.kids()[i]).n == memMaxItems {
			t.splitChild(n, i)
			switch c := t.cmp(e, n.items[i]); {
			case c == 0:
				prev, n.items[i] = n.items[i], e
				return prev, true
			case c > 0:
				i++
			}
		}
		n = n.kids()[i]
	}
}

// splitChild splits n's full child i, which t owns, in two halves around
// its middle entry, which moves up into n (not full) at i.
func (t *memTree) splitChild(n *memNode, i int) {
	c := n.kids()[i]
	const mid = memMaxItems / 2
	right := t.newNode(c.inner)
	right.n = copy(right.items[:], c.items[mid+1:c.n])
	if c.inner {
		copy(right.kids()[:], c.kids()[mid+1:c.n+1])
		clear(c.kids()[mid+1 : c.n+1])
	}
	median := c.items[mid]
	clear(c.items[mid:c.n])
	c.n = mid
	copy(n.items[i+1:n.n+1], n.items[i:n.n])
	copy(n.kids()[i+2:n.n+2], n.kids()[i+1:n.n+1])
	n.items[i], n.kids()[i+1] = median, right
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
	n := t.own(pp)
	i, found := t.find(n, key, h, depth)
	if !n.inner {
		prev := n.items[i]
		removeItem(n, i)
		return prev
	}
	var prev memEntry
	if found {
		// Replace it by its predecessor, the greatest entry of child i.
		prev = n.items[i]
		n.items[i] = t.delMax(&n.kids()[i])
	} else {
		prev = t.del(&n.kids()[i], key, h, depth+1)
	}
	t.rebalance(n, i)
	return prev
}

// delMax removes and returns the greatest entry of the subtree at *pp.
func (t *memTree) delMax(pp **memNode) memEntry {
	n := t.own(pp)
	if !n.inner {
		e := n.items[n.n-1]
		removeItem(n, n.n-1)
		return e
	}
	e := t.delMax(&n.kids()[n.n])
	t.rebalance(n, n.n)
	return e
}

func removeItem(n *memNode, i int) {
	copy(n.items[i:n.n-1], n.items[i+1:n.n])
	n.n--
	n.items[n.n] = memEntry{}
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
	left, c := t.own(&n.kids()[i-1]), n.kids()[i]
	copy(c.items[1:c.n+1], c.items[:c.n])
	c.items[0] = n.items[i-1]
	if c.inner {
		copy(c.kids()[1:c.n+2], c.kids()[:c.n+1])
		c.kids()[0] = left.kids()[left.n]
		left.kids()[left.n] = nil
	}
	c.n++
	n.items[i-1] = left.items[left.n-1]
	left.n--
	left.items[left.n] = memEntry{}
}

// takeRight moves n's entry i down to the end of child i and the first
// entry (and child) of child i+1 up in its place.
func (t *memTree) takeRight(n *memNode, i int) {
	c, right := n.kids()[i], t.own(&n.kids()[i+1])
	c.items[c.n] = n.items[i]
	if c.inner {
		c.kids()[c.n+1] = right.kids()[0]
		copy(right.kids()[:right.n], right.kids()[1:right.n+1])
		right.kids()[right.n] = nil
	}
	c.n++
	n.items[i] = right.items[0]
	removeItem(right, 0)
}

// merge joins n's children i and i+1 and the entry between them into
// child i and removes entry i and child i+1 from n.
func (t *memTree) merge(n *memNode, i int) {
	left, right := t.own(&n.kids()[i]), n.kids()[i+1]
	left.items[left.n] = n.items[i]
	copy(left.items[left.n+1:], right.items[:right.n])
	if left.inner {
		copy(left.kids()[left.n+1:], right.kids()[:right.n+1])
	}
	left.n += right.n + 1
	copy(n.items[i:n.n-1], n.items[i+1:n.n])
	copy(n.kids()[i+1:n.n], n.kids()[i+2:n.n+1])
	n.kids()[n.n] = nil
	n.n--
	n.items[n.n] = memEntry{}
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
	for ; i < n.n; i++ {
		if !fn(n.items[i]) {
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
	if found {
		if !fn(n.items[i]) {
			return false
		}
		pivot = nil // child i is all below it
	}
	if n.inner && !t.descend(n.kids()[i], pivot, fn) {
		return false
	}
	for i--; i >= 0; i-- {
		if !fn(n.items[i]) {
			return false
		}
		if n.inner && !t.descend(n.kids()[i], nil, fn) {
			return false
		}
	}
	return true
}
