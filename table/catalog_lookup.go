package table

import (
	"context"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// Every operation's way to its table: a TableName (name or ARN) resolved
// in the caller's scope, with the caller's access checked.

// table returns the table named by a TableName member (name or ARN), or
// ResourceNotFoundException with the message item operations use, also
// for a table an import is creating (transfer_import_state.go). The
// caller (ctx) must be allowed to use it (see authorize).
func (s *Service) table(ctx context.Context, region, name string) (*tableMeta, error) {
	return s.notImporting(s.lookup(ctx, region, name, "", nil))
}

// tableIndex is table for a Query or Scan of index (none when nil): the
// caller is judged on the index's ARN, which a table's policy must name
// (as IAM does, a grant on the table alone does not cover its indexes).
func (s *Service) tableIndex(ctx context.Context, region, name string, index *string) (*tableMeta, error) {
	ix := ""
	if index != nil {
		ix = *index
	}
	return s.notImporting(s.lookup(ctx, region, name, ix, nil))
}

// tableForControl is table with the message the control-plane operations use.
func (s *Service) tableForControl(ctx context.Context, region, name string) (*tableMeta, error) {
	return s.lookup(ctx, region, name, "", ddb.NotFound("Table: %s not found", tableName(name)))
}

// lookup resolves a TableName member in the caller's scope, or in the
// scope its ARN names when resource-based policies are enforced, answering
// notFound (nil: the item operations' ResourceNotFoundException) when there
// is no such table, and checks the caller's access to the table or, when
// index is not "", to that index. Another account's table that does not
// exist is refused like one without a policy, so that no account learns
// which tables another has.
func (s *Service) lookup(ctx context.Context, region, name, index string, notFound error) (*tableMeta, error) {
	scope := region
	arnScope, foreign := access.ForeignARN(region, name)
	if foreign {
		if s.opts.Policies == nil {
			return nil, orNotFound(notFound)
		}
		scope = arnScope
	}
	m, err := s.catalog.get(s.db, scope, tableName(name))
	if err != nil {
		return nil, err
	}
	if m == nil && !foreign {
		return nil, orNotFound(notFound)
	}
	// Only a verified caller is judged (authorize passes everyone else),
	// and only where a policy or another account may refuse it (policed):
	// the resource's ARN costs allocations on every item operation.
	if _, judged := s.callerOf(ctx); judged && policed(region, m, "") {
		resource := name
		if m != nil {
			resource = m.arn()
		}
		if index != "" {
			resource += "/index/" + index
		}
		if err := s.authorize(ctx, region, m, "", resource); err != nil {
			return nil, err
		}
	}
	if m == nil {
		return nil, orNotFound(notFound)
	}
	return m, nil
}

// orNotFound is err, or when nil the item operations' ResourceNotFoundException,
// made only when a table is missing.
func orNotFound(err error) error {
	if err == nil {
		return ddb.NotFound("")
	}
	return err
}
