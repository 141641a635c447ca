package replication

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/store"
)

// stateMeta names the meta record, in a replica's table space, that holds
// its replication state. One record (rather than one per link) lets Floor
// see every link without a list of them from the caller.
const stateMeta = "replication"

// state is one replica's replication state.
type state struct {
	// stamp is the last record of the table's own change log whose version
	// is recorded in its versions space.
	stamp uint64
	links []link // the links whose source is this table, by name
}

// link is one link whose source is the table holding the state.
type link struct {
	name string // the target's table space id
	wm   uint64 // the last source record handled
	// copying is the phase of the initial copy; cursor is the last key it
	// copied in that phase (nil: none yet).
	copying phase
	cursor  []byte
}

// phase is where a link's initial copy stands.
type phase byte

const (
	copyDone       phase = iota // copied, or never asked to: the link tails the log
	copyItems                   // copying the source's items
	copyTombstones              // copying the source's tombstones
)

// find returns the link to target, or nil.
func (st *state) find(target string) *link {
	i := slices.IndexFunc(st.links, func(l link) bool { return l.name == target })
	if i < 0 {
		return nil
	}
	return &st.links[i]
}

// readState decodes tsp's replication state; ok is false when the table is
// not a replica (never enabled, or disabled: the store cannot delete a meta
// value, so Disable stores it empty).
func readState(tsp *store.Space) (st state, ok bool, err error) {
	b := tsp.GetMeta(stateMeta)
	if len(b) == 0 {
		return st, false, nil
	}
	var n int
	if st.stamp, n = binary.Uvarint(b); n <= 0 {
		return st, false, errBadState
	}
	b = b[n:]
	for len(b) > 0 {
		var l link
		if l, b, err = decodeLink(b); err != nil {
			return st, false, err
		}
		st.links = append(st.links, l)
	}
	return st, true, nil
}

// decodeLink decodes one link from the start of b and returns the rest:
// name length and name, watermark, copy phase byte, cursor length+1 (0 = nil)
// and cursor.
func decodeLink(b []byte) (link, []byte, error) {
	var l link
	name, b, ok := uvarintBytes(b, 0)
	if !ok {
		return l, nil, errBadState
	}
	wm, n := binary.Uvarint(b)
	if n <= 0 || len(b) == n || phase(b[n]) > copyTombstones {
		return l, nil, errBadState
	}
	l.name, l.wm, l.copying, b = string(name), wm, phase(b[n]), b[n+1:]
	cur, b, ok := uvarintBytes(b, 1)
	if !ok {
		return l, nil, errBadState
	}
	l.cursor = cur
	return l, b, nil
}

// uvarintBytes decodes a length (minus bias; bias 1 lets 0 mean nil) and
// that many bytes from the start of b.
func uvarintBytes(b []byte, bias uint64) ([]byte, []byte, bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n)+bias {
		return nil, nil, false
	}
	b = b[n:]
	if bias == 1 && l == 0 {
		return nil, b, true
	}
	l -= bias
	return slices.Clone(b[:l]), b[l:], true
}

// writeState stores st, its links sorted by name so the bytes are
// deterministic.
func writeState(tsp *store.Space, st state) error {
	links := slices.Clone(st.links)
	slices.SortFunc(links, func(x, y link) int { return strings.Compare(x.name, y.name) })
	b := binary.AppendUvarint(nil, st.stamp)
	for _, l := range links {
		b = binary.AppendUvarint(b, uint64(len(l.name)))
		b = append(b, l.name...)
		b = binary.AppendUvarint(b, l.wm)
		b = append(b, byte(l.copying))
		if l.cursor == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(l.cursor))+1)
			b = append(b, l.cursor...)
		}
	}
	return tsp.PutMeta(stateMeta, b)
}
