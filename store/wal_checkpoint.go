package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointChunk is how many bytes of records the checkpointer applies per
// bbolt transaction, bounding the dirty pages bbolt holds in memory.
const checkpointChunk = 8 << 20

// walBucket is bbolt's root bucket for the log's bookkeeping, and
// appliedKey the key of the last segment bbolt holds in full.
const (
	walBucket  = "wal"
	appliedKey = "applied"
)

// closeBytes bounds the records close still checkpoints after it is
// called (checked at chunk boundaries, so a chunk more at most): a clean
// close after a few writes leaves the bbolt file alone, but one after a
// large load, whose backlog of segments would take the checkpointer many
// seconds, stops there and leaves the rest of the log on disk, which the
// next open replays. Stopping thus stays prompt and loses nothing.
const closeBytes = 8 << 20

// errCloseBudget stops a checkpoint at a chunk boundary when close has
// spent closeBytes: the segment stays and is replayed (and checkpointed
// again from its start) at the next open.
var errCloseBudget = errors.New("store: checkpoint left to the next open")

// checkpointer copies closed segments into bbolt, oldest first, and deletes
// them. A failure (a full disk, say) is logged and retried, waiting longer
// each time; the segments stay on disk meanwhile, so nothing is lost, and an
// open after a stop replays them.
type checkpointer struct {
	fs   vfs
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

	// chunk is checkpointChunk, smaller in tests; stepped, when set
	// (tests), is called after each step of a checkpoint that changes the
	// files: a crash there leaves what it sees.
	chunk   int
	stepped func(step string)
	// closeBudget is closeBytes, smaller in tests; closeSpent counts the
	// bytes of records applied since close began (the loop's goroutine).
	closeBudget, closeSpent int

	// mem is the memory engine whose log this is: sorted checkpoints
	// (wal_sorted.go) read its state. sortedMin, sortedTable,
	// sortedNodes and sortedBytes are their bounds, smaller in tests.
	mem                                              *memEngine
	sortedMin, sortedTable, sortedNodes, sortedBytes int
	sortedKeyBytes                                   int

	// pacer, when set (DB.SetPacer), paces the checkpoints (wal_pace.go);
	// pace is the current checkpoint's hold on it (the loop's goroutine).
	pacer atomic.Pointer[Pacer]
	pace  *pace
}

// Waits between retries of a failed checkpoint.
const (
	checkpointRetry    = time.Second
	checkpointRetryMax = time.Minute
)

// startCheckpointer starts checkpointing the log of mem (whose wal is set,
// with its pipeline or syncer) into b, pending first.
func startCheckpointer(fs vfs, b boltEngine, path string, pending []uint64, mem *memEngine, log *slog.Logger) *checkpointer {
	c := &checkpointer{fs: fs, b: b, path: path, log: log, pending: pending, retry: checkpointRetry, chunk: checkpointChunk, closeBudget: closeBytes,
		mem: mem, sortedMin: sortedMin, sortedTable: sortedTable, sortedNodes: sortedNodes, sortedBytes: sortedBytes, sortedKeyBytes: sortedKeyBytes,
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

// close waits until every pending segment is in bbolt, until the one
// being worked on has failed once more, or until closeBytes of records
// are checkpointed, then closes bbolt. Segments not absorbed stay on disk
// and are replayed at the next open.
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
		if len(c.pending) == 0 || c.closing && c.closeSpent >= c.closeBudget {
			c.leave()
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
		if errors.Is(err, errCloseBudget) {
			c.leave()
			c.mu.Unlock()
			return
		}
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

// leave logs the segments close leaves to the next open, if any. The
// caller holds mu.
func (c *checkpointer) leave() {
	if len(c.pending) > 0 && c.err == nil && c.log != nil {
		c.log.Info("stopping without checkpointing the whole log: the next start replays it", "segments", len(c.pending))
	}
}

// overBudget reports, at a chunk boundary, whether close has spent its
// budget; chunk bytes were applied since the last boundary.
func (c *checkpointer) overBudget(chunk int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closing {
		return false
	}
	c.closeSpent += chunk
	return c.closeSpent >= c.closeBudget
}

// inject makes each later checkpoint call fail first, and sets the first
// wait before a retry (tests).
func (c *checkpointer) inject(retry time.Duration, fail func(uint64) error) {
	c.mu.Lock()
	c.retry, c.failing = retry, fail
	c.mu.Unlock()
}

// checkpoint applies segment seg to bbolt, records it as applied and
// deletes it: sorted (wal_sorted.go) when it writes some keyspaces often,
// otherwise record by record (checkpointPlain).
func (c *checkpointer) checkpoint(seg uint64) error {
	c.pace = newPace(&c.pacer)
	c.pace.hold()
	defer c.pace.free()
	name := segmentName(c.path, seg)
	var plan map[ckptTarget]*sortedKeys
	if c.mem != nil && c.mem.wal.failure() == nil {
		var err error
		if plan, err = c.planSorted(name); err != nil {
			return err
		}
	}
	var err error
	if plan == nil {
		err = c.checkpointPlain(seg)
	} else {
		err = c.checkpointSorted(seg, plan)
	}
	if err != nil {
		return err
	}
	dropMapped(c.b.db)
	c.step("segment applied")
	if err := c.fs.Remove(name); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	c.step("segment removed")
	return nil
}

// checkpointPlain applies segment seg to bbolt, a chunk of records per
// transaction, and records it as applied in the last one. After each
// transaction it gives back the bbolt pages it read (dropMapped).
func (c *checkpointer) checkpointPlain(seg uint64) error {
	name := segmentName(c.path, seg)
	f, err := c.fs.OpenFile(name, os.O_RDONLY, 0)
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
		if chunk >= c.chunk {
			if err := c.commit(t.commit); err != nil {
				return err
			}
			dropMapped(c.b.db)
			c.step("chunk committed")
			if c.overBudget(chunk) {
				t = nil
				return errCloseBudget
			}
			if t, err = c.b.begin(true); err != nil {
				return err
			}
			chunk = 0
		}
		chunk += len(body)
		c.pace.tickRecord(len(body))
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
	if err := c.commit(t.commit); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", name, err)
	}
	c.overBudget(chunk)
	return nil
}

// commit runs a bbolt commit (which mostly waits for the disk) without
// the checkpoint's pacer unit.
func (c *checkpointer) commit(fn func() error) error {
	c.pace.free()
	defer c.pace.hold()
	return fn()
}

// step tells a test that a checkpoint step has changed the files.
func (c *checkpointer) step(what string) {
	if c.stepped != nil {
		c.stepped(what)
	}
}

// setApplied records seg as the last segment bbolt holds in full.
func setApplied(t boltTxn, seg uint64) error {
	b, err := t.t.CreateBucketIfNotExists([]byte(walBucket))
	if err != nil {
		return mapErr(err)
	}
	return mapErr(b.Put([]byte(appliedKey), binary.BigEndian.AppendUint64(nil, seg)))
}
