package expressions

import (
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
)

// maxPathDepth is DynamoDB's limit on document path nesting (32 levels).
const maxPathDepth = 32

// resolver substitutes ExpressionAttributeNames and ExpressionAttributeValues
// into parsed expressions and remembers which were used, across every
// expression of one request, for the "unused" checks.
type resolver struct {
	names      map[string]string
	values     map[string]attr.Value
	usedNames  map[string]bool
	usedValues map[string]bool
	// unbound leaves value placeholders unresolved (only recording them as
	// used), for a Cache template that is bound to each request's values.
	unbound bool
}

// collect appends, depth first in source order, every operand reachable from ops.
func collect(dst []*operand, ops ...*operand) []*operand {
	for _, o := range ops {
		dst = append(dst, o)
		dst = collect(dst, o.args...)
	}
	return dst
}

// operands returns every operand of c in source order.
func (c *Condition) operands(dst []*operand) []*operand {
	for _, s := range c.sub {
		dst = s.operands(dst)
	}
	return collect(dst, c.args...)
}

// resolve fills in the paths and values of ops. It first looks for reserved
// words and over-deep paths in the whole expression (DynamoDB finds those while
// parsing), then substitutes placeholders in source order.
func (r *resolver) resolve(k kind, ops []*operand) error {
	for _, o := range ops {
		if o.kind != opPath {
			continue
		}
		for _, raw := range o.raw {
			if raw[0] != '#' && raw[0] != '[' && isReserved(raw) {
				return k.errf(o.pos, "Attribute name is a reserved keyword; reserved keyword: %s", raw)
			}
		}
		if len(o.raw) > maxPathDepth {
			// 32 steps pass; DynamoDB's message for 33: "...; nesting levels: 33".
			return k.errf(o.pos, "The document path has too many nesting levels; nesting levels: %d", len(o.raw))
		}
	}
	for _, o := range ops {
		switch o.kind {
		case opPath:
			o.path = make(Path, len(o.raw))
			for i, raw := range o.raw {
				switch raw[0] {
				case '#':
					name, ok := r.names[raw]
					if !ok {
						return k.errf(o.pos, "An expression attribute name used in the document path is not defined; attribute name: %s", raw)
					}
					r.markName(raw)
					o.path[i] = PathElem{Name: name, Index: -1}
				case '[':
					n, _ := strconv.Atoi(raw[1 : len(raw)-1]) // the parser checked it fits
					o.path[i] = PathElem{Index: n}
				default:
					o.path[i] = PathElem{Name: raw, Index: -1}
				}
			}
		case opValue:
			v, ok := r.values[o.name]
			if !ok && !r.unbound {
				return k.errf(o.pos, "An expression attribute value used in expression is not defined; attribute value: %s", o.name)
			}
			if r.usedValues == nil {
				r.usedValues = make(map[string]bool, len(r.values))
			}
			r.usedValues[o.name] = true
			o.value = v
		}
	}
	return nil
}

func (r *resolver) markName(raw string) {
	if r.usedNames == nil {
		r.usedNames = make(map[string]bool, len(r.names))
	}
	r.usedNames[raw] = true
}

// unused returns the error for names or values that no expression used, or nil.
// DynamoDB reports names before values.
func (r *resolver) unused() error {
	var keys []string
	for k := range r.names {
		if !r.usedNames[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		return plainErr("Value provided in ExpressionAttributeNames unused in expressions: keys: %s", joinKeys(keys))
	}
	for k := range r.values {
		if !r.usedValues[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		return plainErr("Value provided in ExpressionAttributeValues unused in expressions: keys: %s", joinKeys(keys))
	}
	return nil
}
