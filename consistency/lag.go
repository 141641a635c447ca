// Package consistency decides what an eventually consistent read sees: the
// lag policy (fixed, per table, or seeded-random), the clock, and the recent
// history of each table rebuilt from its change log, so a read can see the
// table as it stood at now − lag.
package consistency

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Lag is how far behind an eventually consistent read is: fixed when Min ==
// Max, otherwise drawn uniformly from [Min, Max] for each read or record.
type Lag struct{ Min, Max time.Duration }

// ParseLag parses "0", a Go duration such as "750ms", or "random:MIN-MAX"
// such as "random:0-2s" (MIN may omit its unit when it is 0).
func ParseLag(s string) (Lag, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "random:"); ok {
		lo, hi, ok := strings.Cut(rest, "-")
		if !ok {
			return Lag{}, fmt.Errorf("invalid lag %q: want random:MIN-MAX", s)
		}
		min, err1 := parseDuration(lo)
		max, err2 := parseDuration(hi)
		if err1 != nil || err2 != nil || min < 0 || max < min {
			return Lag{}, fmt.Errorf("invalid lag %q: want random:MIN-MAX with 0 <= MIN <= MAX", s)
		}
		return Lag{min, max}, nil
	}
	d, err := parseDuration(s)
	if err != nil || d < 0 {
		return Lag{}, fmt.Errorf("invalid lag %q: want a duration such as 500ms, or random:MIN-MAX", s)
	}
	return Lag{d, d}, nil
}

func parseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

// String returns the form ParseLag accepts.
func (l Lag) String() string {
	if l.Min == l.Max {
		return l.Min.String()
	}
	return "random:" + l.Min.String() + "-" + l.Max.String()
}

// IsZero reports whether reads never lag.
func (l Lag) IsZero() bool { return l.Max == 0 }

// Table tags that override the server's lag for one table: EventualLagTag
// for eventually consistent reads of the table, its local indexes and its
// global indexes; GSILagTag for global indexes only (it wins over
// EventualLagTag there).
const (
	EventualLagTag = "ddblocal:eventual-lag"
	GSILagTag      = "ddblocal:gsi-lag"
)

// Policy turns the server's lag and a table's tags into the lags its reads
// and index updates see. Random lags come from a seeded source, so a run is
// reproducible. It is safe for concurrent use.
type Policy struct {
	Default Lag
	seed    uint64
	mu      sync.Mutex
	rng     *rand.Rand
}

// NewPolicy returns a Policy with default lag def and random seed seed.
func NewPolicy(def Lag, seed uint64) *Policy {
	return &Policy{Default: def, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// TableLags returns the lag of eventually consistent reads of a table with
// tags, and the lag of its global indexes. A tag that does not parse is
// ignored (TagResource validates them first).
func (p *Policy) TableLags(tags map[string]string) (reads, gsi Lag) {
	reads = p.Default
	if v, ok := tags[EventualLagTag]; ok {
		if l, err := ParseLag(v); err == nil {
			reads = l
		}
	}
	gsi = reads
	if v, ok := tags[GSILagTag]; ok {
		if l, err := ParseLag(v); err == nil {
			gsi = l
		}
	}
	return reads, gsi
}

// Draw returns one read's lag under l: fixed, or the next value of the
// seeded random sequence.
func (p *Policy) Draw(l Lag) time.Duration {
	if l.Min == l.Max {
		return l.Min
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return l.Min + time.Duration(p.rng.Int64N(int64(l.Max-l.Min)+1))
}

// RecordDelay returns how long after its commit change-log record seq of a
// table becomes visible in the table's global indexes under l. For a random
// lag it is a pure function of the seed, the table and seq, so index
// visibility does not depend on goroutine timing.
func (p *Policy) RecordDelay(l Lag, table string, seq uint64) time.Duration {
	if l.Min == l.Max {
		return l.Min
	}
	h := p.seed ^ 0xcbf29ce484222325
	for i := 0; i < len(table); i++ {
		h = (h ^ uint64(table[i])) * 0x100000001b3
	}
	h ^= seq
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return l.Min + time.Duration(h%uint64(l.Max-l.Min+1))
}
