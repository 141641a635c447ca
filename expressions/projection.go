package expressions

import (
	"sort"

	"github.com/ddblocal/ddblocal/attr"
)

// projNode is one level of a projection tree: either the whole value is kept
// (all), or only the named map entries / indexed list elements below it.
type projNode struct {
	all     bool
	names   map[string]*projNode
	indexes map[int]*projNode
}

// buildTree merges paths into one tree. A path that is a prefix of another
// keeps the whole value (DynamoDB rejects such overlaps in expressions, but
// ProjectPaths may be given any paths).
func buildTree(paths []Path) *projNode {
	root := &projNode{}
	for _, p := range paths {
		n := root
		for _, e := range p {
			if n.all {
				break
			}
			if e.Index >= 0 {
				if n.indexes == nil {
					n.indexes = map[int]*projNode{}
				}
				if n.indexes[e.Index] == nil {
					n.indexes[e.Index] = &projNode{}
				}
				n = n.indexes[e.Index]
			} else {
				if n.names == nil {
					n.names = map[string]*projNode{}
				}
				if n.names[e.Name] == nil {
					n.names[e.Name] = &projNode{}
				}
				n = n.names[e.Name]
			}
		}
		n.all, n.names, n.indexes = true, nil, nil
	}
	return root
}

// project returns the part of v that n keeps, and false when nothing is kept
// (DynamoDB omits an attribute none of whose projected parts exist).
func (n *projNode) project(v attr.Value) (attr.Value, bool) {
	if n.all {
		return v, true
	}
	switch {
	case v.T == attr.TypeM && n.names != nil:
		m := make(map[string]attr.Value, len(n.names))
		for name, c := range n.names {
			if x, ok := v.M[name]; ok {
				if px, ok := c.project(x); ok {
					m[name] = px
				}
			}
		}
		return attr.Map(m), len(m) > 0
	case v.T == attr.TypeL && n.indexes != nil:
		// Projected list elements are compacted, in index order.
		idx := make([]int, 0, len(n.indexes))
		for i := range n.indexes {
			if i < len(v.L) {
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
		var l []attr.Value
		for _, i := range idx {
			if px, ok := n.indexes[i].project(v.L[i]); ok {
				l = append(l, px)
			}
		}
		return attr.List(l), len(l) > 0
	}
	return attr.Value{}, false
}

// projectItem applies a projection tree to an item.
func (n *projNode) projectItem(item attr.Item) attr.Item {
	if item == nil {
		return nil
	}
	out := make(attr.Item, len(n.names))
	for name, c := range n.names {
		if v, ok := item[name]; ok {
			if pv, ok := c.project(v); ok {
				out[name] = pv
			}
		}
	}
	return out
}

// Apply returns a new item holding only the projected paths of item (nil for a
// nil item). Nested map paths keep their enclosing structure; projected list
// elements are compacted in index order, as DynamoDB returns them. Values are
// shared with item, not copied.
func (p *Projection) Apply(item attr.Item) attr.Item {
	if p.tree == nil {
		return buildTree(p.Paths()).projectItem(item)
	}
	return p.tree.projectItem(item)
}

// ProjectPaths returns a new item holding only the given paths of item, with the
// same rules as Projection.Apply (used for ReturnValues UPDATED_OLD/UPDATED_NEW).
func ProjectPaths(item attr.Item, paths []Path) attr.Item {
	return buildTree(paths).projectItem(item)
}
