// Package changelog defines the record every write appends to its table's change
// log: the one source for GSI maintenance, streams and eventually consistent reads.
// The store keeps records as opaque bytes; this package fixes their format.
package changelog

import (
	"encoding/binary"
	"errors"
)

// Record is one committed change to one item. Old is nil for an insert, New is nil
// for a delete. Images are attr's binary item encoding, so consumers decode only
// what they need.
type Record struct {
	Time int64  // commit time, Unix nanoseconds
	Key  []byte // the item's storage key
	Old  []byte // the item before the write, or nil
	New  []byte // the item after the write, or nil
	// Expired marks a deletion made by Time to Live rather than a request:
	// streams give it the service's userIdentity.
	Expired bool
	// Origin is the Region whose replica the write was made in when it was
	// replicated here from another replica of a global table ("" for a
	// write made in this table), and OriginTime its commit time there (Unix
	// nanoseconds): replication does not send such a record on again, and
	// last-writer-wins compares OriginTime.
	Origin     string
	OriginTime int64
}

// errCorrupt is returned by Decode for bytes that no Append produced.
var errCorrupt = errors.New("changelog: corrupt record")

// Format versions: 2 adds a flags byte after the version, written only
// when a flag is set, so ordinary records keep version 1's bytes.
// flagReplicated appends the origin (uvarint length, bytes) and its time
// (varint) after the images.
const (
	version        = 1
	versionFlags   = 2
	flagExpired    = 1
	flagReplicated = 2
	knownFlags     = flagExpired | flagReplicated
)

// Append appends r's encoding to dst and returns the extended slice.
func Append(dst []byte, r Record) []byte {
	var flags byte
	if r.Expired {
		flags |= flagExpired
	}
	if r.Origin != "" {
		flags |= flagReplicated
	}
	if flags != 0 {
		dst = append(dst, versionFlags, flags)
	} else {
		dst = append(dst, version)
	}
	dst = binary.AppendVarint(dst, r.Time)
	for _, b := range [][]byte{r.Key, r.Old, r.New} {
		if b == nil {
			dst = binary.AppendUvarint(dst, 0)
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(len(b))+1)
		dst = append(dst, b...)
	}
	if flags&flagReplicated != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(r.Origin)))
		dst = append(dst, r.Origin...)
		dst = binary.AppendVarint(dst, r.OriginTime)
	}
	return dst
}

// Decode parses a record produced by Append. The returned slices alias b, so they
// are valid only as long as b is (inside the store transaction that read it).
func Decode(b []byte) (Record, error) {
	var r Record
	var flags byte
	switch {
	case len(b) > 0 && b[0] == version:
		b = b[1:]
	case len(b) > 1 && b[0] == versionFlags && b[1]&^knownFlags == 0:
		flags = b[1]
		r.Expired = flags&flagExpired != 0
		b = b[2:]
	default:
		return r, errCorrupt
	}
	t, n := binary.Varint(b)
	if n <= 0 {
		return r, errCorrupt
	}
	r.Time, b = t, b[n:]
	parts := [3]*[]byte{&r.Key, &r.Old, &r.New}
	for _, p := range parts {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n)+1 {
			return r, errCorrupt
		}
		b = b[n:]
		if l == 0 {
			continue
		}
		*p, b = b[:l-1:l-1], b[l-1:]
	}
	if flags&flagReplicated != 0 {
		var ok bool
		if r.Origin, r.OriginTime, b, ok = decodeOrigin(b); !ok {
			return r, errCorrupt
		}
	}
	if len(b) != 0 {
		return r, errCorrupt
	}
	return r, nil
}

// decodeOrigin decodes a replicated record's non-empty origin and its time
// from the start of b and returns the rest.
func decodeOrigin(b []byte) (origin string, t int64, rest []byte, ok bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l == 0 || l > uint64(len(b)-n) {
		return "", 0, nil, false
	}
	origin, b = string(b[n:n+int(l)]), b[n+int(l):]
	t, n = binary.Varint(b)
	if n <= 0 {
		return "", 0, nil, false
	}
	return origin, t, b[n:], true
}
