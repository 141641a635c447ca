package table

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
)

// The DynamoDB Streams operations, served on the same endpoint as DynamoDB
// (X-Amz-Target DynamoDBStreams_20120810.*) from each table's change log;
// package streams holds the records, shards and iterators.

// streamOf is the streams package's view of table m.
func streamTable(m *tableMeta) streams.Table {
	t := streams.Table{Region: m.Region, Name: m.Name, ARN: m.arn()}
	for _, k := range m.KeySchema {
		t.KeySchema = append(t.KeySchema, streams.KeyElement{AttributeName: k.AttributeName, KeyType: k.KeyType})
	}
	return t
}

// startStream records a newly enabled stream of m in its space, inside the
// transaction that enables it: from then on every write to the table is
// logged, whatever definition its writer has cached.
func startStream(tx *store.Tx, m *tableMeta, now int64) error {
	sp := tx.Space(m.ID)
	if sp == nil {
		return ddb.NotFound("Table: %s not found", m.Name)
	}
	if err := sp.PutMeta(logMeta, []byte{1}); err != nil {
		return err
	}
	return streams.Enable(sp, m.StreamLabel, m.Stream.StreamViewType, now)
}

// streamChange records in tx what an UpdateTable did to m's stream (next is
// the new definition).
func streamChange(tx *store.Tx, m, next *tableMeta, now int64) error {
	switch {
	case m.Stream == nil && next.Stream != nil:
		return startStream(tx, next, now)
	case m.Stream != nil && next.Stream == nil:
		if sp := tx.Space(m.ID); sp != nil {
			return streams.Disable(sp, now)
		}
	}
	return nil
}

// freshStreamLabel makes sure a stream next enables does not reuse the
// label of one of m's earlier streams (a clock that has not moved since),
// reading them through tx, the change's transaction.
func freshStreamLabel(tx *store.Tx, m, next *tableMeta) error {
	if m.Stream != nil || next.Stream == nil {
		return nil
	}
	sp := tx.Space(m.ID)
	if sp == nil {
		return nil
	}
	all, err := streams.Load(sp)
	if err != nil {
		return err
	}
	next.StreamLabel, err = freeLabel(next.StreamLabel, next.Updated, func(l string) (bool, error) {
		return all.Find(l) != nil, nil
	})
	return err
}

// freeLabel returns label, made at t, or if taken says it is in use, the
// label of the first later millisecond that is not: a stream must not get
// the label, and so the ARN, of an earlier stream of a same-named table.
func freeLabel(label string, t int64, taken func(string) (bool, error)) (string, error) {
	for {
		used, err := taken(label)
		if err != nil || !used {
			return label, err
		}
		t += int64(time.Millisecond)
		label = streamLabel(t, 0)
	}
}

// streamRetain is how long m's change log must be kept for its streams:
// Retention for a table that has, or ever had, one (a disabled stream stays
// readable for as long).
func streamRetain(m *tableMeta) time.Duration {
	if m.StreamLabel == "" {
		return 0
	}
	return streams.Retention
}

// streamErr turns a streams error into the service's.
func streamErr(err error) error {
	var se *streams.Error
	if errors.As(err, &se) {
		return &ddb.Error{Code: ddb.Code(se.Code), Message: se.Message}
	}
	return err
}

// parseStreamARN splits arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL
// into the scope it names (see Scope), the table name and the label.
func parseStreamARN(arn string) (scope, name, label string, ok bool) {
	scope, _, res, ok := access.SplitARN(arn)
	rest, isTable := strings.CutPrefix(res, "table/")
	name, label, isStream := strings.Cut(rest, "/stream/")
	if !ok || !isTable || !isStream || name == "" || label == "" {
		return "", "", "", false
	}
	return scope, name, label, true
}

// withStream runs fn on the stream named by arn in a read transaction, after
// rolling its shards over if the policy says they are due. The stream may
// be a deleted table's (stream_deleted.go).
// The caller (ctx) is judged by the stream's own resource-based policy: a
// stream of another account is read only as that policy allows, and is not
// found at all when policies are not enforced.
func (s *Service) withStream(ctx context.Context, scope, arn string, fn func(t streams.Table, sp *store.Space, st *streams.Stream, now int64) error) error {
	notFound := ddb.NotFound("Stream: %s not found", arn)
	arnScope, name, label, ok := parseStreamARN(arn)
	if !ok {
		// A well-formed unknown ARN is not found; one that is no stream
		// ARN at all is invalid (the service's answer in aws/aws-sdk-js's
		// integration tests: ValidationException, "Invalid StreamArn").
		return ddb.Errorf(ddb.ValidationException, "Invalid StreamArn")
	}
	if a, _ := access.SplitScope(arnScope); !access.SameAccount(scope, a) && s.opts.Policies == nil {
		return notFound
	}
	m, err := s.catalog.get(s.db, arnScope, name)
	if err != nil {
		return err
	}
	if err := s.authorize(ctx, scope, m, label, arn); err != nil {
		return err
	}
	if m != nil {
		if err := s.rollStreams(ctx, m); err != nil {
			return err
		}
	}
	now := s.now().UnixNano()
	err = s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(liveTableID(m)); sp != nil {
			all, err := streams.Load(sp)
			if err != nil {
				return err
			}
			if st := all.Find(label); st != nil && (st.Disabled == 0 || now-st.Disabled <= int64(streams.Retention)) {
				return fn(streamTable(m), sp, st, now)
			}
		}
		found, err := deletedStream(tx, arnScope, name, label, now, func(t streams.Table, sp *store.Space, st *streams.Stream) error {
			return fn(t, sp, st, now)
		})
		if err == nil && !found {
			return notFound
		}
		return err
	})
	return streamErr(err)
}

// liveTableID is m's space id, "" (no space) for nil.
func liveTableID(m *tableMeta) string {
	if m == nil {
		return ""
	}
	return m.ID
}

// rollStreams closes m's open stream shard, and opens its child, when the
// rollover policy says it is due.
func (s *Service) rollStreams(ctx context.Context, m *tableMeta) error {
	now := s.now().UnixNano()
	var due bool
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return nil
		}
		st, err := streams.Load(sp)
		due = err == nil && st.Due(s.opts.StreamShards, sp.LastLogSeq(), now)
		return err
	})
	if err != nil || !due {
		return err
	}
	return s.db.Update(ctx, func(tx *store.Tx) error {
		if sp := tx.Space(m.ID); sp != nil {
			_, err := streams.Roll(sp, s.opts.StreamShards, now)
			return err
		}
		return nil
	})
}

// DescribeStream describes a stream and its shards.
func (s *Service) DescribeStream(ctx context.Context, region string, in *streams.DescribeStreamInput) (*streams.DescribeStreamOutput, error) {
	var out *streams.DescribeStreamOutput
	err := s.withStream(ctx, region, in.StreamArn, func(t streams.Table, _ *store.Space, st *streams.Stream, now int64) error {
		var err error
		out, err = st.Describe(t, in, now)
		return err
	})
	return out, err
}

// GetShardIterator returns an iterator into one shard of a stream.
func (s *Service) GetShardIterator(ctx context.Context, region string, in *streams.GetShardIteratorInput) (*streams.GetShardIteratorOutput, error) {
	var out *streams.GetShardIteratorOutput
	err := s.withStream(ctx, region, in.StreamArn, func(t streams.Table, sp *store.Space, st *streams.Stream, now int64) error {
		var err error
		out, err = st.Iterator(t, sp, in, s.opts.StreamShards, now)
		return err
	})
	return out, err
}

// GetRecords returns the stream records after a shard iterator.
func (s *Service) GetRecords(ctx context.Context, region string, in *streams.GetRecordsInput) (*streams.GetRecordsOutput, error) {
	arn, err := streams.ParseIterator(in.ShardIterator)
	if err != nil {
		return nil, streamErr(err)
	}
	var out *streams.GetRecordsOutput
	err = s.withStream(ctx, region, arn, func(t streams.Table, sp *store.Space, st *streams.Stream, now int64) error {
		var err error
		out, err = st.Records(t, sp, in, s.opts.StreamShards, now)
		return err
	})
	return out, err
}

// ListStreams lists the streams of region's tables (or of one table), the
// enabled ones and those disabled in the last 24 hours, then those of
// deleted tables still readable.
func (s *Service) ListStreams(ctx context.Context, region string, in *streams.ListStreamsInput) (*streams.ListStreamsOutput, error) {
	now := s.now().UnixNano()
	metas, err := s.regionTables(region, in.TableName)
	if err != nil && !s.hasDeletedStreams(region, in.TableName, now) {
		return nil, err
	}
	var all []streams.Summary
	err = s.db.View(func(tx *store.Tx) error {
		for _, m := range metas {
			sp := tx.Space(m.ID)
			if sp == nil {
				continue
			}
			st, err := streams.Load(sp)
			if err != nil {
				return err
			}
			t := streamTable(m)
			for _, one := range st.Streams {
				if one.Disabled == 0 || now-one.Disabled <= int64(streams.Retention) {
					all = append(all, streams.Summary{StreamArn: t.StreamARN(one), TableName: m.Name, StreamLabel: one.Label})
				}
			}
		}
		gone, err := deletedSummaries(tx, region, in.TableName, now)
		all = append(all, gone...)
		return err
	})
	if err != nil {
		return nil, streamErr(err)
	}
	// Deleted tables' streams are listed among the others, by table name
	// and label: the order streams.Page resumes an unlisted start in.
	slices.SortFunc(all, func(a, b streams.Summary) int {
		return cmp.Or(strings.Compare(a.TableName, b.TableName), strings.Compare(a.StreamLabel, b.StreamLabel), strings.Compare(a.StreamArn, b.StreamArn))
	})
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	return streams.Page(all, in.ExclusiveStartStreamArn, limit), nil
}

// regionTables returns region's tables in name order (only name when it is
// not empty; every region's when region is empty), as cached.
func (s *Service) regionTables(region, name string) ([]*tableMeta, error) {
	var keys [][2]string
	err := s.db.View(func(tx *store.Tx) error {
		prefix := ""
		if region != "" {
			prefix = region + "/"
		}
		return tx.CatalogAscend([]byte(prefix), func(k, _ []byte) bool {
			ok := strings.HasPrefix(string(k), prefix)
			r, n, slash := strings.Cut(string(k), "/")
			if ok && slash && (name == "" || n == name) {
				keys = append(keys, [2]string{r, n})
			}
			return ok
		})
	})
	if err != nil {
		return nil, err
	}
	var metas []*tableMeta
	for _, k := range keys {
		m, err := s.catalog.get(s.db, k[0], k[1])
		if err != nil && region == "" {
			continue // the sweeper's scan of everything skips what it cannot read
		}
		if err != nil {
			return nil, err
		}
		if m != nil {
			metas = append(metas, m)
		}
	}
	if name != "" && len(metas) == 0 {
		return nil, ddb.NotFound("Table: %s not found", name)
	}
	return metas, nil
}
