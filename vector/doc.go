// Package vector holds the mechanics of DynamoDB's vector indexes: reading a
// vector attribute (a list of numbers) as 32-bit floats, keeping an index's
// vectors in contiguous float32 memory per search partition (1 MiB segments,
// so that appending never copies the whole partition), and answering exact
// nearest-neighbour searches.
//
// DynamoDB's SearchVectors is an approximate search; this package is exact
// (recall 1.0) and deterministic, so tests that search are reproducible:
//
//   - Scores are computed from the float32 vectors with float64 arithmetic in
//     one fixed order (see dot and sqDist), so the same index and query give
//     the same bits on every platform, then rounded to float32 precision.
//   - Results are ordered by score (most similar first) and, between equal
//     scores, by the item's storage key ascending, which is the order a Scan
//     returns them in.
//
// Index knows nothing of tables, stores or the change log: the caller
// derives an Entry from each item (Def.Entry) and applies it (Index.Put,
// Index.Delete). Follower is that caller for one table: it builds a table's
// indexes from its store space and moves them along its change log, to the
// watermark the table's one owner decided (Decide) and published (State),
// so that every process's copy holds the same records. An Index is safe for
// concurrent use; searches share a read lock and writes take the write lock.
package vector
