package replication

import (
	"github.com/ddblocal/ddblocal/store"
)

// Enable makes the table whose space is tableID a replica, inside the
// caller's transaction tx: it creates the table's versions space and starts
// its stamp at the table's last log sequence, so writes made before have the
// zero Version. The caller must log the table's writes from then on. Enabling
// a replica again changes nothing. It returns ErrTableNotFound when the
// table's space does not exist, and the store's write errors.
func Enable(tx *store.Tx, tableID string) error {
	tsp := tx.Space(tableID)
	if tsp == nil {
		return ErrTableNotFound
	}
	if _, ok, err := readState(tsp); ok || err != nil {
		return err
	}
	if tx.Space(VersionsSpace(tableID)) == nil {
		if err := tx.CreateSpace(VersionsSpace(tableID)); err != nil {
			return err
		}
	}
	return writeState(tsp, state{stamp: tsp.LastLogSeq()})
}

// Disable ends the table's part in replication inside tx: it drops its
// versions space and its state, with every link out of it. Links into it
// end by themselves (their batches find no versions space) but keep their
// sources' logs until Unlink removes them. It returns nil when the table's
// space is already gone (DropSpace has dropped its state with it), and the
// store's write errors.
func Disable(tx *store.Tx, tableID string) error {
	if tx.Space(VersionsSpace(tableID)) != nil {
		if err := tx.DropSpace(VersionsSpace(tableID)); err != nil {
			return err
		}
	}
	tsp := tx.Space(tableID)
	if tsp == nil {
		return nil
	}
	return tsp.PutMeta(stateMeta, nil)
}

// Link starts replication from the replica whose space is source to the one
// whose space is target, inside tx: the link handles the source's log records
// after sequence after (the source's LastLogSeq for a new link whose target
// receives what came before through a copy or another link). With copy set,
// the link first copies the source's items and tombstones, with their
// versions. Linking an existing link changes nothing. It returns
// ErrTableNotFound or ErrNotReplica when either table is missing or not
// enabled, and the store's errors.
func Link(tx *store.Tx, source, target string, after uint64, copy bool) error {
	tsp := tx.Space(source)
	if tsp == nil || tx.Space(target) == nil {
		return ErrTableNotFound
	}
	st, ok, err := readState(tsp)
	if err != nil {
		return err
	}
	if _, tok, err := readState(tx.Space(target)); !ok || !tok || err != nil {
		if err != nil {
			return err
		}
		return ErrNotReplica
	}
	if st.find(target) != nil {
		return nil
	}
	l := link{name: target, wm: after}
	if copy {
		l.copying = copyItems
	}
	st.links = append(st.links, l)
	return writeState(tsp, st)
}

// Unlink ends replication from source to target inside tx, releasing the
// source's log. Unlinking an absent link, or from a table that is gone or
// not a replica, changes nothing. It returns the store's errors.
func Unlink(tx *store.Tx, source, target string) error {
	tsp := tx.Space(source)
	if tsp == nil {
		return nil
	}
	st, ok, err := readState(tsp)
	if !ok || err != nil {
		return err
	}
	for i, l := range st.links {
		if l.name == target {
			st.links = append(st.links[:i:i], st.links[i+1:]...)
			return writeState(tsp, st)
		}
	}
	return nil
}

// Watermark returns the watermark of the link from source to target as tx
// sees it: the last source log record it has handled, and whether its
// initial copy has finished. ok is false when there is no such link.
func Watermark(tx *store.Tx, source, target string) (wm uint64, copied, ok bool) {
	tsp := tx.Space(source)
	if tsp == nil {
		return 0, false, false
	}
	st, found, err := readState(tsp)
	if !found || err != nil {
		return 0, false, false
	}
	l := st.find(target)
	if l == nil {
		return 0, false, false
	}
	return l.wm, l.copying == copyDone, true
}

// Floor returns the sequence after which the change log of the table whose
// space is tableID must be kept for replication: the lowest of its stamp and
// its links' watermarks. ok is false when the table is not a replica (nothing
// is kept for replication). A trimmer must delete no record after floor.
func Floor(tx *store.Tx, tableID string) (floor uint64, ok bool) {
	tsp := tx.Space(tableID)
	if tsp == nil {
		return 0, false
	}
	st, found, err := readState(tsp)
	if err != nil {
		return 0, true // keep everything rather than trim what may be needed
	}
	if !found {
		return 0, false
	}
	floor = st.stamp
	for _, l := range st.links {
		floor = min(floor, l.wm)
	}
	return floor, true
}
