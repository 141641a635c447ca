package replication

import "errors"

// Errors returned by this package. Store errors are passed through unchanged.
var (
	// ErrClosed is returned by WaitFor once the Replicator has stopped,
	// because of Close or because its store was closed.
	ErrClosed = errors.New("replication: replicator closed")
	// ErrPaused is returned by WaitFor while the Replicator is paused: a
	// paused link does not catch up until it is resumed.
	ErrPaused = errors.New("replication: replicator paused")
	// ErrTableNotFound is returned by Enable and Link when a table's space
	// does not exist.
	ErrTableNotFound = errors.New("replication: table space not found")
	// ErrNotReplica is returned by Link when the source or the target has
	// not been made a replica by Enable.
	ErrNotReplica = errors.New("replication: table is not a replica")
	// ErrThrottled is what an Apply returns, having written nothing, when
	// the target has no write capacity for the change now: the link stops
	// before that change and tries it again on its next batch.
	ErrThrottled = errors.New("replication: target throttled")
	// errBadState is returned for a replication state record that no
	// writeState wrote.
	errBadState = errors.New("replication: corrupt replication state")
)
