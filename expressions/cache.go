package expressions

import (
	"encoding/binary"
	"slices"
	"sync"
)

// Cache compiles requests as Compile does, remembering the parsed and
// name-resolved expressions by their texts and ExpressionAttributeNames, so
// that a request repeating another's expressions (with any values) skips
// lexing, parsing and name resolution. Values are bound to each request's
// copy of the trees, and the checks that depend on them run every time.
//
// A request that fails is always compiled again by Compile, so errors are
// exactly Compile's. The zero Cache is not usable; a nil *Cache compiles
// every request from scratch. A Cache is safe for concurrent use.
type Cache struct {
	max     int
	mu      sync.RWMutex
	entries map[string]*template
}

// NewCache returns a Cache holding at most size templates (at least one).
// When full, adding a template evicts an arbitrary one: expressions that
// recur keep coming back, while one-off texts need no better policy.
func NewCache(size int) *Cache {
	return &Cache{max: max(size, 1), entries: make(map[string]*template)}
}

// Len returns the number of templates the cache holds.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Compile returns what Compile(in) returns. Requests with legacy parameters
// are not cached (they are translated, not parsed).
func (c *Cache) Compile(in Input) (*Compiled, error) {
	if c == nil || hasLegacy(&in) {
		return Compile(in)
	}
	if err := checkParameterMix(&in); err != nil {
		return nil, err
	}
	if in.ConditionExpression == nil && in.FilterExpression == nil && in.KeyConditionExpression == nil &&
		in.ProjectionExpression == nil && in.UpdateExpression == nil {
		return &Compiled{}, nil // nothing to compile; names and values were rejected above
	}
	var buf [256]byte
	key := appendCacheKey(buf[:0], &in)
	c.mu.RLock()
	t := c.entries[string(key)]
	c.mu.RUnlock()
	if t == nil {
		var err error
		if t, err = prepare(&in); err != nil {
			return Compile(in)
		}
		c.add(string(key), t)
	}
	if out, ok := t.bind(in.Values); ok {
		return out, nil
	}
	return Compile(in)
}

// add stores t under key, evicting an arbitrary template when full.
func (c *Cache) add(key string, t *template) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = t
}

// hasLegacy reports whether in has any legacy parameter.
func hasLegacy(in *Input) bool {
	return in.Expected != nil || in.ConditionalOperator != nil || in.AttributeUpdates != nil ||
		in.AttributesToGet != nil || in.KeyConditions != nil || in.QueryFilter != nil || in.ScanFilter != nil
}

// appendCacheKey appends the key of in's template: each expression (or its
// absence) and the names, sorted, every string length-prefixed so that no
// two different inputs share a key.
func appendCacheKey(dst []byte, in *Input) []byte {
	for _, src := range []*string{in.UpdateExpression, in.ConditionExpression, in.KeyConditionExpression,
		in.FilterExpression, in.ProjectionExpression} {
		if src == nil {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		dst = appendKeyString(dst, *src)
	}
	if in.Names == nil {
		return dst
	}
	var small [8]string
	keys := small[:0]
	for k := range in.Names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = appendKeyString(dst, k)
		dst = appendKeyString(dst, in.Names[k])
	}
	return dst
}

func appendKeyString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}
