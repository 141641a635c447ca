package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tidwall/btree"
)

// treeTwin is a memTree and its plain twin, the tidwall B-tree the memory
// engine used before, over one arena, changed alike.
type treeTwin struct {
	a    *arena
	tree *memTree
	twin *btree.BTreeG[memEntry]
}

func newTreeTwin() *treeTwin {
	a := newArena()
	keys := func(x, y memEntry) int { return bytes.Compare(a.key(x), a.key(y)) }
	less := func(x, y memEntry) bool {
		if x.pre != y.pre {
			return lessPre(x.pre, y.pre)
		}
		return keys(x, y) < 0
	}
	return &treeTwin{a: a, tree: newMemTree(keys),
		twin: btree.NewBTreeGOptions(less, btree.Options{Degree: memDegree, NoLocks: true})}
}

// modelKey returns key number i: a long shared prefix for some numbers, so
// that entries with equal prefixes are ordered by their keys.
func modelKey(i int) []byte {
	if i%3 == 0 {
		return fmt.Appendf(nil, "%030d/%d", 0, i)
	}
	return fmt.Appendf(nil, "k%07d", i)
}

// TestMemTreeModel changes a memTree and its twin alike with random puts,
// replacements and deletes, growing the trees to three levels and
// shrinking them to nothing again, copying them on the way; after every
// step each operation's answer, and at checkpoints every copy's contents,
// ascents and descents from random pivots, and the tree's shape (sorted,
// every node but the root at least half full, leaves at one depth), must
// agree.
func TestMemTreeModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { testMemTreeModel(t, seed) })
	}
}

func testMemTreeModel(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := newTreeTwin()
	type copied struct {
		tree *memTree
		twin *btree.BTreeG[memEntry]
	}
	var copies []copied
	var hint memHint
	deepest := 0
	rooms := map[int]int{} // inner nodes seen, by room
	const keys = 6000
	for step := range 60000 {
		grow := step%30000 < 18000 // grow, then shrink, twice
		k := modelKey(rng.IntN(keys))
		if rng.IntN(4) == 0 {
			k = modelKey(rng.IntN(keys / 40)) // a crowded corner: many replacements
		}
		switch r := rng.IntN(10); {
		case r < 5 && grow, r < 2:
			e := m.a.store(k, fmt.Appendf(nil, "v%d", step))
			prev, replaced := m.tree.SetHint(e, &hint)
			prev2, replaced2 := m.twin.Set(e)
			if replaced != replaced2 || prev != prev2 {
				t.Fatalf("step %d: set %q: %v %v, twin %v %v", step, k, prev, replaced, prev2, replaced2)
			}
		case r < 9:
			pe := m.a.store(k, nil)
			prev, deleted := m.tree.DeleteHint(pe, &hint)
			prev2, deleted2 := m.twin.Delete(pe)
			if deleted != deleted2 || prev != prev2 {
				t.Fatalf("step %d: delete %q: %v %v, twin %v %v", step, k, prev, deleted, prev2, deleted2)
			}
		default:
			pe := m.a.store(k, nil)
			got, ok := m.tree.GetHint(pe, &hint)
			got2, ok2 := m.twin.Get(pe)
			if ok != ok2 || got != got2 {
				t.Fatalf("step %d: get %q: %v %v, twin %v %v", step, k, got, ok, got2, ok2)
			}
		}
		if step%2000 == 0 {
			copies = append(copies, copied{m.tree, m.twin})
			m.tree, m.twin = m.tree.Copy(), m.twin.Copy()
		}
		if step%5000 == 4999 {
			if d := checkShapeRooms(t, m.tree, rooms); d > deepest {
				deepest = d
			}
			for _, c := range append(copies, copied{m.tree, m.twin}) {
				compareTrees(t, rng, m.a, c.tree, c.twin)
			}
		}
	}
	for i := range keys {
		pe := m.a.store(modelKey(i), nil)
		_, deleted := m.tree.DeleteHint(pe, &hint)
		if _, deleted2 := m.twin.Delete(pe); deleted != deleted2 {
			t.Fatalf("final delete %d: %v, twin %v", i, deleted, deleted2)
		}
		if i%500 == 0 {
			checkShape(t, m.tree)
		}
	}
	if deepest < 2 {
		t.Errorf("the tree grew to depth %d, not 2 (three levels)", deepest)
	}
	for _, room := range []int{7, 17, 23, memMaxItems} {
		if rooms[room] == 0 {
			t.Errorf("no inner node of room %d in the checked trees (%v)", room, rooms)
		}
	}
	if m.tree.root != nil {
		t.Errorf("after deleting every key, the root holds %d entries", m.tree.root.n)
	}
	for _, c := range copies {
		compareTrees(t, rng, m.a, c.tree, c.twin)
	}
}

// compareTrees checks that tree and twin hold the same entries and that
// ascents and descents from random pivots, stopped at random, visit the
// same ones.
func compareTrees(t *testing.T, rng *rand.Rand, a *arena, tree *memTree, twin *btree.BTreeG[memEntry]) {
	t.Helper()
	collect := func(walk func(func(memEntry) bool), stop int) []memEntry {
		var got []memEntry
		walk(func(e memEntry) bool {
			got = append(got, e)
			return len(got) != stop
		})
		return got
	}
	same := func(what string, x, y []memEntry) {
		t.Helper()
		if len(x) != len(y) {
			t.Fatalf("%s: %d entries, twin %d", what, len(x), len(y))
		}
		for i := range x {
			if x[i] != y[i] {
				t.Fatalf("%s: entry %d differs: %q, twin %q", what, i, a.key(x[i]), a.key(y[i]))
			}
		}
	}
	same("scan", collect(tree.Scan, -1), collect(twin.Scan, -1))
	same("reverse", collect(tree.Reverse, -1), collect(twin.Reverse, -1))
	for range 20 {
		pivot := a.store(modelKey(rng.IntN(6000)), nil)
		if rng.IntN(2) == 0 {
			pivot = a.store(append(modelKey(rng.IntN(6000)), '!'), nil) // between keys
		}
		stop := rng.IntN(100) - 1 // -1: to the end
		walk := func(f func(memEntry, func(memEntry) bool)) func(func(memEntry) bool) {
			return func(fn func(memEntry) bool) { f(pivot, fn) }
		}
		same("ascend", collect(walk(tree.Ascend), stop), collect(walk(twin.Ascend), stop))
		same("descend", collect(walk(tree.Descend), stop), collect(walk(twin.Descend), stop))
	}
}

// checkShape checks tree's B-tree invariants and returns its leaves' depth.
func checkShape(t *testing.T, tree *memTree) int {
	t.Helper()
	return checkShapeRooms(t, tree, nil)
}

// checkShapeRooms is checkShape that also counts the inner nodes of each
// room in rooms, when not nil.
func checkShapeRooms(t *testing.T, tree *memTree, rooms map[int]int) int {
	t.Helper()
	leafDepth := -1
	var walk func(n *memNode, depth int, lo, hi *memEntry)
	walk = func(n *memNode, depth int, lo, hi *memEntry) {
		if n != tree.root && n.n < memMinItems || n.n > memMaxItems || n.n == 0 || n.n > n.cap {
			t.Fatalf("node at depth %d holds %d entries (room for %d)", depth, n.n, n.cap)
		}
		for i := range n.n {
			if i > 0 && tree.cmp(n.items()[i-1], n.items()[i]) >= 0 ||
				lo != nil && tree.cmp(*lo, n.items()[i]) >= 0 || hi != nil && tree.cmp(n.items()[i], *hi) >= 0 {
				t.Fatalf("node at depth %d out of order at %d", depth, i)
			}
		}
		if n.inner && rooms != nil {
			rooms[n.cap]++
		}
		if !n.inner {
			if leafDepth >= 0 && depth != leafDepth {
				t.Fatalf("leaves at depths %d and %d", leafDepth, depth)
			}
			leafDepth = depth
			return
		}
		for i := 0; i <= n.n; i++ {
			klo, khi := lo, hi
			if i > 0 {
				klo = &n.items()[i-1]
			}
			if i < n.n {
				khi = &n.items()[i]
			}
			walk(n.kids()[i], depth+1, klo, khi)
		}
	}
	if tree.root != nil {
		walk(tree.root, 0, nil, nil)
	}
	return leafDepth
}

// TestMemTreeCopyIsolation changes a copy of a tree until every node has
// been copied and the original as well, and checks that neither shows
// the other's changes.
func TestMemTreeCopyIsolation(t *testing.T) {
	m := newTreeTwin()
	for i := range 3000 {
		m.tree.Load(m.a.store(modelKey(i), []byte("a")))
	}
	c := m.tree.Copy()
	for i := range 3000 {
		if i%2 == 0 {
			c.SetHint(m.a.store(modelKey(i), []byte("b")), nil)
		} else {
			c.DeleteHint(m.a.store(modelKey(i), nil), nil)
		}
	}
	m.tree.SetHint(m.a.store(modelKey(5000), []byte("c")), nil)
	count := func(tr *memTree, val string) (n, other int) {
		tr.Scan(func(e memEntry) bool {
			if string(m.a.val(e)) == val {
				n++
			} else {
				other++
			}
			return true
		})
		return n, other
	}
	if n, other := count(m.tree, "a"); n != 3000 || other != 1 {
		t.Errorf("original: %d entries of a, %d others; want 3000 and 1", n, other)
	}
	if n, other := count(c, "b"); n != 1500 || other != 0 {
		t.Errorf("copy: %d entries of b, %d others; want 1500 and 0", n, other)
	}
	checkShape(t, m.tree)
	checkShape(t, c)
}

// TestMemTreePivotComparedFirst checks that Ascend and Descend compare with
// their pivot only before the first entry is visited (the probe slot of a
// search's pivot is freed at its first visit). Every key shares its first
// 24 bytes, so that every comparison reaches the keys function.
func TestMemTreePivotComparedFirst(t *testing.T) {
	a := newArena()
	visited := false
	var pivotKey []byte
	key := func(e memEntry) []byte {
		if e.ref&probeRef != 0 {
			if visited {
				t.Fatal("compared with the pivot after a visit")
			}
			return pivotKey
		}
		return a.key(e)
	}
	tree := newMemTree(func(x, y memEntry) int { return bytes.Compare(key(x), key(y)) })
	long := func(i int) []byte { return fmt.Appendf(nil, "%030d/%05d", 0, i) }
	for i := range 2000 {
		tree.Load(a.store(long(2*i), nil))
	}
	for p := -1; p <= 4000; p++ { // every key, every gap and both ends
		pivotKey = long(p)
		pivot := memEntry{pre: prefixOf(pivotKey), ref: probeRef}
		above, below := 0, 0 // keys not below p, not above p
		for i := range 2000 {
			if 2*i >= p {
				above++
			}
			if 2*i <= p {
				below++
			}
		}
		for _, w := range []struct {
			walk func(memEntry, func(memEntry) bool)
			want int
		}{{tree.Ascend, above}, {tree.Descend, below}} {
			visited = false
			n := 0
			w.walk(pivot, func(memEntry) bool { visited = true; n++; return true })
			if n != w.want {
				t.Errorf("pivot %d: %d visited, want %d", p, n, w.want)
			}
		}
	}
}

// TestMemTreeLeafRoom checks leafRoom's sizes and that a leaf is allocated
// for what it holds: a small keyspace's copied root is small, and a leaf
// one transaction keeps filling grows until it splits.
func TestMemTreeLeafRoom(t *testing.T) {
	prev := 0
	for m := 0; m <= memMaxItems; m++ {
		r := leafRoom(m)
		if r < max(m, 1) || r > memMaxItems || r < prev {
			t.Fatalf("leafRoom(%d) = %d after %d", m, r, prev)
		}
		prev = r
	}
	if leafRoom(memMaxItems) != memMaxItems {
		t.Fatalf("leafRoom(%d) = %d", memMaxItems, leafRoom(memMaxItems))
	}
	m := newTreeTwin()
	for i := range 3 {
		m.tree.SetHint(m.a.store(modelKey(i), nil), nil)
	}
	c := m.tree.Copy()
	c.SetHint(m.a.store(modelKey(3), nil), nil)
	if r := c.root; r.inner || r.n != 4 || r.cap != leafRoom(4) {
		t.Fatalf("a copied root of 4 entries has room for %d (inner %v, %d entries); want %d", r.cap, r.inner, r.n, leafRoom(4))
	}
	if m.tree.root.n != 3 {
		t.Fatalf("the original root holds %d entries, not 3", m.tree.root.n)
	}
	for i := 4; i < 200; i++ {
		c.SetHint(m.a.store(modelKey(i), nil), nil)
	}
	if d := checkShape(t, c); d != 1 {
		t.Fatalf("200 entries at depth %d, want 1", d)
	}
}

// TestSetLeafMatchesPlain: setLeaf (search first, a copy built with the
// entry in place) and its twin setLeafPlain (own with room for one more,
// then insert) leave the same entries in the leaf, in the same order, and
// answer the same, for leaves of every count from 1 to one short of full,
// owned by the tree or shared with a copy, with and without spare room,
// the entry going at every position or replacing every entry; and a
// shared leaf is left as it was.
func TestSetLeafMatchesPlain(t *testing.T) {
	a := newArena()
	keys := func(x, y memEntry) int { return bytes.Compare(a.key(x), a.key(y)) }
	entry := func(i, v int) memEntry {
		return a.store(fmt.Appendf(nil, "k%04d", i), fmt.Appendf(nil, "v%d", v))
	}
	for count := 1; count < memMaxItems; count++ {
		for _, owned := range []bool{true, false} {
			for _, spare := range []int{0, 1, 5} {
				for pos := 0; pos <= 2*count; pos++ { // even: between entries; odd: replaces one
					tree := newMemTree(keys)
					leaf := tree.newNode(false, min(count+spare, memMaxItems))
					for j := range count {
						leaf.items()[j] = entry(2*j+1, 0)
					}
					leaf.n = count
					before := append([]memEntry(nil), leaf.items()[:count]...)
					if !owned {
						tree.Copy() // tree no longer owns leaf
					}
					e := entry(pos, 1)
					fast, plain := leaf, leaf // shared: each twin copies it
					if owned {
						plain = tree.newNode(false, leaf.cap)
						copy(plain.items(), leaf.items()[:count])
						plain.n = count
					}
					var h1, h2 memHint
					p1, r1 := tree.setLeaf(&fast, e, &h1, 0)
					p2, r2 := tree.setLeafPlain(&plain, e, &h2, 0)
					name := fmt.Sprintf("count %d owned %v spare %d pos %d", count, owned, spare, pos)
					if p1 != p2 || r1 != r2 {
						t.Fatalf("%s: setLeaf = %v %v, plain %v %v", name, p1, r1, p2, r2)
					}
					got, want := fast.items()[:fast.n], plain.items()[:plain.n]
					if len(got) != len(want) || fast.n > fast.cap || fast.owner != tree.owner {
						t.Fatalf("%s: setLeaf left %d entries (room %d, owner %d), plain %d (owner %d)", name, fast.n, fast.cap, fast.owner, plain.n, tree.owner)
					}
					for j := range got {
						if got[j] != want[j] {
							t.Fatalf("%s: entry %d = %v, plain %v", name, j, got[j], want[j])
						}
					}
					if !owned {
						if leaf.n != count || fast == leaf {
							t.Fatalf("%s: the shared leaf was changed", name)
						}
						for j := range before {
							if leaf.items()[j] != before[j] {
								t.Fatalf("%s: shared leaf entry %d changed", name, j)
							}
						}
					}
				}
			}
		}
	}
}
