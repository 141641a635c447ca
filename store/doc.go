// Package store is an ordered key/value store over bbolt. It knows bytes, not
// DynamoDB: callers build keys and values.
//
// A DB holds a catalog (small ordered metadata records) and named spaces. Each
// space is one ordered keyspace (a table or an index) with its own counters,
// change log and named metadata, all changed in the same transaction as the
// data, so a crash never separates an item from its log record.
//
// Writes go through DB.Update, which gathers concurrent callers into one bbolt
// transaction and one fsync (group commit) without any timer-based delay.
// Reads go through DB.View, which sees a consistent snapshot.
//
// On disk, the root holds the buckets "catalog" and "spaces"; each space is a
// bucket under "spaces" with the sub-buckets "d" (data), "l" (log, keyed by
// big-endian 8-byte sequence numbers) and "m" (metadata and counters).
package store
