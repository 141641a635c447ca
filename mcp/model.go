package mcp

import (
	"errors"
	"fmt"
	"strings"
)

const evaluateDescription = "Evaluate a data model: create the table design on a scratch in-memory ddblocal with DynamoDB's " +
	"production throughput limits (1,000 write and 3,000 read units a second per partition, burst and adaptive capacity as modelled by ddblocal), " +
	"run the described access patterns at their rates on a simulated clock, and report per-pattern throttling, " +
	"the heat of each partition, the hottest keys, read amplification (items and units read per item returned) " +
	"and warnings about the key design with their remedies. Nothing is written to the server the other tools use."

// Model is a table design and the workload to evaluate it with.
type Model struct {
	Table          map[string]any `json:"Table" jsonschema:"the table design as a DynamoDB CreateTable request (TableName, KeySchema, AttributeDefinitions, GlobalSecondaryIndexes, BillingMode ...)"`
	Seconds        int            `json:"Seconds,omitempty" jsonschema:"simulated seconds to run the workload for (1-3600; default 60)"`
	AccessPatterns []Pattern      `json:"AccessPatterns" jsonschema:"the workload: one entry per access pattern (1-20)"`
}

// Pattern is one access pattern of a workload.
type Pattern struct {
	Name          string  `json:"Name" jsonschema:"a name for the report, e.g. record order"`
	Operation     string  `json:"Operation" jsonschema:"PutItem (each request writes a new item), UpdateItem (increments a counter on an existing key), GetItem, Query or Scan (one page of 100 items per request)"`
	IndexName     string  `json:"IndexName,omitempty" jsonschema:"Query or Scan a secondary index instead of the table"`
	RatePerSecond float64 `json:"RatePerSecond" jsonschema:"requests per second"`
	ItemSizeBytes int     `json:"ItemSizeBytes,omitempty" jsonschema:"size of the items written or read (1-400000; default 1000)"`
	DistinctKeys  int     `json:"DistinctKeys,omitempty" jsonschema:"how many partition key values the requests spread over (default 1000)"`
	HotKeyShare   float64 `json:"HotKeyShare,omitempty" jsonschema:"share of the requests (0-1) that go to one single partition key value; the rest spread evenly"`
	KeyShape      string  `json:"KeyShape,omitempty" jsonschema:"what the partition key values look like: random (default), date (one calendar day per value) or sequence (increasing numbers)"`
	ItemsPerQuery int     `json:"ItemsPerQuery,omitempty" jsonschema:"Query: items stored under each partition key value (default 10)"`
	FilterKeeps   float64 `json:"FilterKeeps,omitempty" jsonschema:"Query or Scan: share of the read items a FilterExpression keeps (0-1); 0 or 1 means no filter"`
}

// Limits of a model, so that one call stays within seconds.
const (
	maxSeconds  = 3600
	maxPatterns = 20
	maxItemSize = 400000
	maxRate     = 10_000_000
)

var operations = []string{"PutItem", "UpdateItem", "GetItem", "Query", "Scan"}

// validate checks the workload against itself and the table design sc,
// fills in the defaults, and says exactly which field is wrong.
func (m *Model) validate(sc schema) error {
	if m.Seconds == 0 {
		m.Seconds = 60
	}
	if m.Seconds < 1 || m.Seconds > maxSeconds {
		return fmt.Errorf("Seconds must be between 1 and %d, not %d", maxSeconds, m.Seconds)
	}
	if len(m.AccessPatterns) == 0 || len(m.AccessPatterns) > maxPatterns {
		return fmt.Errorf("AccessPatterns must have 1 to %d entries, not %d", maxPatterns, len(m.AccessPatterns))
	}
	for i := range m.AccessPatterns {
		p := &m.AccessPatterns[i]
		if err := p.validate(sc); err != nil {
			return fmt.Errorf("AccessPatterns[%d] (%s): %w", i, p.Name, err)
		}
	}
	return nil
}

func (p *Pattern) validate(sc schema) error {
	if !contains(operations, p.Operation) {
		return fmt.Errorf("Operation must be one of %s, not %q", strings.Join(operations, ", "), p.Operation)
	}
	if p.IndexName != "" && p.Operation != "Query" && p.Operation != "Scan" {
		return fmt.Errorf("IndexName applies to Query and Scan only, not %s", p.Operation)
	}
	if _, err := sc.keysFor(p.IndexName); err != nil {
		return err
	}
	if p.RatePerSecond <= 0 || p.RatePerSecond > maxRate {
		return fmt.Errorf("RatePerSecond must be above 0 and at most %d, not %g", maxRate, p.RatePerSecond)
	}
	p.ItemSizeBytes = orDefault(p.ItemSizeBytes, 1000)
	p.DistinctKeys = orDefault(p.DistinctKeys, 1000)
	p.ItemsPerQuery = orDefault(p.ItemsPerQuery, 10)
	if p.KeyShape == "" {
		p.KeyShape = "random"
	}
	switch {
	case p.ItemSizeBytes < 1 || p.ItemSizeBytes > maxItemSize:
		return fmt.Errorf("ItemSizeBytes must be between 1 and %d, not %d", maxItemSize, p.ItemSizeBytes)
	case p.DistinctKeys < 1:
		return fmt.Errorf("DistinctKeys must be at least 1, not %d", p.DistinctKeys)
	case p.HotKeyShare < 0 || p.HotKeyShare > 1:
		return fmt.Errorf("HotKeyShare must be between 0 and 1, not %g", p.HotKeyShare)
	case p.FilterKeeps < 0 || p.FilterKeeps > 1:
		return fmt.Errorf("FilterKeeps must be between 0 and 1, not %g", p.FilterKeeps)
	case p.ItemsPerQuery < 1 || p.ItemsPerQuery > 1000:
		return fmt.Errorf("ItemsPerQuery must be between 1 and 1000, not %d", p.ItemsPerQuery)
	case !contains([]string{"random", "date", "sequence"}, p.KeyShape):
		return fmt.Errorf("KeyShape must be random, date or sequence, not %q", p.KeyShape)
	}
	return nil
}

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

var errNoTable = errors.New("Table is required: a CreateTable request with TableName, KeySchema and AttributeDefinitions")
