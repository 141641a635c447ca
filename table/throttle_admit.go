package table

import (
	"encoding/binary"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/partition"
	"github.com/ddblocal/ddblocal/throttle"
)

// Throttling (package throttle) applies to a table when the server runs
// with Options.Throttling or the table carries the tag throttlingTag = "on".
// Off, it costs one boolean test per request.

// throttlingTag is the table tag that turns throttling on ("on") for one
// table, or off ("off") under --throttling.
const throttlingTag = throttle.Tag

// throttleObserver passes every throttled request to the Service's insights
// and to Options.ThrottleObserver.
type throttleObserver struct{ s *Service }

func (o throttleObserver) Throttled(e throttle.Event) {
	o.s.insights.Throttled(e.Table, e.Index, e.Key, e.Op == throttle.Write)
	if o.s.opts.ThrottleObserver != nil {
		o.s.opts.ThrottleObserver.Throttled(e)
	}
}

// throttling reports whether requests on m are throttled.
func (s *Service) throttling(m *tableMeta) bool {
	if m.throttleTag != "" {
		return m.throttleTag == "on"
	}
	return s.opts.Throttling
}

// deriveThrottling fills m's throttling fields from its definition (derive
// calls it).
func (m *tableMeta) deriveThrottling() {
	m.throttleTag = ""
	for _, t := range m.Tags {
		if t.Key == throttlingTag {
			m.throttleTag = t.Value
		}
	}
	m.tcap = throttle.Capacity{ARN: m.arn(), Provisioned: m.BillingMode != "PAY_PER_REQUEST", WarmRead: m.WarmRead, WarmWrite: m.WarmWrite}
	if m.tcap.Provisioned {
		m.tcap.Read, m.tcap.Write = m.ReadCapacity, m.WriteCapacity
	} else if od := m.OnDemandThroughput; od != nil {
		m.tcap.Read, m.tcap.Write = deref(od.MaxReadRequestUnits), deref(od.MaxWriteRequestUnits)
	}
	m.gsiCap = make(map[string]throttle.Capacity, len(m.GlobalSecondaryIndexes))
	for _, ix := range m.GlobalSecondaryIndexes {
		c := throttle.Capacity{ARN: m.arn() + "/index/" + ix.Name, Provisioned: m.tcap.Provisioned, WarmRead: ix.WarmRead, WarmWrite: ix.WarmWrite}
		if c.Provisioned {
			c.Read, c.Write = ix.ReadCapacity, ix.WriteCapacity
		} else if od := ix.OnDemand; od != nil {
			c.Read, c.Write = deref(od.MaxReadRequestUnits), deref(od.MaxWriteRequestUnits)
		}
		m.gsiCap[ix.Name] = c
	}
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// hashOf is the partition hash a table or index storage key begins with.
func hashOf(key []byte) uint64 {
	if len(key) < attr.HashPrefixLen {
		return 0
	}
	return binary.BigEndian.Uint64(key)
}

// Partitions returns the current partitions of table id's index ("" for
// the table) as throttling models them, and false until a throttled
// request has touched it.
func (s *Service) Partitions(id, index string) (partition.Map, bool) {
	return s.limiter.Partitions(id, index)
}

// throttleError is the exception a request on m throttled for reasons gets:
// ProvisionedThroughputExceededException for a provisioned table,
// ThrottlingException for an on-demand one, in the index's words when only
// indexes were throttled.
func throttleError(m *tableMeta, reasons []throttle.Reason) *ddb.Error {
	return ddb.Throttled(m.tcap.Provisioned, reasons)
}

// throttleReason is a transaction's cancellation reason for an action
// throttled on m.
func throttleReason(m *tableMeta) ddb.CancellationReason {
	return ddb.ThrottledReason(m.tcap.Provisioned)
}

// admission is how a write on a throttled table is admitted: its write
// units times mult (2 in a transaction) are taken from the table's buckets
// and those of every global index it changes. It is decided once, inside
// the write's store transaction, from the old item read there, as DynamoDB
// knows the units and the index partitions before it writes; a rerun of
// the transaction keeps the decision.
type admission struct {
	mult float64
	// forced marks a replicated write made before the last settle
	// (replica_capacity.go): its units are consumed, into debt if need
	// be, and it is never refused.
	forced  bool
	decided bool
	reasons []throttle.Reason // nil: admitted
}

// refused reports whether mu's admission refused it.
func (mu *mutation) refused() bool {
	return mu.adm != nil && mu.adm.reasons != nil
}

// admit admits mu, whose old item ld holds, and returns the reasons when it
// is throttled; a write without admission (mu.adm nil) passes. The new item
// it computes stays in ld for the write. A ConditionCheck (mu.check) costs
// what writing the item unchanged would; a write whose new item fails
// still costs a unit.
func (s *Service) admit(mu *mutation, ld *loaded) []throttle.Reason {
	a := mu.adm
	switch {
	case a == nil:
		return nil
	case a.decided:
		return a.reasons
	}
	a.decided = true
	m := mu.meta
	old, next, failing := ld.old, ld.old, false
	if !mu.check {
		var err error
		if next, err = ld.nextOf(mu); err != nil {
			next, failing = nil, true
		}
	}
	grow := func(from, to int) int64 { // bytes for the size split rule
		if failing {
			return 0
		}
		return int64(to - from)
	}
	nextSize := next.Size()
	units := capacity.WriteUnits(ld.oldSize, nextSize)
	targets := []throttle.Target{{Cap: m.tcap, Hash: hashOf(mu.key), Key: mu.key, Units: units * a.mult, Bytes: grow(ld.oldSize, nextSize)}}
	for _, d := range m.gsis {
		c := d.DiffSized(mu.key, old, next, ld.oldSize, nextSize)
		u := capacity.IndexWriteUnits(c)
		if u == 0 {
			continue
		}
		// A moved entry is counted where it lands: the old partition's
		// share is left (an estimate, erring towards splitting).
		k, b := c.NewKey, grow(c.OldSize, c.NewSize)
		switch {
		case k == nil:
			k = c.OldKey
		case string(c.OldKey) != string(c.NewKey):
			b = grow(0, c.NewSize)
		}
		targets = append(targets, throttle.Target{Index: d.Name, Cap: m.gsiCap[d.Name], Hash: hashOf(k), Key: k, Units: u * a.mult, Bytes: b})
	}
	if a.forced {
		for _, t := range targets {
			s.limiter.Consume(s.now(), m.ID, throttle.Write, t)
		}
		return nil
	}
	a.reasons = s.limiter.Take(s.now(), m.ID, throttle.Write, targets)
	return a.reasons
}

// readTarget is the target of a read of m's index ("" or a local index: the
// table) at storage key key.
func (m *tableMeta) readTarget(index string, global bool, key []byte, units float64) throttle.Target {
	if !global {
		return throttle.Target{Cap: m.tcap, Hash: hashOf(key), Key: key, Units: units}
	}
	return throttle.Target{Index: index, Cap: m.gsiCap[index], Hash: hashOf(key), Key: key, Units: units}
}

// admitRead admits a read of t, taking its least cost (half a unit for an
// eventually consistent read, one for a strong one); the caller adds the
// rest with consumeRead once it knows the size read.
func (s *Service) admitRead(m *tableMeta, t throttle.Target, consistent bool) []throttle.Reason {
	t.Units = capacity.ReadUnits(0, consistent)
	return s.limiter.Take(s.now(), m.ID, throttle.Read, []throttle.Target{t})
}

// consumeRead takes what a read of t cost beyond what admitRead took.
func (s *Service) consumeRead(m *tableMeta, t throttle.Target, units float64, consistent bool) {
	t.Units = units - capacity.ReadUnits(0, consistent)
	s.limiter.Consume(s.now(), m.ID, throttle.Read, t)
}

// warm raises m's warm throughput to what w asks for; warm throughput is
// never lowered, so a smaller value is ignored.
func (m *tableMeta) warm(w *ddb.WarmThroughput) {
	if w == nil {
		return
	}
	m.WarmRead = max(m.WarmRead, deref(w.ReadUnitsPerSecond))
	m.WarmWrite = max(m.WarmWrite, deref(w.WriteUnitsPerSecond))
}

// warmUnits is the read and write units per second m can serve at once,
// as DescribeTable shows them: the warm throughput asked for, or, when more,
// what a new on-demand table's partitions serve (on demand) or the
// provisioned capacity (provisioned), and never less than it was before
// (ack-api-quirks DDB-TABLE-061, recorded from the service: a PROVISIONED
// 1/1 table is warm at 1/1, at 3/3 after 3/3 and still after going back to
// 1/1; 12000/4000 once on demand, kept when switched back to 1/1).
func (m *tableMeta) warmUnits() (read, write int64) {
	read, write = max(m.WarmRead, m.WarmHighRead), max(m.WarmWrite, m.WarmHighWrite)
	if m.BillingMode == "PAY_PER_REQUEST" {
		return max(read, throttle.OnDemandReadUnits), max(write, throttle.OnDemandWriteUnits)
	}
	return max(read, m.ReadCapacity), max(write, m.WriteCapacity)
}

// warmDescription is DescribeTable's WarmThroughput.
func (m *tableMeta) warmDescription() *ddb.TableWarmThroughputDescription {
	r, w := m.warmUnits()
	return &ddb.TableWarmThroughputDescription{ReadUnitsPerSecond: r, WriteUnitsPerSecond: w, Status: "ACTIVE"}
}
