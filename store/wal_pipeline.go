package store

import (
	"sync"
	"sync/atomic"
)

// Commit pipelining (SyncAlways; SyncBackground, the default, is
// wal_background.go). A log synced before each acknowledgement commits
// in two halves: the committer
// applies a batch, writes its record and makes the new root the base of the
// next batch at once (head); the record's fdatasync runs on a syncer
// goroutine while the committer goes on with the next batch. A publisher
// takes the commits in the order they were written, waits for each one's
// sync, and only then makes its root visible to readers (cur) and answers
// its callers. So:
//
//   - nothing is visible or acknowledged before it is on disk (durable
//     before visible, as without the pipeline);
//   - a commit is answered only after every earlier one: a later record's
//     fdatasync also covers every record written before it began, so
//     whatever a caller was told survives a crash with all it depended on;
//   - several syncs are in flight at once. On the disks measured (ext4 on a
//     virtio disk) concurrent fdatasyncs of one file overlap almost
//     perfectly (1,100 syncs/s one at a time, 4,700 four at a time), so
//     writers no longer queue behind one sync: with 16 writers the log no
//     longer bounds throughput at 16 per sync.
//
// A failed sync makes the log's failure sticky at once, on the syncer,
// before any later acknowledgement: every commit not yet acknowledged then
// fails (later ones were built on the failed one; an earlier one whose own
// sync succeeded may share the page that failed), the log is cut back to
// the first of them, and no more writes are taken until a restart.
//
// Each syncer fdatasyncs through a descriptor of its own (the segment is
// opened once per syncer, wal.create), never the writer's: Linux records a
// write-back error in the file and reports it once to each open file
// description, at its next fsync (errseq_t, since 4.13). Over one shared
// descriptor, with several fdatasyncs in flight, the error of a page an
// earlier commit wrote could be reported to a later commit's sync only,
// after the earlier one's sync had returned success and it had been
// acknowledged. With a descriptor per syncer, every sync reports every
// error recorded since that syncer's previous sync, which returned before
// this one began: a commit's own sync waits for its pages' write-back, so
// it reports their failure, unless the syncer's previous sync (of an
// earlier commit) reported it first, and that failure failed this commit.

// pipelineDepth bounds the commits written but not yet published. When it
// is reached the committer waits, and the requests arriving meanwhile form
// a larger batch: group commit takes over from pipelining.
const pipelineDepth = 8

// flight is one commit in the pipeline.
type flight struct {
	f      vfile    // the segment its record went to; nil: no record
	syncf  []vfile  // f opened once per syncer (wal.syncf), to sync it by
	start  int64    // where the record begins in f
	root   *memRoot // published once durable; nil: nothing changed
	done   func(error)
	synced chan struct{} // closed once err is set
	err    error         // the sync's
}

// pipeline is the syncers and the publisher of a synced log.
type pipeline struct {
	syncs   chan *flight // to the syncers
	order   chan *flight // to the publisher, in commit order
	pending atomic.Int64 // flights sent and not yet published
	idle    sync.WaitGroup
	workers sync.WaitGroup
}

// startPipeline starts the syncers and the publisher of e's log.
func startPipeline(e *memEngine) *pipeline {
	p := &pipeline{syncs: make(chan *flight, pipelineDepth), order: make(chan *flight, pipelineDepth)}
	for i := range pipelineDepth {
		p.workers.Go(func() {
			for fl := range p.syncs {
				fl.err = fl.syncf[i].Datasync()
				if fl.err != nil {
					e.wal.poison(fl.err)
				}
				close(fl.synced)
			}
		})
	}
	p.workers.Go(func() { p.publish(e) })
	return p
}

// send queues fl; it blocks while pipelineDepth flights are in the
// pipeline. Only the committer sends.
func (p *pipeline) send(fl *flight) {
	p.pending.Add(1)
	p.idle.Add(1)
	if fl.f != nil {
		fl.synced = make(chan struct{})
		p.syncs <- fl
	}
	p.order <- fl
}

// busy reports whether a flight is still unpublished; only meaningful on
// the committer, the one goroutine that sends.
func (p *pipeline) busy() bool { return p.pending.Load() > 0 }

// drain waits until every flight sent has been published. Only the
// committer calls it (so no send races with the wait).
func (p *pipeline) drain() { p.idle.Wait() }

// publish is the publisher goroutine: it finishes the flights in order.
// Once any sync has failed (the log's sticky failure, set by the syncer
// before this reads it), every flight not yet finished fails, and the log
// is cut back to the first of them.
func (p *pipeline) publish(e *memEngine) {
	cut := false
	for fl := range p.order {
		if fl.f != nil {
			<-fl.synced
		}
		err := e.wal.failure()
		if err != nil && !cut && fl.f != nil {
			e.wal.cutBack(fl.f, fl.start)
			cut = true
		}
		if err == nil && fl.root != nil {
			e.cur.Store(fl.root)
		}
		p.pending.Add(-1)
		fl.done(err)
		p.idle.Done()
	}
}

// stop waits for the flights in the pipeline and ends its goroutines.
func (p *pipeline) stop() {
	p.drain()
	close(p.syncs)
	close(p.order)
	p.workers.Wait()
}
