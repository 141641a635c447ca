package partiql

import (
	"context"
	"errors"

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
		sc.indexes[ix.IndexName] = indexKeys{keysOf(ix.KeySchema), ix.Global}
	}
	return sc, nil
}
