package table

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// What multi-Region strong consistency does not allow, and the claims that
// refuse conflicting writes across Regions (and across the front-ends of a
// cluster).
//
// The developer guide lists what MRSC global tables do not support (Time to
// Live, local secondary indexes, transactions) and says the table must be
// empty when MRSC is enabled; it does not give the service's refusals. The
// texts below are ddblocal's, worded like the service's MRSC messages.
const (
	msgStrongNotEmpty     = "Table must be empty to create a global table with MultiRegionConsistency set to STRONG."
	msgStrongLSI          = "Local secondary indexes are not supported for global tables with MultiRegionConsistency set to STRONG."
	msgStrongTTL          = "Time to Live is not supported for global tables with MultiRegionConsistency set to STRONG."
	msgStrongTransactions = "Transactions are not supported for global tables with MultiRegionConsistency set to STRONG."
	// msgWriteConflict is the SDK's description of the exception; the
	// service's own text is not documented.
	msgWriteConflict = "The request was rejected because one or more items in the request are being modified by a request in another Region."
)

// checkStrongTable refuses to make m an MRSC global table when m holds items,
// has local secondary indexes or has Time to Live enabled.
func (s *Service) checkStrongTable(m *tableMeta) error {
	switch {
	case len(m.LocalSecondaryIndexes) > 0:
		return ddb.Errorf(ddb.ValidationException, msgStrongLSI)
	case m.TTLAttribute != "":
		return ddb.Errorf(ddb.ValidationException, msgStrongTTL)
	}
	empty := true
	err := s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(m.ID); sp != nil {
			return sp.Ascend(nil, nil, func(_, _ []byte) bool {
				empty = false
				return false
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !empty {
		return ddb.Errorf(ddb.ValidationException, msgStrongNotEmpty)
	}
	return nil
}

// refuseStrongTTL refuses to enable Time to Live on an MRSC table.
func refuseStrongTTL(m *tableMeta, spec *ddb.TimeToLiveSpecification) error {
	if m.Strong && spec != nil && spec.Enabled != nil && *spec.Enabled {
		return ddb.Errorf(ddb.ValidationException, msgStrongTTL)
	}
	return nil
}

// refuseStrongTransaction refuses a transaction that touches an MRSC table.
func refuseStrongTransaction(metas ...*tableMeta) error {
	for _, m := range metas {
		if m != nil && m.Strong {
			return ddb.Errorf(ddb.ValidationException, msgStrongTransactions)
		}
	}
	return nil
}

// strongWrites is what a write to MRSC tables holds while it replicates:
// the in-process claims of its items, and the tables to wait for.
type strongWrites struct {
	muts     []*mutation
	releases []func()
}

// claimStrong claims, in this process, the items of every mutation of muts
// on an MRSC table, or refuses them all with ReplicatedWriteConflictException
// when a write from another Region is replicating one of them. The caller
// calls done once its write has committed (or failed).
func (s *Service) claimStrong(muts []*mutation) (*strongWrites, error) {
	sw := &strongWrites{}
	for _, mu := range muts {
		if !mu.meta.Strong {
			continue
		}
		release, err := s.reserveStrong(mu.meta, mu.key)
		if err != nil {
			sw.release()
			return nil, err
		}
		sw.muts = append(sw.muts, mu)
		sw.releases = append(sw.releases, release)
	}
	return sw, nil
}

func (sw *strongWrites) release() {
	for _, r := range sw.releases {
		r()
	}
	sw.releases = nil
}

// claimShared claims sw's items in tx for a cluster's other front-ends too
// (a store shared through etcd), or refuses the write: see sharedClaim.
func (s *Service) claimShared(tx *store.Tx, sw *strongWrites) error {
	if sw == nil || len(sw.muts) == 0 || !s.db.Shared() {
		return nil
	}
	for _, mu := range sw.muts {
		if err := s.sharedClaim(tx, mu.meta, mu.key, 1); err != nil {
			return err
		}
	}
	return nil
}

// finish waits, once the write committed (err nil), until every other
// replica of each MRSC table written has it, then drops the claims.
func (s *Service) finishStrong(ctx context.Context, sw *strongWrites, err error) error {
	if sw == nil || len(sw.muts) == 0 {
		return err
	}
	defer sw.release()
	if err == nil {
		var waited []string
		for _, mu := range sw.muts {
			if slices.Contains(waited, mu.meta.ID) {
				continue
			}
			waited = append(waited, mu.meta.ID)
			if err = s.awaitStrong(ctx, mu.meta); err != nil {
				break
			}
		}
	}
	if s.db.Shared() {
		// A claim left behind (the release failing, this process dying)
		// lapses with its lease: a failed release is only logged.
		rerr := s.db.Update(context.WithoutCancel(ctx), func(tx *store.Tx) error {
			for _, mu := range sw.muts {
				if err := s.sharedClaim(tx, mu.meta, mu.key, -1); err != nil {
					return err
				}
			}
			return nil
		})
		if rerr != nil && s.opts.Logger != nil {
			s.opts.Logger.Warn("global tables: releasing strongly consistent write claims failed; they lapse with their lease", "err", rerr)
		}
	}
	return err
}

// sharedClaim adds delta to the count of writes from m's Region that are
// replicating item key, kept in an expiring record of the shared store, so
// that the other front-ends of a cluster see it. Claiming (delta 1) an item
// that writes from another Region hold is refused with
// ReplicatedWriteConflictException. A record lasts strongClaimTTL past its
// last change, so a front-end that dies mid-write does not block the item
// for longer.
func (s *Service) sharedClaim(tx *store.Tx, m *tableMeta, key []byte, delta int) error {
	account, region := access.SplitScope(m.Region)
	k := []byte("mrsc/" + account + "\x00" + m.Name + "\x00" + string(key))
	holder, n := parseClaim(tx.GetExpiring(k))
	if holder != region && n > 0 {
		if delta > 0 {
			return ddb.Errorf(ddb.ReplicatedWriteConflictException, msgWriteConflict)
		}
		return nil // another Region's claim: ours lapsed
	}
	n = max(n+delta, 0)
	return tx.PutExpiring(k, []byte(region+" "+strconv.Itoa(n)), s.strongClaimTTL())
}

// parseClaim reads a claim record: the Region holding it and its count.
func parseClaim(b []byte) (region string, n int) {
	r, c, ok := strings.Cut(string(b), " ")
	if !ok {
		return "", 0
	}
	n, _ = strconv.Atoi(c)
	return r, n
}

// strongClaimTTL is how long a claim outlives its last change: longer than
// any write waits for the other Regions (the replication lag and then some).
func (s *Service) strongClaimTTL() time.Duration {
	return s.opts.ReplicationLag.Max + 30*time.Second
}

// pointers returns pointers to the elements of muts.
func pointers(muts []mutation) []*mutation {
	out := make([]*mutation, len(muts))
	for i := range muts {
		out[i] = &muts[i]
	}
	return out
}
