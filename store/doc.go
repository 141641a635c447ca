// Package store is an ordered key/value store. It knows bytes, not DynamoDB:
// callers build keys and values.
//
// A DB holds a catalog (small ordered metadata records) and named spaces. Each
// space is one ordered keyspace (a table or an index) with its own counters,
// change log and named metadata, all changed in the same transaction as the
// data, so a crash never separates an item from its log record.
//
// Writes go through DB.Update, which gathers concurrent callers into one
// transaction and one fsync (group commit) without any timer-based delay.
// Reads go through DB.View, which sees a consistent snapshot.
//
// Two engines sit under the same API and tests. A file-backed DB uses bbolt:
// the root holds the buckets "catalog" and "spaces"; each space is a bucket
// under "spaces" with the sub-buckets "d" (data), "l" (log, keyed by
// big-endian 8-byte sequence numbers) and "m" (metadata and counters). An
// InMemory DB keeps the same keyspaces in copy-on-write B-trees: a commit
// publishes a new root, and a View keeps the root it started with.
package store
