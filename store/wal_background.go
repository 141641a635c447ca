package store

import (
	"fmt"
	"sync"
)

// Background syncing (SyncBackground, the default). A commit is visible
// and answered once its record is written to the segment (pwrite, in log
// order, on the committer): the kernel then holds the record, and a
// process killed with SIGKILL cannot take it back. What fdatasync adds is
// surviving an OS crash or a power cut, and that runs behind the commits
// on one syncer goroutine, continuously: a sync starts as soon as records
// are written that no sync has covered and the previous sync has ended,
// and each covers every record written before it began.
//
// So on this kind of disk (a median sync of about a millisecond with a
// tail of 10 ms and more) no commit waits for the disk's latency, while
// the records not yet on disk stay a sync's worth. A bound makes that a
// promise: once syncBound bytes of records are written but not synced (a
// disk that stalls, or writes faster than it syncs), the next commit waits
// for a sync before writing (back-pressure), so an OS crash or power cut
// loses at most that tail of acknowledged writes.
//
// A failed sync makes the log's failure sticky at once (as with
// SyncAlways): every later write fails, Ready reports it, and the server
// logs that writes acknowledged since the last good sync may not be on
// disk. Nothing is cut back: those writes were answered, and the pages the
// kernel still holds are the best copy of them. The log moves to the next
// segment only once the syncer has synced the full one through its own
// descriptor (rotate), and closing syncs what is left, so the checkpointer
// is handed only synced segments.
//
// The syncer fdatasyncs through a descriptor of its own (wal.syncf[0],
// opened with the segment), never the writer's: each sync then reports
// every write-back error recorded since the previous one (errseq_t).

// syncBound is how many bytes of written records may wait for a sync
// before commits wait for one.
const syncBound = 8 << 20

// bgSyncer syncs a segment behind its writer.
type bgSyncer struct {
	w     *wal
	bound int64

	mu      sync.Mutex
	cond    *sync.Cond // broadcast when written, synced, err or stopping change
	f       vfile      // the segment's syncer descriptor
	written int64      // bytes of records written to f
	synced  int64      // of those, the bytes a sync has covered
	err     error      // a failed sync's: the syncer has stopped
	quit    bool
	done    chan struct{}
}

// startBgSyncer starts the syncer of w's segment f; commits wait once
// bound bytes are not synced.
func startBgSyncer(w *wal, f vfile, bound int64) *bgSyncer {
	s := &bgSyncer{w: w, bound: bound, f: f, done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go s.loop()
	return s
}

func (s *bgSyncer) loop() {
	defer close(s.done)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for s.written == s.synced && !s.quit {
			s.cond.Wait()
		}
		if s.written == s.synced {
			return // stopping, everything synced
		}
		f, target, from := s.f, s.written, s.synced
		s.mu.Unlock()
		err := f.Datasync()
		if err != nil {
			s.failed(err, target-from)
		}
		s.mu.Lock()
		if err != nil {
			s.err = err
			s.cond.Broadcast()
			return
		}
		s.synced = target
		s.cond.Broadcast()
	}
}

// failed makes a failed sync the log's sticky failure and says what it
// may have cost: unsynced bytes of acknowledged records.
func (s *bgSyncer) failed(err error, unsynced int64) {
	s.w.poison(err)
	if s.w.log != nil {
		s.w.log.Error("a background fdatasync of the write-ahead log failed: writes acknowledged since the last good sync may not be on disk (they survive unless the machine crashes or loses power before the kernel writes them)",
			"segment", segmentName(s.w.path, s.w.seg), "unsynced_bytes", unsynced, "err", err)
	}
}

// admit waits while bound bytes or more of written records are not yet
// synced (back-pressure), or until a sync has failed; the write that
// follows then fails with the log's failure. Only the committer calls it.
func (s *bgSyncer) admit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.written-s.synced >= s.bound && s.err == nil {
		s.cond.Wait()
	}
}

// wrote tells the syncer that records up to size are written.
func (s *bgSyncer) wrote(size int64) {
	s.mu.Lock()
	s.written = size
	s.mu.Unlock()
	s.cond.Broadcast()
}

// drain waits until every record written is synced, and returns the
// failed sync's error otherwise. Only the committer calls it (rotate).
func (s *bgSyncer) drain() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.written != s.synced && s.err == nil {
		s.cond.Wait()
	}
	if s.err != nil {
		return fmt.Errorf("store: write-ahead log unusable: sync: %w", s.err)
	}
	return nil
}

// next moves the syncer to the next segment's descriptor f, once drain
// has synced the last one.
func (s *bgSyncer) next(f vfile) {
	s.mu.Lock()
	s.f, s.written, s.synced = f, 0, 0
	s.mu.Unlock()
}

// stop syncs what is written and ends the syncer.
func (s *bgSyncer) stop() {
	s.mu.Lock()
	s.quit = true
	s.mu.Unlock()
	s.cond.Broadcast()
	<-s.done
}
