package streams

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"time"
)

// iterator is a decoded shard iterator: the next log position to read in
// one shard, and when it was issued (it expires IteratorLifetime later).
type iterator struct {
	arn    string // the stream's ARN
	shard  int    // the shard's number in the stream: Stream.Trimmed + its index in Shards
	next   uint64 // first log sequence not yet returned
	issued int64  // Unix nanoseconds
}

// iteratorVersion prefixes the encoded part, so a later format can differ.
const iteratorVersion = 1

// String encodes it as DynamoDB's iterators look: "<stream ARN>|1|<opaque>".
func (it iterator) String() string {
	b := []byte{iteratorVersion}
	b = binary.AppendUvarint(b, uint64(it.shard))
	b = binary.AppendUvarint(b, it.next)
	b = binary.AppendVarint(b, it.issued)
	return it.arn + "|1|" + base64.RawURLEncoding.EncodeToString(b)
}

// parseIterator decodes an iterator made by String.
func parseIterator(s string) (iterator, bool) {
	var it iterator
	i := strings.LastIndex(s, "|1|")
	if i <= 0 {
		return it, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s[i+3:])
	if err != nil || len(b) == 0 || b[0] != iteratorVersion {
		return it, false
	}
	it.arn, b = s[:i], b[1:]
	shard, n := binary.Uvarint(b)
	if n <= 0 || shard > 1<<30 {
		return it, false
	}
	b = b[n:]
	if it.next, n = binary.Uvarint(b); n <= 0 {
		return it, false
	}
	b = b[n:]
	if it.issued, n = binary.Varint(b); n <= 0 || n != len(b) {
		return it, false
	}
	it.shard = int(shard)
	return it, true
}

// expired returns the ExpiredIteratorException for it at now, or nil.
func (it iterator) expired(now int64) *Error {
	if now-it.issued <= int64(IteratorLifetime) {
		return nil
	}
	return errorf("ExpiredIteratorException",
		"Iterator expired. The iterator was created at time %s while right now it is %s which is further in the future than the tolerated delay of %d milliseconds.",
		time.Unix(0, it.issued).UTC().Format(timeFormat), time.Unix(0, now).UTC().Format(timeFormat), IteratorLifetime.Milliseconds())
}
