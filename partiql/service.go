package partiql

import (
	"context"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// Tables is what statements run on: the table package's operations
// (*table.Service implements it).
type Tables interface {
	// Schema returns the key schemas of a table and its usable indexes.
	Schema(ctx context.Context, region, name string) (*ddb.TableSchema, error)
	GetItem(ctx context.Context, region string, in *ddb.GetItemInput) (*ddb.GetItemOutput, error)
	Query(ctx context.Context, region string, in *ddb.QueryInput) (*ddb.ReadOutput, error)
	Scan(ctx context.Context, region string, in *ddb.ScanInput) (*ddb.ReadOutput, error)
	PutItem(ctx context.Context, region string, in *ddb.PutItemInput) (*ddb.WriteOutput, error)
	UpdateItem(ctx context.Context, region string, in *ddb.UpdateItemInput) (*ddb.WriteOutput, error)
	DeleteItem(ctx context.Context, region string, in *ddb.DeleteItemInput) (*ddb.WriteOutput, error)
	TransactWriteItems(ctx context.Context, region string, in *ddb.TransactWriteItemsInput) (*ddb.TransactWriteItemsOutput, error)
	TransactGetItems(ctx context.Context, region string, in *ddb.TransactGetItemsInput) (*ddb.TransactGetItemsOutput, error)
}

// Service runs PartiQL statements on Tables. It keeps no state of its own
// and is safe for concurrent use.
type Service struct {
	tables Tables
}

// New returns a Service running statements on t.
func New(t Tables) *Service { return &Service{tables: t} }

// prepared is a parsed statement with its parameters and table schema.
type prepared struct {
	src    string // the statement's text, for error positions
	stmt   Statement
	bind   *binder
	schema *schema
}

// fail is validation for an error planning p: positions rendered.
func (p *prepared) fail(err error) error { return validation(locate(err, p.src)) }

// tableOf returns the table a statement names.
func tableOf(s Statement) string {
	switch s := s.(type) {
	case *Select:
		return s.Table
	case *Insert:
		return s.Table
	case *Update:
		return s.Table
	case *Delete:
		return s.Table
	case *Exists:
		return s.Select.Table
	}
	return ""
}

// prepare parses src, checks its parameter count and describes its table.
// Every error is DynamoDB's: parse errors are ValidationExceptions.
func (s *Service) prepare(ctx context.Context, region, src string, params []attr.Value) (*prepared, error) {
	stmt, n, err := parse(src)
	if err != nil {
		return nil, validation(locate(err, src))
	}
	if n != len(params) {
		return nil, validation(semErr(-1, msgParamCount))
	}
	sc, err := s.schema(ctx, region, tableOf(stmt))
	if err != nil {
		return nil, err
	}
	return &prepared{src: src, stmt: stmt, bind: &binder{params: params}, schema: sc}, nil
}
