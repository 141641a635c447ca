package replication

import (
	"encoding/binary"
	"errors"

	"github.com/ddblocal/ddblocal/store"
)

// Version names the write that last changed an item of a replica.
type Version struct {
	Time    int64  // the write's commit time in its origin Region, Unix nanoseconds
	Region  string // the Region whose replica the write was made in
	Deleted bool   // the write deleted the item: the version is a tombstone
}

// Wins reports whether a write of version v replaces an item whose version is
// cur under last-writer-wins: v is later, or as late and from a greater
// Region name. Equal versions are the same write: it does not win again.
func (v Version) Wins(cur Version) bool {
	if v.Time != cur.Time {
		return v.Time > cur.Time
	}
	return v.Region > cur.Region
}

// IsZero reports whether v is the version of an item written before its
// table became a replica: any replicated write wins over it.
func (v Version) IsZero() bool { return v == Version{} }

// VersionsSpace returns the id of the space that holds the versions of the
// items of the replica whose table space is tableID. Index names cannot
// contain '~', so it never collides with an index's "<tableID>/<name>".
func VersionsSpace(tableID string) string { return tableID + "/~versions" }

// errBadVersion is returned for stored version bytes no putVersion wrote.
var errBadVersion = errors.New("replication: corrupt version")

// A stored version is: varint time, one byte (1 = deleted), uvarint seq,
// the Region. seq is the replica's own log sequence of the write for a
// version stamped from it, 0 for one replicated or copied in: it tells the
// links out of the replica whether the version still belongs to that record.
func appendVersion(dst []byte, v Version, seq uint64) []byte {
	dst = binary.AppendVarint(dst, v.Time)
	var del byte
	if v.Deleted {
		del = 1
	}
	dst = append(dst, del)
	dst = binary.AppendUvarint(dst, seq)
	return append(dst, v.Region...)
}

func decodeVersion(b []byte) (Version, uint64, error) {
	t, n := binary.Varint(b)
	if n <= 0 || len(b) == n || b[n] > 1 {
		return Version{}, 0, errBadVersion
	}
	v := Version{Time: t, Deleted: b[n] == 1}
	b = b[n+1:]
	seq, n := binary.Uvarint(b)
	if n <= 0 {
		return Version{}, 0, errBadVersion
	}
	v.Region = string(b[n:])
	return v, seq, nil
}

// readVersion returns key's version in versions space vsp and its seq (see
// appendVersion), and whether it has one.
func readVersion(vsp *store.Space, key []byte) (Version, uint64, bool, error) {
	b := vsp.Get(key)
	if b == nil {
		return Version{}, 0, false, nil
	}
	v, seq, err := decodeVersion(b)
	return v, seq, err == nil, err
}

func putVersion(vsp *store.Space, key []byte, v Version, seq uint64) error {
	return vsp.PutOwned(key, appendVersion(nil, v, seq))
}

// ItemVersion returns the version of the item under storage key key in the
// replica whose table space is tableID, as tx sees it: the zero Version and
// false when the item has none recorded (it was written before the table
// became a replica, or by a write whose version is not stamped yet), or the
// table is not a replica. It returns errBadVersion-wrapping errors only for
// corrupt bytes.
func ItemVersion(tx *store.Tx, tableID string, key []byte) (Version, bool, error) {
	vsp := tx.Space(VersionsSpace(tableID))
	if vsp == nil {
		return Version{}, false, nil
	}
	v, _, ok, err := readVersion(vsp, key)
	return v, ok, err
}
