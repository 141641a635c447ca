package gsi

import "errors"

// Errors returned by this package. Store errors are passed through unchanged.
var (
	// ErrClosed is returned by WaitFor once the Applier has stopped, because of
	// Close or because its store was closed.
	ErrClosed = errors.New("gsi: applier closed")
	// ErrTableNotFound is returned by Backfill when the table's space does not
	// exist (the table was deleted).
	ErrTableNotFound = errors.New("gsi: table space not found")
	// ErrIndexNotFound is returned by Backfill when the index's space does not
	// exist, or when the index was dropped (DropWatermark) while being built.
	ErrIndexNotFound = errors.New("gsi: index space not found")
)
