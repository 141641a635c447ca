package table

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/vector"
)

// Vector indexes are maintained as a global index is, by one owner per
// table (cluster mode: one front-end; alone, this process): the owner
// decides which change-log records the indexes hold (those due under the
// lag policy, in order), runs the backfill of a new index, and publishes
// that as the table's vector.State in the store, fenced by its ownership
// as a global index applier's watermark is. Every process keeps its own
// copy of the indexes in memory (vector.Follower: a search needs the
// vectors in contiguous memory, which the store cannot serve), and that
// copy is a read cache that holds exactly the records up to the published
// watermark: every front-end answers from the same owner-decided state.
const (
	// vectorTick is how often an owner looks for records that became due
	// without a write telling it (a lag ending, another front-end's Settle).
	// vectorCoalesce is how long it lets writes gather after one woke it,
	// so that a stream of writes costs one publication per batch, not one
	// per write (a search on the owner decides at once, inline).
	vectorTick     = 100 * time.Millisecond
	vectorCoalesce = 10 * time.Millisecond
	// vectorPoll is how often a request waiting for the owner's
	// publication looks again; vectorWait is how long it waits at most
	// (an owner that died hands over after its lease, store.ownerTTL).
	vectorPoll = 5 * time.Millisecond
	vectorWait = 30 * time.Second
)

// vectorFollowers holds, per table ID, this process's copies of vector
// indexes (vector.Follower) and its claims on their ownership (a running
// vectorOwner each). The zero value is ready.
type vectorFollowers struct {
	mu     sync.Mutex
	m      map[string]*vector.Follower
	owners map[string]*vectorOwner
}

// vectorOwner is this process's campaign for one table's vector indexes:
// a goroutine that, while it owns them, publishes new decisions on every
// write it hears of and every vectorTick.
type vectorOwner struct {
	region, name, id string
	own              *store.Ownership
	wakeup           chan struct{} // capacity 1: wake-ups coalesce
	stop             context.CancelFunc
	done             chan struct{}
	step             sync.Mutex // one decision at a time
}

func (o *vectorOwner) wake() {
	select {
	case o.wakeup <- struct{}{}:
	default:
	}
}

// follower returns m's Follower, creating it (empty) on first use.
func (s *Service) follower(m *tableMeta) *vector.Follower {
	s.vectors.mu.Lock()
	defer s.vectors.mu.Unlock()
	if s.vectors.m == nil {
		s.vectors.m = map[string]*vector.Follower{}
	}
	f := s.vectors.m[m.ID]
	if f == nil {
		f = vector.NewFollower(s.db, m.ID)
		s.vectors.m[m.ID] = f
	}
	return f
}

// vectorOwnerOf returns this process's campaign for m's vector indexes,
// starting it on first use.
func (s *Service) vectorOwnerOf(m *tableMeta) *vectorOwner {
	s.vectors.mu.Lock()
	defer s.vectors.mu.Unlock()
	if o := s.vectors.owners[m.ID]; o != nil {
		return o
	}
	if s.vectors.owners == nil {
		s.vectors.owners = map[string]*vectorOwner{}
	}
	ctx, stop := context.WithCancel(s.bg)
	o := &vectorOwner{region: m.Region, name: m.Name, id: m.ID, own: s.db.Own("vector/" + m.ID),
		wakeup: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	s.vectors.owners[m.ID] = o
	s.background.Go(func() { s.runVectorOwner(ctx, o) })
	return o
}

// runVectorOwner is o's goroutine: while this process owns the table's
// vector indexes it publishes the owner's decisions; it gives the claim up
// when ctx ends (the table deleted, the Service closed).
func (s *Service) runVectorOwner(ctx context.Context, o *vectorOwner) {
	defer close(o.done)
	defer o.own.Close()
	go s.db.WatchLog(ctx, o.id, o.wake) // another front-end's writes (etcd)
	t := time.NewTicker(vectorTick)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wakeup:
			select {
			case <-ctx.Done():
				return
			case <-time.After(vectorCoalesce):
			}
		case <-t.C:
		}
		m, err := s.catalog.get(s.db, o.region, o.name)
		if err != nil || m == nil || m.ID != o.id || len(m.vectors) == 0 || !o.own.Held() {
			continue
		}
		err = s.stepVectors(ctx, m, o)
		if err != nil && err.Error() != lastErr && ctx.Err() == nil && s.opts.Logger != nil {
			s.opts.Logger.Error("vector: publishing the owner's watermark", "table", m.Name, "err", err)
		}
		lastErr = ""
		if err != nil {
			lastErr = err.Error()
		}
	}
}

// dropFollower forgets a deleted table's vector indexes and gives up its
// claim on them.
func (s *Service) dropFollower(tableID string) {
	s.vectors.mu.Lock()
	delete(s.vectors.m, tableID)
	o := s.vectors.owners[tableID]
	delete(s.vectors.owners, tableID)
	s.vectors.mu.Unlock()
	if o != nil {
		o.stop()
		<-o.done
	}
}

// notifyVectors tells the owner of m's vector indexes, if it is this
// process, that a write was logged (and starts this process's campaign, so
// that a table only written to has an owner trimming its log's hold).
func (s *Service) notifyVectors(m *tableMeta) {
	if len(m.vectors) > 0 {
		s.vectorOwnerOf(m).wake()
	}
}

// vectorDue says whether a change-log record of m may be applied to its
// vector indexes yet: as to its global indexes, or committed before the
// latest Settle of any process (settled); nil when every record is.
func (s *Service) vectorDue(m *tableMeta, settled int64) func(seq uint64, t int64) bool {
	if _, l := s.lags(m); l.IsZero() {
		return nil
	}
	due := s.gsiDue(m)
	return func(seq uint64, t int64) bool { return t <= settled || due(seq, t) }
}

// stepVectors is one decision of m's owner, when this process is it:
// the records now due, applied to this process's copy (building any new
// index: the backfill), published with each index's count.
func (s *Service) stepVectors(ctx context.Context, m *tableMeta, o *vectorOwner) error {
	o.step.Lock()
	defer o.step.Unlock()
	if !o.own.Held() {
		return nil
	}
	var st vector.State
	var has bool
	var target uint64
	var due func(uint64, int64) bool
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return vector.ErrNoTable
		}
		st, has = vector.ReadState(sp)
		due = s.vectorDue(m, vector.ReadSettled(sp))
		var err error
		target, err = vector.Decide(sp, st.Seq, due)
		return err
	})
	if errors.Is(err, vector.ErrNoTable) || (err == nil && has && target == st.Seq && publishedExactly(m, st)) {
		return nil
	}
	if err != nil {
		return err
	}
	f := s.follower(m)
	var xs map[string]*vector.Index
	if due == nil {
		xs, target, err = f.ReadyLatest(m.vectors) // every record is due: up to the last
	} else {
		xs, err = f.Ready(m.vectors, target)
	}
	if err != nil {
		return err
	}
	return s.publishVectors(ctx, m, o, f, xs, target)
}

// publishVectors publishes target, and the counts of m's indexes xs, as
// the owner's decision, fenced by o's ownership. A publication that fails
// leaves this process's copy f ahead of the published watermark, so f is
// reset.
func (s *Service) publishVectors(ctx context.Context, m *tableMeta, o *vectorOwner, f *vector.Follower, xs map[string]*vector.Index, target uint64) error {
	next := vector.State{Seq: target, Indexes: map[string]vector.Published{}}
	for _, v := range m.VectorIndexes {
		next.Indexes[v.Name] = vector.Published{Created: v.Created, Count: int64(xs[v.Name].Len())}
	}
	err := s.db.UpdateAlone(ctx, func(tx *store.Tx) error {
		if err := o.own.Fence(tx); err != nil {
			return err
		}
		sp := tx.Space(m.ID)
		if sp == nil {
			return nil
		}
		if cur, ok := vector.ReadState(sp); ok && cur.Seq > target {
			return store.ErrNotOwner // another owner went further: this one is deposed
		}
		return vector.WriteState(sp, next)
	})
	if err != nil {
		f.Reset()
		if errors.Is(err, store.ErrNotOwner) {
			return nil
		}
	}
	return err
}

// publishedExactly reports whether st lists exactly m's vector indexes,
// each built for its current definition.
func publishedExactly(m *tableMeta, st vector.State) bool {
	if len(st.Indexes) != len(m.VectorIndexes) {
		return false
	}
	for _, v := range m.VectorIndexes {
		if _, ok := st.Built(v.Name, v.Created); !ok {
			return false
		}
	}
	return true
}

// vectorState returns the state the owner of m's vector indexes published
// (after deciding anew, when that is this process), whether there is one,
// and the last record of m's change log.
func (s *Service) vectorState(ctx context.Context, m *tableMeta) (vector.State, bool, uint64, error) {
	if len(m.vectors) == 0 {
		return vector.State{}, false, 0, nil // nothing to own (a search of an index the table lacks)
	}
	if err := s.stepVectors(ctx, m, s.vectorOwnerOf(m)); err != nil && !errors.Is(err, vector.ErrNoTable) {
		return vector.State{}, false, 0, err
	}
	var st vector.State
	var has bool
	var last uint64
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return ddb.NotFound("")
		}
		st, has = vector.ReadState(sp)
		last = sp.LastLogSeq()
		return nil
	})
	return st, has, last, err
}

// caughtUpVectors returns m's vector indexes by name as the owner
// published them, this process's copies caught up with its watermark. It
// waits for the publication to show every index that may be ACTIVE
// (vectorsBuilt) and, when m's indexes do not lag, every write acknowledged before the
// call (read-your-writes, as a global index is read), at most vectorWait.
func (s *Service) caughtUpVectors(ctx context.Context, m *tableMeta) (map[string]*vector.Index, error) {
	_, lag := s.lags(m)
	deadline := time.Now().Add(vectorWait)
	var want uint64
	for first := true; ; first = false {
		st, has, last, err := s.vectorState(ctx, m)
		if err != nil {
			return nil, err
		}
		if first {
			want = last
		}
		if has && (!lag.IsZero() || st.Seq >= want) && s.vectorsBuilt(m, st) {
			return s.follower(m).Ready(m.vectors, st.Seq)
		}
		s.vectorOwnerOf(m).wake()
		if time.Now().After(deadline) {
			return nil, ddb.Errorf(ddb.InternalServerError, "The vector indexes of table %s have no owner maintaining them", m.Name) // (ddblocal)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(vectorPoll):
		}
	}
}

// vectorsBuilt reports whether st has built each of m's vector indexes
// that vectorStatus may report ACTIVE: every one without TransientDelay,
// else those not backfilling (made with the table).
func (s *Service) vectorsBuilt(m *tableMeta, st vector.State) bool {
	for _, v := range m.VectorIndexes {
		if _, ok := st.Built(v.Name, v.Created); !ok && (!v.Backfill || s.opts.TransientDelay == 0) {
			return false
		}
	}
	return true
}

// followVectors starts this process's campaign for m's vector indexes
// when they are created or described and, when it owns them, publishes at
// once (a new index's backfill; DescribeTable's counts). Its errors are
// logged: the owner's goroutine tries again.
func (s *Service) followVectors(m *tableMeta) {
	if len(m.vectors) == 0 {
		return
	}
	err := s.stepVectors(s.bg, m, s.vectorOwnerOf(m))
	if err != nil && !errors.Is(err, vector.ErrNoTable) && s.opts.Logger != nil {
		s.opts.Logger.Warn("vector index build", "table", m.Name, "err", err)
	}
}

// settleVectors makes the owner of each table's vector indexes treat every
// write so far as due (it reads the settle recorded in the table's space,
// whichever process it is) and waits until it has published them.
func (s *Service) settleVectors(ctx context.Context, metas []*tableMeta) error {
	settled := s.settled.Load()
	for _, m := range metas {
		cur, err := s.catalog.get(s.db, m.Region, m.Name)
		if err != nil || cur == nil || len(cur.vectors) == 0 {
			continue
		}
		o := s.vectorOwnerOf(cur)
		var last uint64
		err = s.db.Update(ctx, func(tx *store.Tx) error {
			sp := tx.Space(cur.ID)
			if sp == nil {
				return nil
			}
			last = sp.LastLogSeq()
			if o.own.Held() {
				return nil // this process decides: its own Settle is enough
			}
			return vector.WriteSettled(sp, settled)
		})
		if err != nil {
			return err
		}
		if err := s.awaitVectors(ctx, cur, o, last); err != nil {
			return err
		}
	}
	return nil
}

// awaitVectors waits, at most vectorWait, until the owner of m's vector
// indexes has published a watermark at or past seq.
func (s *Service) awaitVectors(ctx context.Context, m *tableMeta, o *vectorOwner, seq uint64) error {
	deadline := time.Now().Add(vectorWait)
	for {
		st, has, _, err := s.vectorState(ctx, m)
		if err != nil || has && st.Seq >= seq {
			var nf *ddb.Error
			if errors.As(err, &nf) && nf.Code == ddb.ResourceNotFoundException {
				return nil // deleted meanwhile
			}
			return err
		}
		o.wake()
		if time.Now().After(deadline) {
			return ddb.Errorf(ddb.InternalServerError, "The vector indexes of table %s have no owner maintaining them", m.Name) // (ddblocal)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(vectorPoll):
		}
	}
}

// OwnsVectorIndexes reports whether this process maintains the vector
// indexes of table name in region now (in cluster mode, one front-end per
// table does; alone, this process does once it has used them).
func (s *Service) OwnsVectorIndexes(region, name string) bool {
	m, err := s.catalog.get(s.db, region, name)
	if err != nil || m == nil {
		return false
	}
	s.vectors.mu.Lock()
	o := s.vectors.owners[m.ID]
	s.vectors.mu.Unlock()
	return o != nil && o.own.Held()
}
