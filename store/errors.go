package store

import (
	"errors"

	bolt "go.etcd.io/bbolt"
)

// Errors returned by the store. Callers compare them with errors.Is: some are
// wrapped with detail (a path, a panic value).
var (
	// ErrClosed is returned by Update and View after Close has been called.
	ErrClosed = errors.New("store: closed")
	// ErrLocked is returned by Open when another process holds the file's lock.
	ErrLocked = errors.New("store: database file is locked by another process")
	// ErrPathRequired is returned by Open when Path is empty and InMemory is false.
	ErrPathRequired = errors.New("store: path required")
	// ErrPanic wraps the value of a panic recovered from an Update or View function.
	ErrPanic = errors.New("store: panic in transaction function")
	// ErrSpaceExists is returned by CreateSpace when the space already exists.
	ErrSpaceExists = errors.New("store: space already exists")
	// ErrSpaceIDRequired is returned by CreateSpace for an empty id.
	ErrSpaceIDRequired = errors.New("store: space id required")
	// ErrKeyRequired is returned when writing an empty key.
	ErrKeyRequired = errors.New("store: key required")
	// ErrKeyTooLarge is returned when writing a key longer than MaxKeySize.
	ErrKeyTooLarge = errors.New("store: key too large")
	// ErrValueTooLarge is returned when writing a value longer than MaxValueSize.
	ErrValueTooLarge = errors.New("store: value too large")
	// ErrReadOnly is returned when writing inside View.
	ErrReadOnly = errors.New("store: read-only transaction")
	// ErrTxClosed is returned when a Tx or Space is used after its function returned.
	ErrTxClosed = errors.New("store: transaction closed")
)

// Size limits inherited from bbolt.
const (
	// MaxKeySize is the longest key, in bytes, that Put accepts.
	MaxKeySize = bolt.MaxKeySize
	// MaxValueSize is the longest value, in bytes, that Put accepts.
	MaxValueSize = bolt.MaxValueSize
)

// mapErr translates a bbolt error into this package's sentinel, if there is
// one, so that callers never need to import bbolt.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bolt.ErrKeyRequired):
		return ErrKeyRequired
	case errors.Is(err, bolt.ErrKeyTooLarge):
		return ErrKeyTooLarge
	case errors.Is(err, bolt.ErrValueTooLarge):
		return ErrValueTooLarge
	case errors.Is(err, bolt.ErrTxNotWritable):
		return ErrReadOnly
	case errors.Is(err, bolt.ErrTxClosed):
		return ErrTxClosed
	case errors.Is(err, bolt.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.Is(err, bolt.ErrBucketNameRequired):
		return ErrSpaceIDRequired
	case errors.Is(err, bolt.ErrBucketExists):
		return ErrSpaceExists
	}
	return err
}
