package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A file-backed DB serves reads and writes from the memory engine and makes
// them durable with a write-ahead log beside the bbolt file: every commit
// appends one record and fdatasyncs before it becomes visible, so a group
// commit costs one sequential write and one sync whatever it changed. A
// background checkpointer copies full log segments into bbolt (one big
// transaction instead of one per commit, so each page is written once per
// segment rather than once per commit) and deletes them. Opening loads bbolt
// into memory and replays the segments it has not absorbed yet.
//
// Files: the bbolt file at path, and segments named path + "-wal-" + a
// 16-digit hexadecimal number, numbered upwards. bbolt's root bucket "wal"
// records the last segment it holds completely.

// segmentLimit is the size at which the log moves to a new segment and hands
// the full one to the checkpointer. It bounds the log replayed at start-up
// and how much the checkpointer writes at once.
const segmentLimit = 32 << 20

// checkpointChunk is how many bytes of records the checkpointer applies per
// bbolt transaction, bounding the dirty pages bbolt holds in memory.
const checkpointChunk = 8 << 20

// walBucket is bbolt's root bucket for the log's bookkeeping, and
// appliedKey the key of the last segment bbolt holds in full.
const (
	walBucket  = "wal"
	appliedKey = "applied"
)

// wal is the log of a durable memory engine. append runs on the committer
// goroutine only; the checkpointer works on closed segments.
type wal struct {
	path   string // the bbolt file's path; segments are named after it
	noSync bool
	limit  int64 // segmentLimit, smaller in tests

	f        *os.File // the segment being appended to
	seg      uint64   // its number
	size     int64    // bytes of intact records in it
	prealloc bool     // it was a spare: appends overwrite zeros
	err      error    // sticky: after a failed write or sync, nothing is certain

	ck     *checkpointer
	spares *sparer // nil without fsync, where a spare gains nothing
}

// openDurable opens the bbolt file at path, loads it and the log segments
// beside it into a memory engine, and starts a new segment for the commits to
// come.
func openDurable(path string, noSync bool, log *slog.Logger) (*memEngine, error) {
	return openDurableLimit(path, noSync, segmentLimit, log)
}

func openDurableLimit(path string, noSync bool, limit int64, log *slog.Logger) (*memEngine, error) {
	b, err := openBolt(path, noSync)
	if err != nil {
		return nil, err
	}
	e, err := recoverDurable(path, b)
	if err != nil {
		_ = b.close()
		return nil, err
	}
	w := &wal{path: path, noSync: noSync, limit: limit}
	if !noSync {
		w.spares = startSparer(path, limit)
	}
	last := e.segs
	next := e.applied + 1
	if len(last) > 0 {
		next = last[len(last)-1] + 1
	}
	if err := w.create(next); err != nil {
		w.spares.stop()
		_ = b.close()
		return nil, err
	}
	w.ck = startCheckpointer(b, path, last, log)
	e.mem.wal = w
	return e.mem, nil
}

// recovered is the state rebuilt at start-up.
type recovered struct {
	mem     *memEngine
	applied uint64   // the last segment bbolt holds in full
	segs    []uint64 // segments replayed on top, still to be checkpointed
}

// recoverDurable loads bbolt into a new memory engine and replays, in order,
// the log segments bbolt does not hold yet. Segments it does hold are left
// over from a checkpoint interrupted before it could delete them.
func recoverDurable(path string, b boltEngine) (*recovered, error) {
	r := &recovered{mem: newMemEngine()}
	bt, err := b.begin(false)
	if err != nil {
		return nil, err
	}
	defer bt.rollback()
	r.applied = appliedSegment(bt.(boltTxn))

	mt, _ := r.mem.begin(true)
	defer mt.rollback() // after commit, does nothing
	if err := copyState(mt, bt); err != nil {
		return nil, fmt.Errorf("store: load %s: %w", path, err)
	}
	segs, err := listSegments(path)
	if err != nil {
		return nil, err
	}
	for _, n := range segs {
		name := segmentName(path, n)
		if n <= r.applied {
			if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("store: remove %s: %w", name, err)
			}
			continue
		}
		if err := replaySegment(name, mt); err != nil {
			return nil, err
		}
		r.segs = append(r.segs, n)
	}
	if err := mt.commit(); err != nil {
		return nil, err
	}
	return r, nil
}

// copyState copies everything in src into dst, which is empty. dst keeps
// what src hands out, so src must stay open until dst commits (the memory
// engine, the one dst, copies it into its arena anyway).
func copyState(dst, src txn) error {
	var err error
	copyKeys := func(to, from bucket) {
		from.ascend(nil, nil, func(k, v []byte) bool {
			err = to.put(k, v)
			return err == nil
		})
	}
	copyKeys(dst.catalog(), src.catalog())
	src.spaceIDs(func(id string) bool {
		if err = dst.createSpace(id); err != nil {
			return false
		}
		from, to := src.space(id), dst.space(id)
		for which := range subCount {
			if copyKeys(to.sub(which), from.sub(which)); err != nil {
				return false
			}
		}
		if seq := from.sub(subLog).sequence(); seq != 0 {
			err = to.sub(subLog).setSequence(seq)
		}
		return err == nil
	})
	return err
}

// replaySegment applies the intact records of segment file name to t.
func replaySegment(name string, t txn) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", name, err)
	}
	defer f.Close()
	if _, err := readRecords(f, func(body []byte) error { return applyRecord(t, body) }); err != nil {
		return fmt.Errorf("store: replay %s: %w", name, err)
	}
	return nil
}

// appliedSegment reads the number of the last segment bbolt holds in full.
func appliedSegment(t boltTxn) uint64 {
	if b := t.t.Bucket([]byte(walBucket)); b != nil {
		if v := b.Get([]byte(appliedKey)); len(v) == 8 {
			return binary.BigEndian.Uint64(v)
		}
	}
	return 0
}

func segmentName(path string, n uint64) string { return fmt.Sprintf("%s-wal-%016x", path, n) }

// listSegments returns the numbers of the segments beside path, ascending.
func listSegments(path string) ([]uint64, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("store: list %s: %w", dir, err)
	}
	prefix := base + "-wal-"
	var segs []uint64
	for _, ent := range entries {
		name, ok := strings.CutPrefix(ent.Name(), prefix)
		if !ok || len(name) != 16 {
			continue
		}
		if n, err := strconv.ParseUint(name, 16, 64); err == nil {
			segs = append(segs, n)
		}
	}
	slices.Sort(segs)
	return segs, nil
}

// create starts segment n, from the spare if one is ready (and asks for
// the next), otherwise empty, and makes its name durable.
func (w *wal) create(n uint64) error {
	name := segmentName(w.path, n)
	prealloc := w.spares.take(name)
	flags := os.O_WRONLY
	if !prealloc {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(name, flags, 0o600)
	if err != nil {
		return fmt.Errorf("store: create %s: %w", name, err)
	}
	if !w.noSync {
		if err := syncDir(filepath.Dir(w.path)); err != nil {
			_ = f.Close()
			return err
		}
	}
	w.f, w.seg, w.size, w.prealloc = f, n, 0, prealloc
	return nil
}

// syncDir makes the directory's entries (a new file's name) durable. Windows
// cannot open a directory for syncing; NTFS journals names itself.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	return nil
}

// append writes rec and waits until it is on disk. A failed write is cut
// off again so later records follow intact ones; if that or a sync fails,
// every later append fails too (the file's state is unknown).
func (w *wal) append(rec []byte) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.f.WriteAt(rec, w.size); err != nil {
		if terr := w.f.Truncate(w.size); terr != nil {
			w.err = fmt.Errorf("store: write-ahead log unusable: %w", errors.Join(err, terr))
		}
		return fmt.Errorf("store: write-ahead log: %w", err)
	}
	if !w.noSync {
		if err := fdatasync(w.f); err != nil {
			// The caller hears of a failure, so the record must not come
			// back at the next open; after that, nothing is trusted.
			_ = w.f.Truncate(w.size)
			w.err = fmt.Errorf("store: write-ahead log unusable: sync: %w", err)
			return w.err
		}
	}
	w.size += int64(len(rec))
	limit := w.limit
	if !w.prealloc && w.spares != nil {
		limit /= 8 // move to a spare early: its syncs are cheaper
	}
	if w.size >= limit {
		w.rotate()
	}
	return nil
}

// rotate hands the full segment to the checkpointer and starts the next.
// The record that filled it is durable already: a failure here fails later
// appends (w.err), not this one.
func (w *wal) rotate() {
	err := w.f.Close()
	w.f = nil
	w.ck.add(w.seg)
	if err == nil {
		err = w.create(w.seg + 1)
	}
	if err != nil {
		w.err = fmt.Errorf("store: write-ahead log: %w", err)
	}
}

// close checkpoints every segment, so that a cleanly closed DB is the bbolt
// file alone, and closes bbolt.
func (w *wal) close() error {
	var errs []error
	if w.f != nil {
		errs = append(errs, w.f.Close())
		w.ck.add(w.seg)
	}
	errs = append(errs, w.ck.close())
	w.spares.stop()
	return errors.Join(errs...)
}

// sparer prepares the next segment in the background: zero-filled to the
// segment size and synced, so that appending to it changes no file
// metadata and each fdatasync flushes data alone (on ext4 this measured
// about a third less CPU and half the wait of syncing an append that grows
// the file). A spare left by a crash is complete (it is renamed into place
// last) and is used; a half-written one is removed.
type sparer struct {
	name  string // the spare's path
	size  int64
	ready atomic.Bool   // the spare exists and is complete
	want  chan struct{} // asks for a spare (buffered, one)
	done  chan struct{}
}

func startSparer(path string, size int64) *sparer {
	s := &sparer{name: path + "-wal-spare", size: size, want: make(chan struct{}, 1), done: make(chan struct{})}
	_ = os.Remove(s.name + ".tmp")
	if st, err := os.Stat(s.name); err == nil && st.Size() >= size {
		s.ready.Store(true)
	}
	go s.loop()
	s.ask()
	return s
}

func (s *sparer) ask() {
	select {
	case s.want <- struct{}{}:
	default:
	}
}

func (s *sparer) loop() {
	defer close(s.done)
	for range s.want {
		if s.ready.Load() {
			continue
		}
		if err := s.prepare(); err == nil {
			s.ready.Store(true)
		} else {
			_ = os.Remove(s.name + ".tmp") // segments are then created empty
		}
	}
}

func (s *sparer) prepare() error {
	tmp := s.name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	zeros := make([]byte, 1<<20)
	for left := s.size; left > 0 && err == nil; left -= int64(len(zeros)) {
		_, err = f.Write(zeros[:min(left, int64(len(zeros)))])
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.name)
	}
	return err
}

// take renames a ready spare to name and reports whether it did. Either way
// a spare is asked for: the next one, or another try after a failed one
// (a full disk). A nil sparer never has one.
func (s *sparer) take(name string) bool {
	if s == nil {
		return false
	}
	defer s.ask()
	if !s.ready.Load() || os.Rename(s.name, name) != nil {
		return false
	}
	s.ready.Store(false)
	return true
}

// stop ends the preparation and removes the spare: a stopped DB is the bbolt
// file alone.
func (s *sparer) stop() {
	if s == nil {
		return
	}
	close(s.want)
	<-s.done
	_ = os.Remove(s.name)
}

// checkpointer copies closed segments into bbolt, oldest first, and deletes
// them. A failure (a full disk, say) is logged and retried, waiting longer
// each time; the segments stay on disk meanwhile, so nothing is lost, and an
// open after a stop replays them.
type checkpointer struct {
	b    boltEngine
	path string
	log  *slog.Logger // nil: failures are only returned by close

	// running is held while a segment is checkpointed, so that tests can
	// copy the files in a state a crash could leave.
	running sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond
	pending []uint64
	closing bool
	err     error         // the last failure, nil once a retry succeeds
	quit    chan struct{} // closed by close: stop waiting to retry
	done    chan struct{}

	// Under mu: the first wait after a failure, and, in tests, a failure
	// to inject before each checkpoint.
	retry   time.Duration
	failing func(uint64) error
}

// Waits between retries of a failed checkpoint.
const (
	checkpointRetry    = time.Second
	checkpointRetryMax = time.Minute
)

func startCheckpointer(b boltEngine, path string, pending []uint64, log *slog.Logger) *checkpointer {
	c := &checkpointer{b: b, path: path, log: log, pending: pending, retry: checkpointRetry,
		quit: make(chan struct{}), done: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	go c.loop()
	return c
}

func (c *checkpointer) add(seg uint64) {
	c.mu.Lock()
	c.pending = append(c.pending, seg)
	c.mu.Unlock()
	c.cond.Signal()
}

// close waits until every pending segment is in bbolt, or until the one
// being worked on has failed once more, then closes bbolt. Segments not
// absorbed stay on disk and are replayed at the next open.
func (c *checkpointer) close() error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.cond.Signal()
	close(c.quit)
	<-c.done
	return errors.Join(c.err, c.b.close())
}

func (c *checkpointer) loop() {
	defer close(c.done)
	var wait time.Duration
	for {
		c.mu.Lock()
		for len(c.pending) == 0 && !c.closing {
			c.cond.Wait()
		}
		if len(c.pending) == 0 {
			c.mu.Unlock()
			return
		}
		seg, failing := c.pending[0], c.failing
		if wait == 0 {
			wait = c.retry
		}
		c.mu.Unlock()

		c.running.Lock()
		err := c.attempt(seg, failing)
		c.running.Unlock()
		c.mu.Lock()
		c.err = err
		if err == nil {
			c.pending = c.pending[1:]
		}
		closing := c.closing
		c.mu.Unlock()
		if err == nil {
			wait = 0
			continue
		}
		if c.log != nil {
			c.log.Error("checkpoint failed; the log is kept and the checkpoint retried", "segment", segmentName(c.path, seg), "retry_in", wait, "err", err)
		}
		if closing {
			return
		}
		select {
		case <-time.After(wait):
		case <-c.quit:
		}
		wait = min(2*wait, checkpointRetryMax)
	}
}

func (c *checkpointer) attempt(seg uint64, failing func(uint64) error) error {
	if failing != nil {
		if err := failing(seg); err != nil {
			return err
		}
	}
	return c.checkpoint(seg)
}

// inject makes each later checkpoint call fail first, and sets the first
// wait before a retry (tests).
func (c *checkpointer) inject(retry time.Duration, fail func(uint64) error) {
	c.mu.Lock()
	c.retry, c.failing = retry, fail
	c.mu.Unlock()
}

// checkpoint applies segment seg to bbolt, a chunk of records per
// transaction, records it as applied in the last one, and deletes it.
func (c *checkpointer) checkpoint(seg uint64) error {
	name := segmentName(c.path, seg)
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	defer f.Close()

	t, err := c.b.begin(true)
	if err != nil {
		return err
	}
	var chunk int
	_, err = readRecords(f, func(body []byte) error {
		if chunk >= checkpointChunk {
			if err := t.commit(); err != nil {
				return err
			}
			if t, err = c.b.begin(true); err != nil {
				return err
			}
			chunk = 0
		}
		chunk += len(body)
		return applyRecord(t, body)
	})
	if err == nil {
		err = setApplied(t.(boltTxn), seg)
	}
	if err != nil {
		if t != nil {
			t.rollback()
		}
		return fmt.Errorf("store: checkpoint %s: %w", name, err)
	}
	if err := t.commit(); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", name, err)
	}
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	return nil
}

// setApplied records seg as the last segment bbolt holds in full.
func setApplied(t boltTxn, seg uint64) error {
	b, err := t.t.CreateBucketIfNotExists([]byte(walBucket))
	if err != nil {
		return mapErr(err)
	}
	return mapErr(b.Put([]byte(appliedKey), binary.BigEndian.AppendUint64(nil, seg)))
}
