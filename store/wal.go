package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A file-backed DB serves reads and writes from the memory engine and makes
// them durable with a write-ahead log beside the bbolt file: every commit
// appends one record, so a group commit costs one sequential write whatever
// it changed. By default (SyncBackground) a commit is visible and answered
// once its record is written, which a killed process cannot take back, and
// fdatasyncs run behind the commits (wal_background.go); with SyncAlways a
// commit waits for its record's fdatasync (wal_pipeline.go). A
// background checkpointer copies full log segments into bbolt (one big
// transaction instead of one per commit, so each page is written once per
// segment rather than once per commit) and deletes them. Opening loads bbolt
// into memory and replays the segments it has not absorbed yet.
//
// Files: the bbolt file at path, and segments named path + "-wal-" + a
// 16-digit hexadecimal number, numbered upwards. bbolt's root bucket "wal"
// records the last segment it holds completely.
//
// One idea per file: wal.go appends to segments and rotates them,
// wal_record.go is the record format, wal_recover.go rebuilds the state at
// start-up, wal_spare.go prepares zero-filled segments ahead of use,
// wal_pipeline.go overlaps one commit's sync with the next commits (SyncAlways),
// wal_background.go syncs behind the commits (SyncBackground), and
// wal_checkpoint.go copies full segments into bbolt.

// segmentLimit is the size at which the log moves to a new segment and hands
// the full one to the checkpointer. It bounds the log replayed at start-up
// and how much the checkpointer writes at once.
const segmentLimit = 32 << 20

// wal is the log of a durable memory engine. append runs on the committer
// goroutine only; the checkpointer works on closed segments.
type wal struct {
	path  string // the bbolt file's path; segments are named after it
	mode  SyncMode
	limit int64 // segmentLimit, smaller in tests
	fs    vfs
	log   *slog.Logger // nil: the fatal failure is only returned

	f vfile // the segment being appended to
	// syncf is the segment opened again for each syncer of the pipeline
	// (or for the background syncer), so that each has its own
	// write-back error state (wal_pipeline.go).
	syncf    []vfile
	seg      uint64 // its number
	size     int64  // bytes of intact records in it
	prealloc bool   // it was a spare: appends overwrite zeros
	// mu guards err against the publisher, which cuts the file back and
	// fails the log when a pipelined sync fails, and the committer's writes.
	mu  sync.Mutex
	err error // sticky: after a failed write or sync, nothing is certain
	// fatal is err, for Ready on other goroutines.
	fatal atomic.Pointer[error]

	ck     *checkpointer
	spares *sparer   // nil without fsync, where a spare gains nothing
	pipe   *pipeline // SyncAlways only: a write is done when synced
	bg     *bgSyncer // SyncBackground only: a write is done when written
}

// openDurable opens the bbolt file at path, loads it and the log segments
// beside it into a memory engine, and starts a new segment for the commits to
// come.
func openDurable(path string, mode SyncMode, log *slog.Logger) (*memEngine, error) {
	return openDurableFS(osFS{}, path, mode, segmentLimit, log)
}

func openDurableLimit(path string, mode SyncMode, limit int64, log *slog.Logger) (*memEngine, error) {
	return openDurableFS(osFS{}, path, mode, limit, log)
}

func openDurableFS(fs vfs, path string, mode SyncMode, limit int64, log *slog.Logger) (*memEngine, error) {
	b, err := openBolt(fs, path, mode == syncNever)
	if err != nil {
		return nil, err
	}
	e, err := recoverDurable(fs, path, b)
	if err != nil {
		_ = b.close()
		return nil, err
	}
	w := &wal{path: path, mode: mode, limit: limit, fs: fs, log: log}
	if mode != syncNever {
		w.spares = startSparer(fs, path, limit)
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
	e.mem.wal = w
	switch mode {
	case SyncAlways:
		w.pipe = startPipeline(e.mem)
	case SyncBackground:
		w.bg = startBgSyncer(w, w.syncf[0], syncBound)
	}
	w.ck = startCheckpointer(fs, b, path, last, e.mem, log)
	return e.mem, nil
}

func segmentName(path string, n uint64) string { return fmt.Sprintf("%s-wal-%016x", path, n) }

// listSegments returns the numbers of the segments beside path, ascending.
func listSegments(fs vfs, path string) ([]uint64, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := fs.ReadDir(dir)
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
	f, err := w.fs.OpenFile(name, flags, 0o600)
	if err != nil {
		return fmt.Errorf("store: create %s: %w", name, err)
	}
	var syncf []vfile
	if w.mode != syncNever {
		syncf, err = openSyncers(w.fs, name, w.syncers())
		if err == nil {
			err = syncDir(w.fs, filepath.Dir(w.path))
		}
		if err != nil {
			_ = f.Close()
			closeAll(syncf)
			return err
		}
	}
	w.f, w.syncf, w.seg, w.size, w.prealloc = f, syncf, n, 0, prealloc
	return nil
}

// syncers is how many goroutines sync the log: pipelineDepth for
// SyncAlways, one for SyncBackground.
func (w *wal) syncers() int {
	if w.mode == SyncAlways {
		return pipelineDepth
	}
	return 1
}

// openSyncers opens segment name n times, once for each syncer.
func openSyncers(fs vfs, name string, n int) ([]vfile, error) {
	files := make([]vfile, 0, n)
	for range n {
		f, err := fs.OpenFile(name, os.O_WRONLY, 0o600)
		if err != nil {
			closeAll(files)
			return nil, fmt.Errorf("store: open %s: %w", name, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// closeAll closes files, whose data is durable or abandoned already.
func closeAll(files []vfile) {
	for _, f := range files {
		_ = f.Close()
	}
}

// syncDir makes the directory's entries (a new file's name) durable.
func syncDir(fs vfs, dir string) error {
	if err := fs.SyncDir(dir); err != nil {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	return nil
}

// append writes rec (the commit path without a pipeline: SyncBackground
// or no fsync). With SyncBackground it first waits while too much of the
// log is not yet synced, and tells the syncer of the record once written;
// with SyncAlways (no pipeline: not used by the server) it syncs rec.
func (w *wal) append(rec []byte) error {
	if w.bg != nil {
		w.bg.admit()
	}
	start, err := w.write(rec)
	if err != nil {
		return err
	}
	switch {
	case w.bg != nil:
		w.bg.wrote(w.size)
	case w.mode == SyncAlways:
		if err := w.f.Datasync(); err != nil {
			return w.syncFailed(w.f, start, err)
		}
	}
	if w.full() {
		w.rotate()
	}
	return nil
}

// write appends rec after the intact records without waiting for the disk
// and returns where it begins. A failed write is cut off again so later
// records follow intact ones; if that fails, every later write fails too
// (the file's state is unknown). Only the committer writes.
func (w *wal) write(rec []byte) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	start := w.size
	if _, err := w.f.WriteAt(rec, start); err != nil {
		if terr := w.f.Truncate(start); terr != nil {
			w.fail(fmt.Errorf("store: write-ahead log unusable: %w", errors.Join(err, terr)))
		}
		return 0, fmt.Errorf("store: write-ahead log: %w", err)
	}
	w.size += int64(len(rec))
	return start, nil
}

// full reports whether the segment should be handed to the checkpointer.
func (w *wal) full() bool {
	limit := w.limit
	if !w.prealloc && w.spares != nil {
		limit /= 8 // move to a spare early: its syncs are cheaper
	}
	return w.size >= limit
}

// syncFailed handles a failed sync of the record written at start in f: a
// failed fsync may have dropped dirty pages the kernel then calls clean, so
// retrying it proves nothing and the log takes no more writes. The callers
// of that record and of every later one hear of a failure, so the log is
// cut back to where it began: none of them should come back at the next
// open. It returns the log's sticky failure.
func (w *wal) syncFailed(f vfile, start int64, err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		_ = f.Truncate(start)
		w.fail(fmt.Errorf("store: write-ahead log unusable: sync: %w", err))
	}
	return w.err
}

// poison makes a pipelined sync's failure the log's sticky failure at
// once, before the publisher acknowledges anything more (wal_pipeline.go).
func (w *wal) poison(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.fail(fmt.Errorf("store: write-ahead log unusable: sync: %w", err))
	}
}

// cutBack cuts f back to start, where the first record not acknowledged
// begins, after the log failed: none of those records should come back
// at the next open.
func (w *wal) cutBack(f vfile, start int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = f.Truncate(start)
}

// fail makes err the log's sticky failure: every later append returns it,
// Ready reports it, and it is logged once. The caller holds mu.
func (w *wal) fail(err error) {
	w.err = err
	w.fatal.Store(&err)
	if w.log != nil {
		w.log.Error("the write-ahead log failed: no more writes are accepted; fix the disk and restart", "err", err)
	}
}

// failure returns the log's sticky failure, nil while it works; safe on
// any goroutine.
func (w *wal) failure() error {
	if p := w.fatal.Load(); p != nil {
		return *p
	}
	return nil
}

// rotate hands the full segment to the checkpointer and starts the next.
// The records in it are durable already (the pipeline, if any, is
// drained; the background syncer is waited for here): a failure here fails
// later appends (w.err), not them. A segment whose background sync failed
// stays the log's (the log has failed): close hands it over.
func (w *wal) rotate() {
	if w.bg != nil && w.bg.drain() != nil {
		return
	}
	err := w.f.Close()
	closeAll(w.syncf)
	w.f, w.syncf = nil, nil
	w.ck.add(w.seg)
	if err == nil {
		err = w.create(w.seg + 1)
	}
	if err == nil && w.bg != nil {
		w.bg.next(w.syncf[0])
	}
	if err != nil {
		w.mu.Lock()
		w.fail(fmt.Errorf("store: write-ahead log unusable: %w", err))
		w.mu.Unlock()
	}
}

// close checkpoints the segments, so that a cleanly closed DB is the bbolt
// file alone, unless that is more than closeBytes of records (after a large
// load): then it leaves the rest to the next open's replay and stops
// promptly (wal_checkpoint.go). It closes bbolt.
func (w *wal) close() error {
	if w.pipe != nil {
		w.pipe.stop()
	}
	var errs []error
	if w.bg != nil {
		w.bg.stop()
	}
	if w.f != nil {
		errs = append(errs, w.f.Close())
		closeAll(w.syncf)
		w.ck.add(w.seg)
	}
	errs = append(errs, w.ck.close())
	w.spares.stop()
	return errors.Join(errs...)
}
