// Package replication keeps the replicas of a global table in step, as
// DynamoDB global tables (version 2019.11.21, multi-Region eventual
// consistency) do: a write made in one Region's replica is applied to every
// other replica after a lag, and concurrent writes to one item are resolved
// last-writer-wins so that every replica converges on the same item.
//
// Each replica is an ordinary table whose writes are logged (package
// changelog). One Replicator per ordered pair of replicas (a link) tails the
// source's change log and applies each write made in the source's own Region
// to the target through the caller's Apply, which writes the item, its local
// index entries and counters and a change-log record marked with the write's
// origin (changelog.Record.Origin), so the target's streams and global
// indexes see it and no replicator sends it on again.
//
// # Last writer wins
//
// Every item of a replica has a Version: the origin Region and commit time of
// the write that last changed it (a deletion leaves a tombstone). DynamoDB
// keeps "a last write timestamp" per item as a private system attribute and
// applies an incoming replicated write only when its timestamp is greater
// than the item's (AWS Prescriptive Guidance, "DynamoDB global tables:
// overview"). It documents no tie-break for equal timestamps; this package
// lets the greater Region name win, so replicas converge even then.
//
// Versions are kept in a space of their own per replica (VersionsSpace) and
// are recorded lazily: before it applies anything to a replica, a batch reads
// the replica's change log from its stamp (the last record whose version is
// recorded) and records the version of every write made there. A write's
// commit time is read inside its transaction, so a local write committed
// after a replicated one always has the later time.
//
// # Crash safety
//
// A link's watermark (the last source record it has handled) and every
// stamp live in the tables' spaces (meta "replication") and change in the
// same transaction as the writes they account for, so each record is applied
// exactly once across crashes. The change log is kept behind the slowest
// watermark and stamp: Floor is what the log trimmer must respect.
//
// # A new replica
//
// Link with Copy set starts a link by copying the source's items (with their
// versions) in bounded chunks, resuming after a crash from the last key
// copied, and then tails the log from the sequence given to Link.
package replication
