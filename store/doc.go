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
// A durable store acknowledges a commit in one of two modes (SyncMode).
// By default (SyncBackground, wal_background.go) a commit is visible and
// answered once its log record is written: a process killed with SIGKILL
// cannot take it back, and fdatasyncs run behind the commits on a syncer
// goroutine, one as soon as the previous one ended, with commits waiting
// for one when syncBound bytes of records are not yet synced, so an OS
// crash or power cut loses at most that tail. With SyncAlways the commit
// is pipelined (wal_pipeline.go): the committer applies a batch, writes
// its log record and makes the new root the base of the next batch at
// once, while the record's fdatasync runs on one of pipelineDepth syncer
// goroutines; a publisher takes the commits in the order they were
// written, waits for each one's sync, and only then makes its root visible
// and answers its callers. Either way a failed sync makes the log refuse
// every later write until a restart (with SyncAlways it also fails every
// commit not yet acknowledged), and each syncer syncs through a descriptor
// of its own, so that a write-back error reaches every sync it concerns.
//
// A caller that keeps something derived from a space (insights' sizes)
// can follow it (follow.go): one walk of a snapshot, then each later
// commit's changes of the space's data, as sizes, in commit order.
//
// Reads and writes are served by a memory engine: each keyspace is a
// copy-on-write B-tree, a commit publishes a new root, and a View keeps the
// root it started with. An InMemory DB is just that. A file-backed DB adds
// durability (see wal.go): each commit appends one record to a write-ahead
// log before it becomes visible (and fdatasyncs it first with SyncAlways),
// and a background checkpointer copies full log segments into a bbolt file, whose layout is:
// the root holds the buckets "catalog" and "spaces" (and "wal", the last
// segment absorbed); each space is a bucket under "spaces" with the
// sub-buckets "d" (data), "l" (log, keyed by big-endian 8-byte sequence
// numbers) and "m" (metadata and counters). Opening loads bbolt into memory
// and replays the log segments it has not absorbed.
package store
