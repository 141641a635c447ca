// Package streams serves DynamoDB Streams from a table's change log: the log
// records after a stream's start are its stream records, shards are ranges of
// log sequence numbers, and the log's retention (kept by its trimmer) is the
// stream's 24 hours. No write does anything for a stream beyond appending its
// change-log record, which it does anyway when a stream is on.
//
// A table's streams (the enabled one and those disabled in the last 24 hours)
// live in the table's store space, under meta "streams", changed in the same
// transaction as the table definition (enable, disable) or by Roll, which
// closes a shard and opens its child when the rollover policy says so.
//
// Shard rollover (Policy): the open shard closes after Records change-log
// positions (exactly, so tests can count on it) or once it is Duration old by
// the server's clock, whichever comes first. The child's ParentShardId is the
// closed shard. Every log record after the stream's start belongs to exactly
// one shard, so a consumer that walks the tree sees every change once, in
// order.
package streams
