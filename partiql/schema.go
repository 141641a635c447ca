package partiql

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// keys are the key attributes of a table or index: its partition
// attributes (one, or up to four on a global index) and its sort attribute
// ("" without one; an index with several sort attributes is planned as if it
// had none, which only costs it the key condition on them).
type keys struct {
	part []string
	sort string
}

// schema is what the planner needs of a table: its name as stored, its key
// and its indexes' keys.
type schema struct {
	table   string
	key     keys
	indexes map[string]indexKeys
}

type indexKeys struct {
	keys
	global bool
	// multi marks a global index with more than one HASH or more than one
	// RANGE attribute, which PartiQL refuses to read (msgMultiIndex).
	multi bool
	// projected holds the attributes the index projects (its keys, the
	// table's, an INCLUDE's non-key attributes); every attribute counts as
	// projected when all is set (ALL) or projected is nil (not known).
	projected map[string]bool
	all       bool
}

// msgMultiIndex is the service's refusal of a PartiQL read of a
// multi-attribute key index (paritysuite/dynamodb-conformance,
// tests/tier3/error-messages/partiqlMultiAttributeIndex, eu-west-2 and
// us-east-1, October 2026). It comes after parsing and parameter decoding,
// before the key and WHERE rules, and in a batch before its key-only rule.
const msgMultiIndex = "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys."

// isMulti reports whether a key schema has several HASH or RANGE attributes.
func isMulti(ks []ddb.KeySchemaElement) bool {
	var hashes, ranges int
	for _, e := range ks {
		if e.KeyType == "HASH" {
			hashes++
		} else {
			ranges++
		}
	}
	return hashes > 1 || ranges > 1
}

// multiIndex is msgMultiIndex's error for a SELECT of such an index, else nil.
func (sc *schema) multiIndex(sel *Select) error {
	if ix, ok := sc.indexes[sel.Index]; ok && sel.Index != "" && ix.multi {
		return semErr(sel.At, msgMultiIndex)
	}
	return nil
}

func keysOf(ks []ddb.KeySchemaElement) keys {
	var k keys
	sorts := 0
	for _, e := range ks {
		if e.KeyType == "HASH" {
			k.part = append(k.part, e.AttributeName)
		} else {
			sorts++
			k.sort = e.AttributeName
		}
	}
	if sorts > 1 {
		k.sort = ""
	}
	return k
}

// all returns every key attribute name.
func (k keys) all() []string {
	if k.sort == "" {
		return k.part
	}
	return append(append([]string(nil), k.part...), k.sort)
}

// schema describes the table a statement names, by one lookup.
func (s *Service) schema(ctx context.Context, region, name string) (*schema, error) {
	d, err := s.tables.Schema(ctx, region, name)
	if err != nil {
		var te *ddb.Error
		if errors.As(err, &te) && te.Code == ddb.ResourceNotFoundException {
			return nil, ddb.NotFound("")
		}
		return nil, err
	}
	sc := &schema{table: d.TableName, key: keysOf(d.KeySchema), indexes: map[string]indexKeys{}}
	for _, ix := range d.Indexes {
		k := indexKeys{keys: keysOf(ix.KeySchema), global: ix.Global, multi: ix.Global && isMulti(ix.KeySchema),
			all: ix.Projection.ProjectionType == "ALL", projected: map[string]bool{}}
		for _, ks := range [][]ddb.KeySchemaElement{d.KeySchema, ix.KeySchema} {
			for _, e := range ks {
				k.projected[e.AttributeName] = true
			}
		}
		for _, a := range ix.Projection.NonKeyAttributes {
			k.projected[a] = true
		}
		sc.indexes[ix.IndexName] = k
	}
	return sc, nil
}

// checkProjected refuses a SELECT on index ix that reads attributes the
// index does not project, as DynamoDB's PartiQL does (nubo-db/
// dynamodb-conformance, tests/tier3/error-messages/partiqlIndexQualifier,
// eu-west-2): attributes the SELECT list names, on a global index; then
// attributes its WHERE reads, on either kind ("Secondary index", no kind
// named). Unlike Query, PartiQL does not fetch them from the table.
func (ix indexKeys) checkProjected(sel *Select) error {
	if ix.all || ix.projected == nil {
		return nil
	}
	var listed, filtered []string
	for _, p := range sel.Projection {
		if n := p.Steps[0].Name; !ix.projected[n] && !slices.Contains(listed, n) {
			listed = append(listed, n)
		}
	}
	walk(sel.Where, func(x Expr) {
		if p, ok := x.(*Path); ok {
			if n := p.Steps[0].Name; !ix.projected[n] && !slices.Contains(filtered, n) {
				filtered = append(filtered, n)
			}
		}
	})
	if len(listed) > 0 && ix.global {
		return semErr(sel.At, "One or more parameter values were invalid: Global secondary index %s does not project [%s]", sel.Index, strings.Join(listed, ", "))
	}
	if len(filtered) > 0 {
		return semErr(sel.At, "One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]", sel.Index, strings.Join(filtered, ", "))
	}
	return nil
}
