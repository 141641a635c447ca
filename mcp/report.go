package mcp

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/ddblocal/ddblocal/insights"
)

// Report is evaluate_data_model's answer. Rates are per second of the
// described workload (a scaled run's figures are scaled back up).
type Report struct {
	Table            string             `json:"Table"`
	SimulatedSeconds int                `json:"SimulatedSeconds"`
	Scale            float64            `json:"Scale" jsonschema:"share of the described rates that was sent, against limits scaled alike (1 = all)"`
	Summary          []string           `json:"Summary" jsonschema:"the findings in sentences, most important first"`
	Patterns         []PatternReport    `json:"Patterns"`
	Partitions       []PartitionHeat    `json:"Partitions" jsonschema:"every partition of the table and its indexes, hottest first"`
	HotKeys          []HotKey           `json:"HotKeys" jsonschema:"the partition key values that consumed the most units"`
	Amplification    Amplification      `json:"Amplification"`
	Warnings         []insights.Warning `json:"Warnings" jsonschema:"ddblocal's insights about the key design and access patterns, each with a remedy"`
	raw              *insights.Report   // the insights after the run, for tests
}

// PatternReport is what one access pattern saw.
type PatternReport struct {
	Name              string         `json:"Name"`
	Operation         string         `json:"Operation"`
	Requests          int            `json:"Requests" jsonschema:"requests sent in the (scaled) run"`
	Throttled         int            `json:"Throttled"`
	ThrottledShare    float64        `json:"ThrottledShare" jsonschema:"share of requests refused by throttling, before any SDK retry"`
	ThrottleErrors    map[string]int `json:"ThrottleErrors,omitempty"`
	UnitsPerSecond    float64        `json:"UnitsPerSecond" jsonschema:"capacity units consumed per second at the described rate"`
	ItemsRead         int            `json:"ItemsRead,omitempty"`
	ItemsReturned     int            `json:"ItemsReturned,omitempty"`
	ReadAmplification float64        `json:"ReadAmplification,omitempty" jsonschema:"items read per item returned (1 is ideal)"`
}

// PartitionHeat is one partition's load during the run.
type PartitionHeat struct {
	Index               string  `json:"Index" jsonschema:"the index, or empty for the table"`
	Partition           int     `json:"Partition"`
	ReadUnitsPerSecond  float64 `json:"ReadUnitsPerSecond"`
	WriteUnitsPerSecond float64 `json:"WriteUnitsPerSecond"`
	ReadThrottles       float64 `json:"ReadThrottles"`
	WriteThrottles      float64 `json:"WriteThrottles"`
	ShareOfUnits        float64 `json:"ShareOfUnits" jsonschema:"this partition's share of its table's or index's units"`
}

// HotKey is a partition key value that took many units.
type HotKey struct {
	Index          string  `json:"Index"`
	PartitionKey   any     `json:"PartitionKey"`
	UnitsPerSecond float64 `json:"UnitsPerSecond"`
	Throttles      float64 `json:"Throttles"`
}

// Amplification is insights' read amplification over the whole run.
type Amplification = insights.Amplification

type partRef struct {
	index     string
	partition int
}

type partUnit struct{ read, write, readThrottles, writeThrottles float64 }

// report turns the run's counters and the insights before and after it
// into a Report.
func (r *run) report(before, after *insights.Report) *Report {
	rep := &Report{Table: r.sc.name, SimulatedSeconds: r.m.Seconds, Scale: r.scale,
		Amplification: after.Amplification, Warnings: after.Warnings, raw: after}
	per := 1 / (float64(r.m.Seconds) * r.scale) // a run's total → a described rate
	for i, p := range r.m.AccessPatterns {
		st := r.stats[i]
		pr := PatternReport{Name: p.Name, Operation: p.Operation, Requests: st.requests, Throttled: st.throttled,
			UnitsPerSecond: st.units * per, ItemsRead: st.itemsRead, ItemsReturned: st.itemsReturned}
		if len(st.throttleTypes) > 0 {
			pr.ThrottleErrors = st.throttleTypes
		}
		if st.requests > 0 {
			pr.ThrottledShare = float64(st.throttled) / float64(st.requests)
		}
		if st.itemsReturned > 0 {
			pr.ReadAmplification = float64(st.itemsRead) / float64(st.itemsReturned)
		}
		rep.Patterns = append(rep.Patterns, pr)
	}
	rep.Partitions = heat(before, after, per)
	for _, k := range after.TopKeys.ByUnits[:min(5, len(after.TopKeys.ByUnits))] {
		rep.HotKeys = append(rep.HotKeys, HotKey{Index: k.Index, PartitionKey: k.PartitionKey,
			UnitsPerSecond: (k.ReadUnits + k.WriteUnits) * per, Throttles: k.Throttles / r.scale})
	}
	rep.Summary = summary(rep)
	return rep
}

// heat is each partition's load between before and after, hottest first.
func heat(before, after *insights.Report, per float64) []PartitionHeat {
	was := map[partRef]partUnit{}
	for _, ix := range before.Indexes {
		for _, p := range ix.Partitions {
			was[partRef{ix.Index, p.Partition}] = partUnit{p.ReadUnits, p.WriteUnits, p.ReadThrottles, p.WriteThrottles}
		}
	}
	var out []PartitionHeat
	for _, ix := range after.Indexes {
		start := len(out)
		var total float64
		for _, p := range ix.Partitions {
			w := was[partRef{ix.Index, p.Partition}]
			h := PartitionHeat{Index: ix.Index, Partition: p.Partition,
				ReadUnitsPerSecond: (p.ReadUnits - w.read) * per, WriteUnitsPerSecond: (p.WriteUnits - w.write) * per,
				ReadThrottles: (p.ReadThrottles - w.readThrottles) * per, WriteThrottles: (p.WriteThrottles - w.writeThrottles) * per}
			total += h.ReadUnitsPerSecond + h.WriteUnitsPerSecond
			out = append(out, h)
		}
		for i := start; i < len(out); i++ {
			if total > 0 {
				out[i].ShareOfUnits = (out[i].ReadUnitsPerSecond + out[i].WriteUnitsPerSecond) / total
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].ReadUnitsPerSecond+out[i].WriteUnitsPerSecond > out[j].ReadUnitsPerSecond+out[j].WriteUnitsPerSecond
	})
	return out
}

// summary states the findings in sentences: throttled patterns first, then
// amplified reads, the hottest partition and the warnings.
func summary(rep *Report) []string {
	var out []string
	for _, p := range rep.Patterns {
		if p.Throttled > 0 {
			out = append(out, fmt.Sprintf("%s (%s): %.0f%% of requests were throttled (%s).", p.Name, p.Operation,
				100*p.ThrottledShare, joinKeys(p.ThrottleErrors)))
		}
	}
	if len(out) == 0 {
		out = append(out, "No request was throttled: the design sustains the workload at the described rates.")
	}
	for _, p := range rep.Patterns {
		if p.ReadAmplification >= 2 {
			out = append(out, fmt.Sprintf("%s (%s) reads %.1f items for every item it returns.", p.Name, p.Operation, p.ReadAmplification))
		}
	}
	if len(rep.Partitions) > 1 && rep.Partitions[0].ShareOfUnits >= 0.5 {
		h := rep.Partitions[0]
		out = append(out, fmt.Sprintf("Partition %d of %s served %.0f%% of its units (%.0f read and %.0f write units a second).",
			h.Partition, orTable(h.Index), 100*h.ShareOfUnits, h.ReadUnitsPerSecond, h.WriteUnitsPerSecond))
	}
	for _, w := range rep.Warnings {
		out = append(out, w.Message+" Remedy: "+w.Remedy)
	}
	return out
}

func orTable(index string) string {
	if index == "" {
		return "the table"
	}
	return "index " + index
}

func joinKeys(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", m[k], k)
	}
	return s
}
