// Package gsi maintains global secondary indexes, eventually consistent as
// DynamoDB's are. A write whose table has no log record waiting for its
// applier changes the indexes itself, in its own transaction (Direct), and
// moves their watermarks with it (Advance). Otherwise (records pending, a
// backfill, deliberate lag, cluster mode, vector indexes) the write appends
// a record to the table's change log in its own transaction, and one
// Applier per table tails that log and applies each record to every global
// index of the table.
//
// Each index has a watermark, the sequence number of the last log record
// applied to it, stored in the table's space (meta "gsi-wm/<index>", 8-byte
// big-endian) and advanced in the same transaction as the index change, so a
// record is applied exactly once even across crashes. An index without a
// watermark is being built by Backfill and is ignored by the Applier until
// Backfill gives it one.
//
// The log is trimmed behind the slowest index and any backfill in progress,
// but never within the retention window that eventually consistent reads and
// streams need.
package gsi
