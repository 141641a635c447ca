package store

import (
	"sync/atomic"
	"time"
)

// probeSlots is the size of the probe table. A search holds one slot (an
// ascent with an end, two) while it runs; more concurrent searches than
// slots wait for one to free up.
const probeSlots = 1024

// probes is the engine's table of search keys.
type probes struct {
	next  atomic.Uint32
	slots [probeSlots]probeSlot
}

type probeSlot struct {
	busy atomic.Bool
	key  []byte
}

// probe returns the entry that stands for key in searches, and the slot to
// release when the search is over.
func (p *probes) probe(key []byte) (memEntry, *probeSlot) {
	for {
		i := p.next.Add(1) % probeSlots
		s := &p.slots[i]
		if s.busy.CompareAndSwap(false, true) {
			s.key = key
			return memEntry{pre: prefixOf(key), ref: probeRef | uint64(i), n: uint32(len(key)), klen: uint32(len(key))}, s
		}
		if i == probeSlots-1 {
			// A whole round found every slot busy: sleep rather than spin,
			// so that the searches holding them get the CPU.
			time.Sleep(20 * time.Microsecond)
		}
	}
}

func (s *probeSlot) release() {
	s.key = nil
	s.busy.Store(false)
}

// pivot is the probe slot of an ascent's or descent's starting key. The
// B-tree compares with its pivot only on the way down, before it visits
// anything, so the first visit frees the slot: visits that search again (an
// index read fetching its table's item) then never hold two slots, and busy
// slots cannot all be waiting for another. A slot is freed exactly once,
// since a freed slot may already serve another search.
type pivot struct{ slot *probeSlot }

func (p *pivot) free() {
	if p.slot != nil {
		p.slot.release()
		p.slot = nil
	}
}
