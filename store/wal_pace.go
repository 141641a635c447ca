package store

import "sync/atomic"

// Pacer paces the store's background work (the checkpointer of a durable
// store) beside the process's other background work: the checkpointer
// holds a unit (Acquire) while it computes and gives it back (Release)
// before it waits for the disk (a bbolt commit), and calls Pause(i) with a
// count of the items it handled, so that the pacer can yield every few
// hundred. A transfer's CPU budget (s3import.Budget) is one: with it, an
// import or bulk load and the checkpointer of the log it writes compute
// on the cores together, and the processor the budget keeps spare stays
// free for foreground requests.
type Pacer interface {
	Acquire()
	Release()
	Pause(i int)
}

// SetPacer makes p pace the store's background work from now on (nil:
// none). Only a durable store has such work; for the others it does
// nothing.
func (db *DB) SetPacer(p Pacer) {
	if e, ok := db.eng.(*memEngine); ok && e.wal != nil {
		e.wal.ck.pacer.Store(&p)
	}
}

// pace is the checkpointer's hold on its pacer during one checkpoint:
// the pacer is read when the checkpoint begins, so a SetPacer meanwhile
// applies from the next one. A nil *pace paces nothing.
type pace struct {
	p    Pacer // nil: no pacing
	held bool
	n    int // items handled, for Pause
}

// newPace returns the pace of a checkpoint under the pacer in ref, if any.
func newPace(ref *atomic.Pointer[Pacer]) *pace {
	if p := ref.Load(); p != nil {
		return &pace{p: *p}
	}
	return &pace{}
}

// hold acquires a unit unless one is held.
func (p *pace) hold() {
	if p != nil && p.p != nil && !p.held {
		p.p.Acquire()
		p.held = true
	}
}

// free releases the unit held, if any.
func (p *pace) free() {
	if p != nil && p.held {
		p.p.Release()
		p.held = false
	}
}

// tick counts n items handled, yielding as the pacer decides.
func (p *pace) tick(n int) {
	if p == nil || p.p == nil {
		return
	}
	for range n {
		p.p.Pause(p.n)
		p.n++
	}
}

// recordBytes is about what one operation of a log record takes: a
// record of b bytes counts as max(1, b/recordBytes) items.
const recordBytes = 128

// tickRecord counts the items of a record of b bytes handled.
func (p *pace) tickRecord(b int) { p.tick(max(1, b/recordBytes)) }
