package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// The etcd engine keeps a store in an etcd cluster, so that several ddblocal
// processes share it. It is optimistic: a transaction reads at one etcd
// revision (the first read's, linearizable unless the engine is stale),
// buffers its writes, and commits them as one etcd transaction guarded by a
// compare on every key it read (its mod revision then, which also catches a
// key deleted since) and on every range it read in a write transaction (no
// key in it added or changed since). A failed compare is errConflict: the
// committer runs the batch again on a fresh snapshot.
//
// Layout under the prefix P:
//
//	P c <key>               catalog record
//	P S <id>                a space exists (empty value)
//	P s <id> 0x00 <sub> <k> a space's data (sub '0'), log ('1') or meta ('2')
//	P q <id>                the space's log sequence, 8 bytes big-endian
//	P e <key>               an expiring record (PutExpiring), under a lease
//	P x <random>            a commit's marker, under a lease (etcd_resolve.go)
//	P n <slot>              a process's claim on a counter shard, under a lease (etcd_shard.go)
//
// Space ids never contain 0x00 (they are table names and index names).

// errConflict is returned by an etcd commit whose compares failed: something
// this transaction read has changed since.
var errConflict = errors.New("store: optimistic transaction conflict")

// etcdPage is how many keys one range request returns: a Query or Scan page
// holds at most 1 MB, so this covers most pages in one round trip while
// bounding a response to 64 × 400 KB items.
const etcdPage = 64

// etcdTimeout bounds each etcd request unless EtcdOptions says otherwise:
// well beyond a leader election (about a second with etcd's defaults), well
// within an SDK's patience.
const etcdTimeout = 5 * time.Second

// etcdEngine is an engine over an etcd client.
type etcdEngine struct {
	cli    *clientv3.Client
	prefix string
	// timeout bounds each request (EtcdOptions.RequestTimeout).
	timeout time.Duration
	leases  leaseCache
	// ctx bounds every request of a transaction; DB.Interrupt cancels it.
	ctx       context.Context
	interrupt context.CancelFunc
	// closeClient: Close also closes cli (Open made it).
	closeClient bool
	// limits are the cluster's, once probeLimits has measured them; probed
	// is closed when it has returned.
	limitsMu sync.Mutex
	limits   etcdLimits
	probed   chan struct{}
	// markers is the lease of commit markers (resolve.go).
	markers leaseCache
	// shard is this process's suffix of its tables' counter keys, and
	// shardSession holds its claim (etcd_shard.go); nil when the claim
	// failed and shard is a random one.
	shard        string
	shardSession *concurrency.Session
	// commitHook, when set (tests), runs each commit's etcd transaction
	// instead of cli: it may fail a commit before or after it applies.
	commitHook func(ctx context.Context, cmps []clientv3.Cmp, ops []clientv3.Op) (*clientv3.TxnResponse, error)
	// watcher, when set (tests), serves watches instead of cli.
	watcher clientv3.Watcher
	// mirror is the local copy eventually consistent reads may be served
	// from (etcd_mirror.go); nil when not kept.
	mirror *mirror
}

func (e *etcdEngine) begin(writable bool) (txn, error) {
	return &etcdTxn{e: e, rw: writable, reads: map[string]int64{}, seen: map[string][]byte{}, writes: map[string]*[]byte{}}, nil
}

func (e *etcdEngine) close() error {
	if e.shardSession != nil {
		e.releaseShard()
	}
	e.interrupt()
	<-e.probed
	if e.mirror != nil {
		e.mirror.stop()
	}
	if e.closeClient {
		return e.cli.Close()
	}
	return nil
}

// keyRange is a [from, to) range of full etcd keys read by a transaction.
type keyRange struct{ from, to string }

// etcdTxn is one optimistic transaction.
type etcdTxn struct {
	e        *etcdEngine
	rw       bool
	finished bool
	rev      int64            // the snapshot's revision, 0 before the first read
	reads    map[string]int64 // full key → mod revision seen (0: absent)
	// seen caches what getKey fetched (nil: absent): the snapshot does not
	// change, so a key a batch reads again (the space's marker, its log
	// flag, the counters) costs one round trip, not one per request.
	seen map[string][]byte
	// pre holds what prefetch fetched (etcd_prefetch.go), each key's value
	// (nil: absent) and mod revision, until getKey first reads it.
	pre     map[string]kv
	ranges  []keyRange // ranges read by a write transaction
	writes  map[string]*[]byte
	leased  map[string]clientv3.LeaseID // writes that expire with a lease
	fences  map[string]int64            // election key → create revision (Ownership.Fence)
	dropped []string                    // data prefixes of spaces dropped by this transaction
	err     error                       // the first failed etcd request: the transaction is void
	// local, when set, is the process's copy of the store this read-only
	// transaction reads at its revision (ReadEventual); what it does not
	// hold is read from etcd at that revision.
	local *mirrorSnap
}

func (t *etcdTxn) writable() bool { return t.rw }

// failure returns the error of the first etcd request that failed.
func (t *etcdTxn) failure() error { return t.err }

func (t *etcdTxn) fail(err error) {
	if t.err == nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("store: etcd request timed out: %w", err)
		}
		t.err = err
	}
}

// fetch reads keys in [from, to) (to "" = just from) at the snapshot,
// fixing the snapshot's revision on the first read.
func (t *etcdTxn) fetch(from, to string, limit int64, desc bool) ([]kv, bool) {
	if t.err != nil || t.finished {
		return nil, false
	}
	if t.local != nil {
		if out, more, ok := t.local.fetch(from, to, limit, desc); ok {
			return out, more
		}
	}
	opts := []clientv3.OpOption{}
	if to != "" {
		opts = append(opts, clientv3.WithRange(to))
	}
	if limit > 0 {
		opts = append(opts, clientv3.WithLimit(limit))
	}
	if desc {
		opts = append(opts, clientv3.WithSort(clientv3.SortByKey, clientv3.SortDescend))
	}
	if t.rev != 0 {
		// A read at a revision already read is served by the member from
		// its own copy (serializable: no round of Raft's read index), and
		// sees what a linearizable read at that revision sees: the
		// revision is immutable. A member behind it (another endpoint of
		// a multi-member cluster) refuses it as a future revision: then
		// the read is repeated linearizably.
		opts = append(opts, clientv3.WithRev(t.rev))
	}
	resp, err := t.get(from, opts, t.rev != 0)
	if err != nil {
		t.fail(err)
		return nil, false
	}
	if t.rev == 0 {
		t.rev = resp.Header.Revision
	}
	out := make([]kv, len(resp.Kvs))
	for i, x := range resp.Kvs {
		out[i] = kv{key: string(x.Key), val: x.Value, mod: x.ModRevision, create: x.CreateRevision}
	}
	return out, resp.More
}

// get sends one range request; serializable first when asked, and again
// linearizably when the member has not applied the revision asked for.
func (t *etcdTxn) get(key string, opts []clientv3.OpOption, serializable bool) (*clientv3.GetResponse, error) {
	ctx, cancel := context.WithTimeout(t.e.ctx, t.e.timeout)
	defer cancel()
	if serializable {
		resp, err := t.e.cli.Get(ctx, key, append(opts, clientv3.WithSerializable())...)
		if !errors.Is(err, rpctypes.ErrFutureRev) {
			return resp, err
		}
	}
	return t.e.cli.Get(ctx, key, opts...)
}

type kv struct {
	key         string
	val         []byte
	mod, create int64
}

// getKey returns the value of full key k as this transaction sees it.
func (t *etcdTxn) getKey(k string) []byte {
	if w, ok := t.writes[k]; ok {
		if w == nil {
			return nil
		}
		return *w
	}
	if t.droppedKey(k) {
		return nil
	}
	if v, ok := t.seen[k]; ok {
		return v
	}
	if p, ok := t.pre[k]; ok {
		t.reads[k], t.seen[k] = p.mod, p.val
		return p.val
	}
	kvs, _ := t.fetch(k, "", 0, false)
	if t.err != nil {
		return nil
	}
	var v []byte
	t.reads[k] = 0
	if len(kvs) == 1 {
		t.reads[k] = kvs[0].mod
		v = kvs[0].val
		if v == nil {
			v = []byte{}
		}
	}
	t.seen[k] = v
	return v
}

func (t *etcdTxn) droppedKey(k string) bool {
	for _, p := range t.dropped {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func (t *etcdTxn) putKey(k string, v []byte) error {
	if !t.rw {
		return ErrReadOnly
	}
	if t.finished {
		return ErrTxClosed
	}
	t.writes[k] = &v
	delete(t.leased, k)
	return nil
}

func (t *etcdTxn) deleteKey(k string) error {
	if !t.rw {
		return ErrReadOnly
	}
	if t.finished {
		return ErrTxClosed
	}
	t.writes[k] = nil
	return nil
}

func (t *etcdTxn) catalog() bucket { return &etcdBucket{t: t, pre: t.e.prefix + "c"} }

func (t *etcdTxn) markerKey(id string) string { return t.e.prefix + "S" + id }
func (t *etcdTxn) dataPrefix(id string) string {
	return t.e.prefix + "s" + id + "\x00"
}

func (t *etcdTxn) space(id string) spaceTxn {
	if t.getKey(t.markerKey(id)) == nil {
		return nil
	}
	return etcdSpace{t: t, id: id}
}

func (t *etcdTxn) createSpace(id string) error {
	if !t.rw {
		return ErrReadOnly
	}
	if t.getKey(t.markerKey(id)) != nil {
		return ErrSpaceExists
	}
	if t.err != nil {
		return t.err
	}
	return t.putKey(t.markerKey(id), []byte{})
}

func (t *etcdTxn) dropSpace(id string) error {
	if !t.rw {
		return ErrReadOnly
	}
	if t.getKey(t.markerKey(id)) == nil {
		return t.err
	}
	p := t.dataPrefix(id)
	// etcd refuses a put inside a range the same transaction deletes.
	for k := range t.writes {
		if strings.HasPrefix(k, p) {
			delete(t.writes, k)
		}
	}
	t.dropped = append(t.dropped, p)
	if err := t.deleteKey(t.e.prefix + "q" + id); err != nil {
		return err
	}
	return t.deleteKey(t.markerKey(id))
}

func (t *etcdTxn) spaceIDs(fn func(id string) bool) {
	b := &etcdBucket{t: t, pre: t.e.prefix + "S"}
	b.ascend(nil, nil, func(k, _ []byte) bool {
		return fn(string(k))
	})
}

func (t *etcdTxn) rollback() { t.finished = true }

func (t *etcdTxn) commit() error {
	if t.finished {
		return ErrTxClosed
	}
	t.finished = true
	if t.err != nil {
		return t.err
	}
	if len(t.writes) == 0 && len(t.dropped) == 0 {
		if t.local != nil && len(t.reads)+len(t.ranges)+len(t.fences) > 0 {
			return t.validate() // what it read may be stale (readLocal)
		}
		return nil
	}
	cmps, ops, size := t.request()
	if err := t.e.currentLimits().fits(len(cmps)+1, len(ops)+1, size); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(t.e.ctx, t.e.timeout)
	defer cancel()
	lease, err := t.e.markers.get(ctx, t.e.cli, markerTTL, t.e.timeout)
	if err != nil {
		return err
	}
	// The commit's marker: a fresh key, written only if absent, so that a
	// commit whose answer is lost can be resolved (resolve).
	marker := t.e.prefix + "x" + randomID()
	cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(marker), "=", 0))
	ops = append(ops, clientv3.OpPut(marker, "", clientv3.WithLease(lease)))
	resp, err := t.e.txn(ctx, cmps, ops)
	switch {
	case err != nil && tooLarge(err):
		return fmt.Errorf("%w: etcd refused it (%v): see the cluster's --max-txn-ops and --max-request-bytes", ErrTxnTooLarge, err)
	case err != nil && definite(err):
		return err
	case err != nil:
		return t.e.resolve(marker, lease, err)
	case !resp.Succeeded:
		return errConflict
	}
	if t.e.mirror != nil {
		t.e.mirror.noteCommit(resp.Header.Revision)
	}
	return nil
}

// request returns the compares and operations of t's commit, and about how
// many bytes they take.
func (t *etcdTxn) request() (cmps []clientv3.Cmp, ops []clientv3.Op, size int) {
	cmps = make([]clientv3.Cmp, 0, len(t.reads)+len(t.ranges)+1)
	for k, mod := range t.reads {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", mod))
		size += len(k) + 16
	}
	for k, rev := range t.fences {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(k), "=", rev))
		size += len(k) + 16
	}
	for _, r := range t.ranges {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(r.from), "<", t.rev+1).WithRange(r.to))
		size += len(r.from) + len(r.to) + 16
	}
	ops = make([]clientv3.Op, 0, len(t.writes)+len(t.dropped)+1)
	for _, p := range t.dropped {
		ops = append(ops, clientv3.OpDelete(p, clientv3.WithPrefix()))
		size += 2*len(p) + 16
	}
	for k, v := range t.writes {
		size += len(k) + 16
		if v == nil {
			ops = append(ops, clientv3.OpDelete(k))
		} else if id, ok := t.leased[k]; ok {
			ops = append(ops, clientv3.OpPut(k, string(*v), clientv3.WithLease(id)))
			size += len(*v)
		} else {
			ops = append(ops, clientv3.OpPut(k, string(*v)))
			size += len(*v)
		}
	}
	return cmps, ops, size
}

// etcdSpace is a space seen through an etcdTxn.
type etcdSpace struct {
	t  *etcdTxn
	id string
}

func (s etcdSpace) sub(which int) bucket {
	return &etcdBucket{t: s.t, pre: s.t.dataPrefix(s.id) + string(rune('0'+which)), seq: s.t.e.prefix + "q" + s.id,
		appendOnly: which == subLog}
}

// etcdBucket is one keyspace: the etcd keys starting with pre.
type etcdBucket struct {
	t   *etcdTxn
	pre string
	seq string // the sequence's key; "" for the catalog
	// appendOnly: the change log, where other transactions only append
	// beyond the last key (or trim below the first). A transaction that
	// read it to its end does not depend on what was appended since (the
	// GSI applier would otherwise conflict with every concurrent write), so
	// its read range ends at the last key it saw.
	appendOnly bool
}

func (b *etcdBucket) get(key []byte) []byte { return b.t.getKey(b.pre + string(key)) }

func (b *etcdBucket) put(key, val []byte) error {
	_, err := b.swapOrPut(key, val, false)
	return err
}

func (b *etcdBucket) swap(key, val []byte) ([]byte, error) { return b.swapOrPut(key, val, true) }

func (b *etcdBucket) swapOrPut(key, val []byte, swap bool) ([]byte, error) {
	switch {
	case len(key) == 0:
		return nil, ErrKeyRequired
	case len(key) > MaxKeySize:
		return nil, ErrKeyTooLarge
	case len(val) > MaxValueSize:
		return nil, ErrValueTooLarge
	}
	var old []byte
	if swap {
		old = b.get(key)
		if b.t.err != nil {
			return nil, b.t.err
		}
	}
	return old, b.t.putKey(b.pre+string(key), val)
}

func (b *etcdBucket) delete(key []byte) error { return b.t.deleteKey(b.pre + string(key)) }

// sequence reads the log's sequence without making the transaction depend
// on it: its callers (LastLogSeq) take it as a lower bound, and a guarded
// read would make every applier batch conflict with every append.
func (b *etcdBucket) sequence() uint64 {
	if b.seq == "" {
		return 0
	}
	var v []byte
	if w, ok := b.t.writes[b.seq]; ok && w != nil {
		v = *w
	} else if _, read := b.t.reads[b.seq]; read {
		v = b.t.getKey(b.seq)
	} else if p, ok := b.t.pre[b.seq]; ok {
		v = p.val
	} else if kvs, _ := b.t.fetch(b.seq, "", 0, false); len(kvs) == 1 {
		v = kvs[0].val
	}
	return seqValue(v)
}

func seqValue(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func (b *etcdBucket) nextSequence() (uint64, error) {
	if b.seq == "" {
		return 0, errNoSequence
	}
	n := seqValue(b.t.getKey(b.seq)) + 1
	if b.t.err != nil {
		return 0, b.t.err
	}
	return n, b.setSequence(n)
}

func (b *etcdBucket) setSequence(seq uint64) error {
	if b.seq == "" {
		return errNoSequence
	}
	return b.t.putKey(b.seq, binary.BigEndian.AppendUint64(nil, seq))
}

// bounds returns the full-key range of [from, to) in this bucket.
func (b *etcdBucket) bounds(from, to []byte) (lo, hi string) {
	lo = b.pre + string(from)
	if to == nil {
		return lo, clientv3.GetPrefixRangeEnd(b.pre)
	}
	return lo, b.pre + string(to)
}

// pending returns this transaction's buffered writes with keys in [lo, hi),
// sorted.
func (b *etcdBucket) pending(lo, hi string) []string {
	var ks []string
	for k := range b.t.writes {
		if k >= lo && k < hi {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

func (b *etcdBucket) emitPending(k string, fn func(k, v []byte) bool) bool {
	v := b.t.writes[k]
	if v == nil {
		return true // deleted by this transaction
	}
	return fn([]byte(k[len(b.pre):]), *v)
}

func (b *etcdBucket) ascend(from, to []byte, fn func(k, v []byte) bool) {
	lo, hi := b.bounds(from, to)
	pend := b.pending(lo, hi)
	dropped := b.t.droppedKey(lo)
	cur, stop := lo, hi
	if b.appendOnly {
		stop = lo // raised to just past each key seen
	}
	for !dropped && cur < hi {
		kvs, more := b.t.fetch(cur, hi, etcdPage, false)
	page:
		for _, x := range kvs {
			b.saw(x)
			for len(pend) > 0 && pend[0] <= x.key {
				same := pend[0] == x.key
				if !b.emitPending(pend[0], fn) {
					b.readRange(lo, pend[0]+"\x00")
					return
				}
				pend = pend[1:]
				if same {
					continue page
				}
			}
			if !fn([]byte(x.key[len(b.pre):]), x.val) {
				b.readRange(lo, x.key+"\x00")
				return
			}
			if b.appendOnly {
				stop = x.key + "\x00"
			}
		}
		if !more || len(kvs) == 0 {
			break
		}
		cur = kvs[len(kvs)-1].key + "\x00"
	}
	for _, k := range pend {
		if !b.emitPending(k, fn) {
			stop = k + "\x00"
			break
		}
	}
	b.readRange(lo, stop)
}

func (b *etcdBucket) descend(from, to []byte, fn func(k, v []byte) bool) {
	lo, hi := b.bounds(from, to)
	pend := b.pending(lo, hi)
	dropped := b.t.droppedKey(lo)
	cur, stop := hi, lo
	for !dropped && cur > lo {
		kvs, more := b.t.fetch(lo, cur, etcdPage, true)
	page:
		for _, x := range kvs {
			b.saw(x)
			for len(pend) > 0 && pend[len(pend)-1] >= x.key {
				k := pend[len(pend)-1]
				if !b.emitPending(k, fn) {
					b.readRange(k, hi)
					return
				}
				pend = pend[:len(pend)-1]
				if k == x.key {
					continue page
				}
			}
			if !fn([]byte(x.key[len(b.pre):]), x.val) {
				b.readRange(x.key, hi)
				return
			}
		}
		if !more || len(kvs) == 0 {
			break
		}
		cur = kvs[len(kvs)-1].key
	}
	for i := len(pend) - 1; i >= 0; i-- {
		if !b.emitPending(pend[i], fn) {
			stop = pend[i]
			break
		}
	}
	b.readRange(stop, hi)
}

// saw records that a write transaction's range read met x, so that its
// commit fails if another commit has deleted x since (a range compare sees
// only the keys that exist then). The change log is exempt, as in ascend:
// it is trimmed only behind its readers.
func (b *etcdBucket) saw(x kv) {
	if !b.t.rw || b.appendOnly {
		return
	}
	if _, ok := b.t.reads[x.key]; !ok {
		b.t.reads[x.key] = x.mod
	}
}

// readRange records that a write transaction read [from, to), so that its
// commit fails if another commit has added or changed a key there since.
func (b *etcdBucket) readRange(from, to string) {
	if b.t.rw && from < to && b.t.rev != 0 {
		b.t.ranges = append(b.t.ranges, keyRange{from, to})
	}
}
