package store

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// Options configures Open.
type Options struct {
	Path     string // bbolt file; ignored when InMemory
	InMemory bool   // no file at all: the memory engine, gone on Close
	NoSync   bool   // no fsync at all (tests)
	// Sync is when a commit's log record is fdatasynced (ignored with
	// NoSync or InMemory): SyncBackground, the zero value, or SyncAlways.
	Sync SyncMode
	// Logger receives what the store's background work cannot return to a
	// caller (a failed checkpoint); nil discards it.
	Logger *slog.Logger
	// Etcd, when set, keeps the store in an etcd cluster shared with other
	// processes (cluster mode); Path and InMemory are then ignored.
	Etcd *EtcdOptions
}

// SyncMode is when a durable store's commit is acknowledged, relative to
// the fdatasync of its log record (wal.go).
type SyncMode uint8

const (
	// SyncBackground acknowledges a commit (and makes it visible) once its
	// record is written to the log file: from then on it survives the
	// process being killed (the kernel holds the written pages). Syncs run
	// behind the commits, one as soon as the previous one ended, and
	// commits wait for one when more than syncBound bytes of records are
	// not yet synced, so an OS crash or power cut loses at most that tail
	// (wal_background.go).
	SyncBackground SyncMode = iota
	// SyncAlways acknowledges a commit only once its record is fdatasynced:
	// it then survives a power cut too (wal_pipeline.go).
	SyncAlways
	// syncNever is Options.NoSync: no fsync at all (tests).
	syncNever
)

// String returns the mode's name as the --sync flag spells it.
func (m SyncMode) String() string {
	switch m {
	case SyncBackground:
		return "background"
	case SyncAlways:
		return "always"
	}
	return "never"
}

// ParseSyncMode returns the mode named s ("background" or "always").
func ParseSyncMode(s string) (SyncMode, error) {
	switch s {
	case "background":
		return SyncBackground, nil
	case "always":
		return SyncAlways, nil
	}
	return 0, fmt.Errorf("invalid sync mode %q: want always or background", s)
}

// lockTimeout bounds how long Open waits for another process's file lock, so
// that starting a second server on the same file fails fast.
const lockTimeout = time.Second

// Root bucket names.
const (
	catalogBucket = "catalog"
	spacesBucket  = "spaces"
)

// initialMmapSize reserves address space up front: bbolt must remap when the
// file outgrows its mapping, and a remap waits for every open read
// transaction, which would stall all writers behind one long View. 64-bit
// address space is cheap; the file itself still grows only as data is written.
const initialMmapSize = 1 << (20 + 10*(strconv.IntSize/64)) // 1 GiB on 64-bit, 1 MiB otherwise

// DB is an open store. It is safe for concurrent use.
type DB struct {
	eng engine
	// optimistic: the engine is etcd's, whose commit can conflict with
	// another process's and whose reads can fail (commit.go).
	optimistic bool

	// mu guards closed; inflight counts Update and View calls admitted before
	// Close so that Close can wait for them.
	mu       sync.RWMutex
	closed   bool
	inflight sync.WaitGroup

	queue         *queue
	committerDone chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the store described by opts, loading a
// file-backed store's data into memory and replaying its write-ahead log, and
// starts its committer goroutine. It returns ErrPathRequired when Path is empty and
// InMemory is false, and an error wrapping ErrLocked when another process has
// the file open for more than about a second.
func Open(opts Options) (*DB, error) {
	if opts.Etcd != nil {
		return openEtcd(*opts.Etcd, opts.Logger)
	}
	if opts.InMemory {
		return newDB(newMemEngine()), nil
	}
	if opts.Path == "" {
		return nil, ErrPathRequired
	}
	mode := opts.Sync
	if opts.NoSync {
		mode = syncNever
	}
	eng, err := openDurable(opts.Path, mode, opts.Logger)
	if err != nil {
		return nil, err
	}
	return newDB(eng), nil
}

// newDB starts the committer of a DB over eng.
func newDB(eng engine) *DB {
	db := &DB{eng: eng, queue: newQueue(), committerDone: make(chan struct{})}
	_, db.optimistic = eng.(*etcdEngine)
	go db.commitLoop()
	return db
}

// openBolt opens the bbolt file at path through fs and creates its root
// buckets.
func openBolt(fs vfs, path string, noSync bool) (boltEngine, error) {
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{
		OpenFile:        fs.OpenOS,
		Timeout:         lockTimeout,
		NoFreelistSync:  true,
		FreelistType:    bolt.FreelistMapType,
		NoSync:          noSync,
		NoGrowSync:      noSync,
		InitialMmapSize: initialMmapSize,
	})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return boltEngine{}, fmt.Errorf("%w: %s", ErrLocked, path)
		}
		return boltEngine{}, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := createRootBuckets(bdb); err != nil {
		_ = bdb.Close()
		return boltEngine{}, fmt.Errorf("store: initialise %s: %w", path, err)
	}
	return boltEngine{bdb}, nil
}

// createRootBuckets creates the root buckets (catalog and spaces) bdb
// lacks. A file that has them (every one opened before) takes no write
// transaction: bbolt commits even an empty one with two fdatasyncs, which
// were part of each restart.
func createRootBuckets(bdb *bolt.DB) error {
	rootBuckets := []string{catalogBucket, spacesBucket}
	missing := false
	if err := bdb.View(func(btx *bolt.Tx) error {
		for _, name := range rootBuckets {
			missing = missing || btx.Bucket([]byte(name)) == nil
		}
		return nil
	}); err != nil || !missing {
		return err
	}
	return bdb.Update(func(btx *bolt.Tx) error {
		for _, name := range rootBuckets {
			if _, err := btx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	})
}

// enter admits one Update or View call; it returns false once Close has begun.
// Every successful enter must be paired with db.inflight.Done.
func (db *DB) enter() bool {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return false
	}
	db.inflight.Add(1)
	return true
}

// Close stops admitting calls (they get ErrClosed), waits for in-flight Update
// and View calls to finish, stops the committer goroutine, copies the
// write-ahead log into the bbolt file (leaving that file alone on disk) and
// closes it; an InMemory store's data is gone afterwards. It is idempotent: later calls
// return the first call's result.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.mu.Lock()
		db.closed = true
		db.mu.Unlock()

		db.inflight.Wait()
		db.queue.close()
		<-db.committerDone

		db.closeErr = db.eng.close()
	})
	return db.closeErr
}

// View runs fn in a read-only transaction: a consistent snapshot that later
// commits do not change. It returns fn's error, ErrClosed after Close, or an
// error wrapping ErrPanic if fn panics. Writes inside fn return ErrReadOnly.
// Slices obtained inside fn are valid only until fn returns. Over a shared
// store (etcd), a snapshot compacted away while fn reads it is an error
// wrapping etcd's ErrCompacted; Read runs fn again instead.
func (db *DB) View(fn func(tx *Tx) error) error { return db.view(fn, 1) }

// Read is View for a function that may run more than once: like an Update
// function, fn must depend only on what it reads through tx and set, not
// accumulate, what it gathers. Over a shared store (etcd) a snapshot
// compacted away while fn reads it (etcd's compaction may be the
// cluster's own, not ddblocal's) makes Read run fn again on a fresh one,
// up to readAttempts times in all.
func (db *DB) Read(fn func(tx *Tx) error) error { return db.view(fn, readAttempts) }

// readAttempts bounds how many times Read runs fn: a second compaction
// during one read is already rare.
const readAttempts = 3

// view is View, running fn up to attempts times while its snapshot is
// compacted away.
func (db *DB) view(fn func(tx *Tx) error, attempts int) error {
	if !db.enter() {
		return ErrClosed
	}
	defer db.inflight.Done()
	for attempt := 1; ; attempt++ {
		t, err := db.eng.begin(false)
		if err != nil {
			return err
		}
		_, err = runFn(fn, &Tx{t: t})
		t.rollback()
		if !db.optimistic {
			return err
		}
		ferr := t.(*etcdTxn).failure()
		if ferr == nil {
			return err
		}
		if !errors.Is(ferr, rpctypes.ErrCompacted) || attempt >= attempts {
			return ferr // fn saw missing data, not the store's
		}
	}
}
