// Package kinesis delivers a table's changes to Kinesis data streams, as
// DynamoDB's Kinesis streaming destinations do.
//
// A table's destinations live in its store space, under meta "kinesis"
// (State), changed by EnableKinesisStreamingDestination,
// DisableKinesisStreamingDestination and UpdateKinesisStreamingDestination in
// one transaction each (Enable, Disable, Update) and by the table's Deliverer
// as their asynchronous workflows finish: ENABLING becomes ACTIVE once the
// stream is found ACTIVE on the Kinesis endpoint (or ENABLE_FAILED, with
// DynamoDB's description, when it is not), UPDATING becomes ACTIVE, and
// DISABLING becomes DISABLED once the records written before the Disable
// are delivered.
//
// The Deliverer tails the table's change log like any other consumer: each
// destination keeps the sequence number it has delivered through (After),
// advanced in a transaction of its own after each PutRecords succeeds, so
// delivery resumes where it stopped after a restart (at least once: a crash
// between PutRecords and that transaction sends the batch again, with the
// same eventIDs). Floor holds the log for undelivered records, at most
// Retention of them: a destination that cannot deliver for longer skips the
// older ones, as the service's 24-hour window does.
//
// Records are in the service's Kinesis record format (Record): the item's
// keys, both images, the size, and the change's time at the destination's
// ApproximateCreationDateTimePrecision. The Kinesis endpoint is any
// Kinesis-compatible server (kinesalite, LocalStack, AWS) spoken to through
// Client, which signs the two calls it makes (DescribeStream, PutRecords)
// with SigV4 itself: aws-sdk-go-v2's service/kinesis would add megabytes to
// a binary whose container image must stay small.
package kinesis
