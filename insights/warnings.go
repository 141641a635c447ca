package insights

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// The thresholds of the warnings. Each rule needs enough evidence (a
// minimum of traffic or items) so that a handful of test requests does not
// raise it.
const (
	hotKeyShare       = 0.5 // one key's share of an index's units
	hotKeyMinUnits    = 50  // units an index must have consumed
	keyShapeShare     = 0.5 // share of sampled keys that look like dates or sequences
	keyShapeMinSample = 20  // sampled keys needed to judge sequences
	lowCardinalityMax = 10  // fewer distinct partition keys than this...
	lowCardinalityMin = 100 // ...holding at least this many items
	filterDiscardMin  = 100 // items read by filtered pages
	filterKeptMax     = 0.2 // share of them returned, at most
	collectionNear    = 0.8 // share of the collection limit
)

// The remedies, in the words of the background texts on key design
// (shared/seeds): each says what to change, not only what is wrong.
const (
	remedyHotKey = "Hashing spreads distinct keys, not the traffic inside one key, and adding capacity does not let the busiest key use it. " +
		"Spread the key: append a suffix the writer chooses (random, or calculated from the item, e.g. key#0 .. key#9) so one logical key becomes several partition key values DynamoDB can place apart; " +
		"readers then query every suffix and merge the results. If the key is a large customer or tenant, split it further by device or entity."
	remedyDateKey = "A date-shaped partition key puts all of today's traffic on one key while older days sit idle: a day bucket bounds a group's size but does not spread the writes that all arrive today. " +
		"Lead the key with the entity the queries ask for (customer, device, tenant) and keep the time in the sort key; if the day must stay in the key, combine it with the entity (customer#2026-10-02) and add a write suffix (#0 .. #N) for busy days."
	remedySequentialKey = "Sequential numbers are an order, not an address: the newest numbers take the current traffic and the counter that hands them out is itself one hot item. " +
		"Use a partition key with many unordered values that the access pattern supplies (the user, device or tenant id, or a UUID) and keep the sequence as the sort key, where it orders items within one partition key value."
	remedyLowCardinality = "Choose a partition key with high cardinality (many distinct values, such as user_id, device_id or tenant_id) that nearly every query supplies: a low-cardinality key such as a status or a country code concentrates rows and traffic on a few partitions and limits parallelism. " +
		"If the natural key is coarse, make it composite (tenant_id plus month) or add a suffix."
	remedyFilter = "A filter expression runs after the read: it does not reduce the items read or the capacity paid for. " +
		"Move the condition into the key (make the filtered attribute part of the sort key so a key condition selects it), or add a global secondary index whose keys match this access pattern."
	remedyScan = "A Scan reads every partition and competes with the targeted reads the table serves. If many reads omit the partition key, add a global secondary index whose partition key those reads can supply, or redesign the access pattern; " +
		"keep Scans for exports and backfills, paced with Limit and parallel segments."
	remedyCollection = "All items of one partition key value live together, and with a local secondary index their collection cannot grow past 10 GB: writes to it then fail with ItemCollectionSizeLimitExceededException. " +
		"Bound the collection: rotate the key by time (tenant_id plus month), set per-key quotas, expire old items with Time to Live, or use a global secondary index, which has no collection limit."
)

// warnings applies every rule to a report being built; ts.mu is held.
// dates is the compiled datePattern.
func warnings(ts *tableStats, t Table, rep Report, dates *regexp.Regexp) []Warning {
	out := []Warning{}
	for _, ix := range t.Indexes {
		st := ts.find(ix.Name)
		out = append(out, hotKey(st, ix)...)
		out = append(out, keyShape(ix, dates)...)
		out = append(out, lowCardinality(ix)...)
	}
	out = append(out, filterDiscards(ts.amp)...)
	out = append(out, scanAndQuery(ts.amp)...)
	out = append(out, collectionSize(t, rep.Collections)...)
	return out
}

// hotKey: one partition key value took most of an index's units.
func hotKey(st *indexStats, ix Index) []Warning {
	var total float64
	for _, c := range st.totals {
		total += c.readUnits + c.writeUnits
	}
	top := st.pkUnits.top(1)
	if total < hotKeyMinUnits || len(top) == 0 {
		return nil
	}
	u := top[0].counts.readUnits + top[0].counts.writeUnits
	if u/total < hotKeyShare {
		return nil
	}
	pk, _ := ix.Decode(top[0].key)
	return []Warning{{Kind: "hot-key", Index: ix.Name, Remedy: remedyHotKey,
		Message: fmt.Sprintf("Partition key %s took %.0f%% of the consumed units of %s (%s of %s units): one partition serves it, whatever the table's total capacity.",
			valueText(pk), 100*u/total, what(ix.Name), num(u), num(total))}}
}

// keyShape: sampled partition keys look like dates (matching dates, the
// compiled datePattern), or form a sequence.
func keyShape(ix Index, dates *regexp.Regexp) []Warning {
	z := ix.Sizer
	if len(z.sample) == 0 {
		return nil
	}
	var dated int
	var example string
	var nums []*big.Int
	for _, prefix := range z.sample {
		pk, _ := ix.Decode(prefix)
		if pk == nil {
			continue
		}
		if looksLikeDate(*pk, dates) {
			dated++
			if example == "" {
				example = valueText(pk)
			}
		}
		if n, ok := sequenceNumber(*pk); ok {
			nums = append(nums, n)
		}
	}
	var out []Warning
	n := len(z.sample)
	if float64(dated) >= keyShapeShare*float64(n) {
		out = append(out, Warning{Kind: "date-like-key", Index: ix.Name, Remedy: remedyDateKey,
			Message: fmt.Sprintf("%d of %d sampled partition keys of %s look like dates or timestamps (e.g. %s).", dated, n, what(ix.Name), example)})
	}
	if lo, hi, ok := dense(nums, n); ok {
		out = append(out, Warning{Kind: "sequential-key", Index: ix.Name, Remedy: remedySequentialKey,
			Message: fmt.Sprintf("%d of %d sampled partition keys of %s are sequential numbers (%s to %s).", len(nums), n, what(ix.Name), lo, hi)})
	}
	return out
}

// lowCardinality: few distinct partition keys hold many items.
func lowCardinality(ix Index) []Warning {
	z := ix.Sizer
	var items int64
	for _, n := range z.items {
		items += n
	}
	if z.distinct == 0 || z.distinct >= lowCardinalityMax || items < lowCardinalityMin {
		return nil
	}
	return []Warning{{Kind: "low-cardinality", Index: ix.Name, Remedy: remedyLowCardinality,
		Message: fmt.Sprintf("Only %d distinct partition key values hold the %d items of %s: at most %d partitions can share its load.", z.distinct, items, what(ix.Name), z.distinct)}}
}

// filterDiscards: filtered Query and Scan pages returned little of what they read.
func filterDiscards(a amplification) []Warning {
	if a.filteredRead < filterDiscardMin || float64(a.filteredReturned) > filterKeptMax*float64(a.filteredRead) {
		return nil
	}
	discarded := a.filteredRead - a.filteredReturned
	return []Warning{{Kind: "filter-discards", Remedy: remedyFilter,
		Message: fmt.Sprintf("Filters discarded %.0f%% of the items they read (%d of %d): every item read was paid for.",
			100*float64(discarded)/float64(a.filteredRead), discarded, a.filteredRead)}}
}

// scanAndQuery: the table is scanned while it also serves key reads.
func scanAndQuery(a amplification) []Warning {
	keyed := a.unitsRead - a.scanUnits
	if a.scanUnits == 0 || keyed <= 0 {
		return nil
	}
	return []Warning{{Kind: "scan-and-query", Remedy: remedyScan,
		Message: fmt.Sprintf("Scans consumed %.0f%% of the read units of this table (%s of %s) while it also serves GetItem and Query reads (%s units).",
			100*a.scanUnits/a.unitsRead, num(a.scanUnits), num(a.unitsRead), num(keyed))}}
}

// collectionSize: an item collection nears the limit of a table with local indexes.
func collectionSize(t Table, cs []Collection) []Warning {
	if t.CollectionLimit <= 0 {
		return nil
	}
	var out []Warning
	for _, c := range cs {
		if c.Index != "" || float64(c.SizeBytes) < collectionNear*float64(t.CollectionLimit) {
			continue
		}
		out = append(out, Warning{Kind: "collection-size", Remedy: remedyCollection,
			Message: fmt.Sprintf("The item collection of partition key %s holds %d bytes, %.0f%% of the %d-byte limit of a table with local secondary indexes.",
				valueText(c.PartitionKey), c.SizeBytes, 100*float64(c.SizeBytes)/float64(t.CollectionLimit), t.CollectionLimit)})
	}
	return out
}

// datePattern matches the usual date and timestamp spellings anywhere in a
// string key: 2026-10-02, 2026/10/02, 2026_10, 20261002, 2026-10-02T10:00.
// A Recorder compiles it on its first report (Recorder.dates), not every
// process at start-up.
const datePattern = `(^|[^0-9])(19|20)[0-9]{2}([-/_.](0[1-9]|1[0-2])([-/_.](0[1-9]|[12][0-9]|3[01]))?|(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01]))([^0-9]|$)`

// compileDates compiles datePattern.
func compileDates() *regexp.Regexp { return regexp.MustCompile(datePattern) }

// looksLikeDate reports whether a partition key value reads as a date: a
// string with a date in it (matching dates, the compiled datePattern), or
// a number in the range of Unix seconds or milliseconds of the years 2001
// to 2100.
func looksLikeDate(v attr.Value, dates *regexp.Regexp) bool {
	switch v.T {
	case attr.TypeS:
		return dates.MatchString(v.S)
	case attr.TypeN:
		n, ok := new(big.Float).SetString(v.S)
		if !ok {
			return false
		}
		f, _ := n.Float64()
		return (f >= 978307200 && f < 4102444800) || (f >= 978307200e3 && f < 4102444800e3)
	}
	return false
}

// sequenceNumber returns the integer a key value counts with: an N value,
// or the trailing digits of a string (order-1234), when the value has them.
func sequenceNumber(v attr.Value) (*big.Int, bool) {
	s := v.S
	if v.T == attr.TypeS {
		s = s[len(strings.TrimRight(s, "0123456789")):]
	} else if v.T != attr.TypeN {
		return nil, false
	}
	if s == "" {
		return nil, false
	}
	return new(big.Int).SetString(s, 10)
}

// dense reports whether nums (from a sample of n keys) are enough of the
// sample and packed closely enough to be a sequence: at least
// keyShapeMinSample distinct numbers whose span is at most twice their
// count. Distinct, because keys that merely share a number (a-7, b-7, ...)
// span nothing and count nothing up.
func dense(nums []*big.Int, n int) (lo, hi string, ok bool) {
	if len(nums) < keyShapeMinSample || float64(len(nums)) < keyShapeShare*float64(n) {
		return "", "", false
	}
	sorted := slices.Clone(nums)
	slices.SortFunc(sorted, func(a, b *big.Int) int { return a.Cmp(b) })
	distinct := slices.CompactFunc(sorted, func(a, b *big.Int) bool { return a.Cmp(b) == 0 })
	if len(distinct) < keyShapeMinSample {
		return "", "", false
	}
	min, max := distinct[0], distinct[len(distinct)-1]
	span := new(big.Int).Sub(max, min)
	if span.Cmp(big.NewInt(int64(2*len(distinct)))) > 0 {
		return "", "", false
	}
	return min.String(), max.String(), true
}

// what names the table or index a warning is about.
func what(index string) string {
	if index == "" {
		return "the table"
	}
	return "index " + index
}

// valueText renders a key value as DynamoDB JSON.
func valueText(v *attr.Value) string {
	if v == nil {
		return "(unknown)"
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return "(unknown)"
	}
	return string(b)
}

// num renders units without needless decimals.
func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") }
