package streams

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// Retention is how long stream records, disabled streams and closed shards
// stay readable.
const Retention = 24 * time.Hour

// IteratorLifetime is how long a shard iterator stays valid.
const IteratorLifetime = 15 * time.Minute

// metaName is the table space meta holding the table's streams.
const metaName = "streams"

// Policy says when a stream's open shard rolls over.
type Policy struct {
	// Records closes the open shard after this many change-log positions;
	// 0 means no limit.
	Records uint64
	// Duration closes the open shard once it is this old; 0 means DefaultDuration.
	Duration time.Duration
}

// DefaultDuration is how long a shard stays open by default: about what
// DynamoDB's do.
const DefaultDuration = 4 * time.Hour

func (p Policy) duration() int64 {
	if p.Duration <= 0 {
		return int64(DefaultDuration)
	}
	return int64(p.Duration)
}

// State is every stream of one table, oldest first.
type State struct {
	Streams []*Stream
}

// Stream is one stream of a table: enabled (Disabled == 0) or disabled.
type Stream struct {
	Label    string
	ViewType string
	Created  int64  // Unix nanoseconds
	After    uint64 // the change log's last sequence when it was enabled
	Disabled int64  // Unix nanoseconds; 0 while enabled
	Shards   []Shard
	// Trimmed counts the shards dropped from the front of Shards once
	// closed for longer than Retention (unreadable, and never listed
	// again), so that the list does not grow without bound. Shards[i] is
	// the stream's shard Trimmed+i: its id and iterators use that number.
	Trimmed int `json:",omitempty"`
	// TrimmedParent is the id of the last shard trimmed, Shards[0]'s parent.
	TrimmedParent string `json:",omitempty"`
}

// Shard is the log records with After < seq <= End (no End while open).
type Shard struct {
	After   uint64
	End     uint64
	Open    bool
	Created int64 // Unix nanoseconds
	Closed  int64 // Unix nanoseconds; 0 while open
}

// Load returns the streams kept in table space sp (empty State when none).
func Load(sp *store.Space) (*State, error) {
	st := &State{}
	if err := sp.GetMetaJSON(metaName, st); err != nil {
		return nil, fmt.Errorf("streams: corrupt state: %w", err)
	}
	return st, nil
}

func (st *State) save(sp *store.Space) error { return sp.PutMetaJSON(metaName, st) }

// Current returns the enabled stream, or nil.
func (st *State) Current() *Stream {
	if n := len(st.Streams); n > 0 && st.Streams[n-1].Disabled == 0 {
		return st.Streams[n-1]
	}
	return nil
}

// Find returns the stream with label, or nil.
func (st *State) Find(label string) *Stream {
	for _, s := range st.Streams {
		if s.Label == label {
			return s
		}
	}
	return nil
}

// Enable starts a stream with label and view type in table space sp, inside
// the transaction that enables it, and forgets streams disabled more than
// Retention ago. Every write after it is logged (the caller marks the space).
func Enable(sp *store.Space, label, viewType string, now int64) error {
	st, err := Load(sp)
	if err != nil {
		return err
	}
	st.forget(now)
	st.trim(now)
	last := sp.LastLogSeq()
	st.Streams = append(st.Streams, &Stream{Label: label, ViewType: viewType, Created: now, After: last,
		Shards: []Shard{{After: last, Open: true, Created: now}}})
	return st.save(sp)
}

// Disable ends the enabled stream, if any: its open shard closes at the
// change log's last sequence.
func Disable(sp *store.Space, now int64) error {
	st, err := Load(sp)
	if err != nil {
		return err
	}
	cur := st.Current()
	if cur == nil {
		return nil
	}
	cur.Disabled = now
	cur.close(sp.LastLogSeq(), now)
	return st.save(sp)
}

// forget drops streams disabled more than Retention before now.
func (st *State) forget(now int64) {
	kept := st.Streams[:0]
	for _, s := range st.Streams {
		if s.Disabled == 0 || now-s.Disabled <= int64(Retention) {
			kept = append(kept, s)
		}
	}
	st.Streams = kept
}

// trim drops from every stream the shards closed more than Retention
// before now (never a stream's last), and reports whether it dropped any.
func (st *State) trim(now int64) bool {
	trimmed := false
	for _, s := range st.Streams {
		n := s.expired(now)
		if n == 0 {
			continue
		}
		s.TrimmedParent = s.ShardID(n - 1)
		s.Shards = append([]Shard(nil), s.Shards[n:]...)
		s.Trimmed += n
		trimmed = true
	}
	return trimmed
}

// expired counts the shards at the front of s closed more than Retention
// before now, leaving out the last shard.
func (s *Stream) expired(now int64) int {
	n := 0
	for n < len(s.Shards)-1 && !s.Shards[n].Open && now-s.Shards[n].Closed > int64(Retention) {
		n++
	}
	return n
}

// close closes s's open shard at end.
func (s *Stream) close(end uint64, now int64) {
	if n := len(s.Shards); n > 0 && s.Shards[n-1].Open {
		sh := &s.Shards[n-1]
		sh.Open, sh.End, sh.Closed = false, end, now
	}
}

// rollEnd returns where the open shard sh must close given the log's last
// sequence and the time, and whether it must.
func (p Policy) rollEnd(sh Shard, last uint64, now int64) (uint64, bool) {
	if p.Records > 0 && last >= sh.After+p.Records {
		return sh.After + p.Records, true
	}
	if now-sh.Created >= p.duration() {
		return last, true
	}
	return 0, false
}

// Due reports whether Roll would change anything.
func (st *State) Due(p Policy, last uint64, now int64) bool {
	for _, s := range st.Streams {
		if s.expired(now) > 0 {
			return true
		}
	}
	cur := st.Current()
	if cur == nil {
		return false
	}
	_, due := p.rollEnd(cur.Shards[len(cur.Shards)-1], last, now)
	return due
}

// Roll closes the enabled stream's open shard and opens its child, as often
// as the policy says, and trims the shards past Retention, in table space
// sp. It reports whether it changed anything.
func Roll(sp *store.Space, p Policy, now int64) (bool, error) {
	st, err := Load(sp)
	if err != nil {
		return false, err
	}
	changed := st.trim(now)
	if cur := st.Current(); cur != nil {
		last := sp.LastLogSeq()
		for {
			sh := cur.Shards[len(cur.Shards)-1]
			end, due := p.rollEnd(sh, last, now)
			if !due {
				break
			}
			cur.close(end, now)
			cur.Shards = append(cur.Shards, Shard{After: end, Open: true, Created: now})
			changed = true
		}
	}
	if !changed {
		return false, nil
	}
	return true, st.save(sp)
}

// ShardID is the id of Shards[i]: DynamoDB's shape,
// shardId-<20 digits>-<8 hex>, the hex a hash of its number in the stream.
func (s *Stream) ShardID(i int) string {
	return fmt.Sprintf("shardId-%020d-%s", s.Shards[i].Created/int64(time.Millisecond), s.shardHash(s.Trimmed+i))
}

func (s *Stream) shardHash(n int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", s.Label, n)
	return fmt.Sprintf("%08x", h.Sum32())
}

// shardIndex returns the index in Shards of the shard with id, or -1.
func (s *Stream) shardIndex(id string) int {
	for i := range s.Shards {
		if s.ShardID(i) == id {
			return i
		}
	}
	return -1
}

// wasTrimmed reports whether id names one of the shards trimmed from s.
func (s *Stream) wasTrimmed(id string) bool {
	for n := range s.Trimmed {
		if strings.HasSuffix(id, "-"+s.shardHash(n)) {
			return true
		}
	}
	return false
}

// parent is the id of Shards[i]'s parent, or "" for the stream's first.
func (s *Stream) parent(i int) string {
	if i > 0 {
		return s.ShardID(i - 1)
	}
	return s.TrimmedParent
}

// visible reports whether shard i is still listed: open, or closed within
// Retention.
func (s *Stream) visible(i int, now int64) bool {
	sh := s.Shards[i]
	return sh.Open || now-sh.Closed <= int64(Retention)
}

// SequenceNumber is log sequence seq as a stream sequence number: 21 digits,
// a leading 1 and seq zero-padded, so numeric and string order agree.
func SequenceNumber(seq uint64) string { return fmt.Sprintf("1%020d", seq) }

// parseSequence is SequenceNumber's inverse.
func parseSequence(s string) (uint64, bool) {
	if len(s) != 21 || s[0] != '1' {
		return 0, false
	}
	var seq uint64
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		seq = seq*10 + uint64(c-'0')
	}
	return seq, true
}
