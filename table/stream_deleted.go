package table

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
)

// A deleted table's streams stay readable, DISABLED, for 24 hours, as in
// DynamoDB. DeleteTable keeps the table's space (emptied of items, so only
// its change log and stream state remain) instead of dropping it, and
// records it in the deletedStreamsSpace registry, which only the Streams
// operations read: the catalog, and so everything else, no longer has the
// table. runDue drops the space once its last stream has expired.

// deletedStreamsSpace is the registry of deleted tables' streams, keyed by
// region/name/tableID.
const deletedStreamsSpace = "streams-of-deleted-tables"

// deletedStreams is one deleted table's entry in the registry.
type deletedStreams struct {
	Table   streams.Table
	SpaceID string
	Until   int64 // Unix nanoseconds: when its last stream expires
}

func deletedStreamsPrefix(region, name string) []byte {
	return []byte(region + "/" + name + "/")
}

// retainStreams keeps the space of table m, deleted at now, when it has a
// stream readable for a while yet: the stream is disabled (its shard closes
// at the log's end), the items go (without change-log records: deleting a
// table writes none) and the registry gets an entry. It reports whether it
// kept the space; if not, the caller drops it.
func retainStreams(tx *store.Tx, m *tableMeta, now int64) (bool, error) {
	sp := tx.Space(m.ID)
	if sp == nil || m.StreamLabel == "" {
		return false, nil
	}
	if err := streams.Disable(sp, now); err != nil {
		return false, err
	}
	st, err := streams.Load(sp)
	if err != nil {
		return false, err
	}
	var until int64
	for _, s := range st.Streams {
		if end := s.Disabled + int64(streams.Retention); end >= now {
			until = max(until, end)
		}
	}
	if until == 0 {
		return false, nil
	}
	if err := emptySpace(sp); err != nil {
		return false, err
	}
	if tx.Space(deletedStreamsSpace) == nil {
		if err := tx.CreateSpace(deletedStreamsSpace); err != nil {
			return false, err
		}
	}
	val, err := json.Marshal(deletedStreams{Table: streamTable(m), SpaceID: m.ID, Until: until})
	if err != nil {
		return false, err
	}
	key := append(deletedStreamsPrefix(m.Region, m.Name), m.ID...)
	return true, tx.Space(deletedStreamsSpace).Put(key, val)
}

// emptySpace deletes every item of sp, keeping its log and metadata.
func emptySpace(sp *store.Space) error {
	var keys [][]byte
	if err := sp.Ascend(nil, nil, func(k, _ []byte) bool {
		keys = append(keys, append([]byte(nil), k...))
		return true
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := sp.Delete(k); err != nil {
			return err
		}
	}
	items, bytes := sp.Stats()
	return sp.AddStats(-items, -bytes)
}

// eachDeletedStreams calls fn with the registry entries under prefix (every
// entry for an empty prefix) and their spaces (nil if gone), until fn
// returns false.
func eachDeletedStreams(tx *store.Tx, prefix []byte, fn func(key []byte, d deletedStreams, sp *store.Space) bool) error {
	reg := tx.Space(deletedStreamsSpace)
	if reg == nil {
		return nil
	}
	var err error
	aerr := reg.Ascend(prefix, nil, func(k, v []byte) bool {
		if !strings.HasPrefix(string(k), string(prefix)) {
			return false
		}
		var d deletedStreams
		if err = json.Unmarshal(v, &d); err != nil {
			err = fmt.Errorf("table: corrupt deleted-stream entry %q: %w", k, err)
			return false
		}
		return fn(k, d, tx.Space(d.SpaceID)) // nil for a space already gone
	})
	if aerr != nil {
		return aerr
	}
	return err
}

// deletedStream finds the stream with label among the streams of deleted
// tables named name, in a transaction: fn runs with it when it is still
// readable at now. found reports whether it ran.
func deletedStream(tx *store.Tx, region, name, label string, now int64, fn func(t streams.Table, sp *store.Space, st *streams.Stream) error) (found bool, err error) {
	eerr := eachDeletedStreams(tx, deletedStreamsPrefix(region, name), func(_ []byte, d deletedStreams, sp *store.Space) bool {
		if sp == nil {
			return true
		}
		all, lerr := streams.Load(sp)
		if lerr != nil {
			err = lerr
			return false
		}
		st := all.Find(label)
		if st == nil || now-st.Disabled > int64(streams.Retention) {
			return true
		}
		found, err = true, fn(d.Table, sp, st)
		return false
	})
	if eerr != nil {
		return found, eerr
	}
	return found, err
}

// deletedSummaries lists the readable streams of region's deleted tables
// (named name, when it is not empty) at now.
func deletedSummaries(tx *store.Tx, region, name string, now int64) ([]streams.Summary, error) {
	prefix := []byte(region + "/")
	if name != "" {
		prefix = deletedStreamsPrefix(region, name)
	}
	var out []streams.Summary
	var err error
	eerr := eachDeletedStreams(tx, prefix, func(_ []byte, d deletedStreams, sp *store.Space) bool {
		if sp == nil {
			return true
		}
		all, lerr := streams.Load(sp)
		if lerr != nil {
			err = lerr
			return false
		}
		for _, st := range all.Streams {
			if now-st.Disabled <= int64(streams.Retention) {
				out = append(out, streams.Summary{StreamArn: d.Table.StreamARN(st), TableName: d.Table.Name, StreamLabel: st.Label})
			}
		}
		return true
	})
	if eerr != nil {
		return nil, eerr
	}
	return out, err
}

// freshDeletedLabel makes sure the stream of table m, being created, does not
// reuse the label of a deleted namesake's stream (a clock that has not moved
// since the deletion), which would make their ARNs the same.
func (s *Service) freshDeletedLabel(m *tableMeta) error {
	if m.StreamLabel == "" {
		return nil
	}
	return s.db.View(func(tx *store.Tx) error {
		var err error
		m.StreamLabel, err = freeLabel(m.StreamLabel, m.Created, func(l string) (taken bool, err error) {
			err = eachDeletedStreams(tx, deletedStreamsPrefix(m.Region, m.Name), func(_ []byte, _ deletedStreams, sp *store.Space) bool {
				if sp == nil {
					return true
				}
				all, lerr := streams.Load(sp)
				taken = lerr == nil && all.Find(l) != nil
				return !taken
			})
			return taken, err
		})
		return err
	})
}

// dropDeletedStreams drops the spaces of deleted tables whose streams have
// all expired at now, and their registry entries.
func (s *Service) dropDeletedStreams(ctx context.Context, now int64) error {
	var expired []deletedStreams
	var keys [][]byte
	err := s.db.View(func(tx *store.Tx) error {
		return eachDeletedStreams(tx, nil, func(k []byte, d deletedStreams, sp *store.Space) bool {
			if sp == nil || now > d.Until {
				expired = append(expired, d)
				keys = append(keys, append([]byte(nil), k...))
			}
			return true
		})
	})
	if err != nil || len(keys) == 0 {
		return err
	}
	return s.db.Update(ctx, func(tx *store.Tx) error {
		reg := tx.Space(deletedStreamsSpace)
		for i, d := range expired {
			if err := tx.DropSpace(d.SpaceID); err != nil {
				return err
			}
			if err := reg.Delete(keys[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// hasDeletedStreams reports whether region has a deleted table named name
// with a stream still readable at now.
func (s *Service) hasDeletedStreams(region, name string, now int64) bool {
	var n int
	err := s.db.View(func(tx *store.Tx) error {
		g, err := deletedSummaries(tx, region, name, now)
		n = len(g)
		return err
	})
	return err == nil && n > 0
}
