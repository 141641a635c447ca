package partiql

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// Messages of the statement batches.
const (
	msgBatchKey   = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
	msgBatchMixed = "Statements in a batch must be either all reads or all writes"
)

// batchCodes are the codes a statement's failure has in a batch response.
var batchCodes = map[ddb.Code]string{
	ddb.ValidationException:                      "ValidationError",
	ddb.ConditionalCheckFailedException:          "ConditionalCheckFailed",
	DuplicateItemException:                       "DuplicateItem",
	ddb.ResourceNotFoundException:                "ResourceNotFound",
	ddb.ItemCollectionSizeLimitExceededException: "ItemCollectionSizeLimitExceeded",
	ddb.ProvisionedThroughputExceededException:   "ProvisionedThroughputExceeded",
	ddb.TransactionConflictException:             "TransactionConflict",
	ddb.ThrottlingException:                      "ThrottlingError",
	ddb.RequestLimitExceeded:                     "RequestLimitExceeded",
	ddb.AccessDeniedException:                    "AccessDenied",
	ddb.InternalServerError:                      "InternalServerError",
}

// isRead reports whether a statement text is a read, and whether it parsed.
func isRead(src string) (read, ok bool) {
	st, err := Parse(src)
	if err != nil {
		return false, false
	}
	_, read = st.(*Select)
	return read, true
}

// BatchExecuteStatement runs up to 25 statements, all reads or all writes,
// each on its own: a read must name one item by its whole key and runs as
// a GetItem; a write runs as ExecuteStatement runs it. A statement's
// failure is reported in its place among the Responses, in DynamoDB's
// batch error codes; the others still run.
func (s *Service) BatchExecuteStatement(ctx context.Context, region string, in *BatchExecuteStatementInput) (*BatchExecuteStatementOutput, error) {
	reads, writes := 0, 0
	for _, st := range in.Statements {
		if read, ok := isRead(st.Statement); ok && read {
			reads++
		} else if ok {
			writes++
		}
	}
	if reads > 0 && writes > 0 {
		return nil, ddb.Errorf(ddb.ValidationException, msgBatchMixed)
	}
	out := &BatchExecuteStatementOutput{Responses: make([]BatchStatementResponse, len(in.Statements))}
	var caps []*ddb.ConsumedCapacity
	for i, st := range in.Statements {
		resp, cc, err := s.batchOne(ctx, region, st, in.ReturnConsumedCapacity)
		var te *ddb.Error
		switch {
		case errors.As(err, &te) && batchCodes[te.Code] != "":
			resp.Error = &BatchStatementError{Code: batchCodes[te.Code], Message: te.Message, Item: te.Item}
			resp.Item = nil
		case err != nil:
			return nil, err
		}
		out.Responses[i] = resp
		caps = append(caps, cc)
	}
	out.ConsumedCapacity = perTable(caps)
	return out, nil
}

// batchOne runs one statement of a batch.
func (s *Service) batchOne(ctx context.Context, region string, st BatchStatementRequest, rcc string) (BatchStatementResponse, *ddb.ConsumedCapacity, error) {
	var resp BatchStatementResponse
	p, err := s.prepare(ctx, region, st.Statement, st.Parameters)
	if err != nil {
		return resp, nil, err
	}
	resp.TableName = p.schema.table
	switch sel := p.stmt.(type) {
	case *Select:
		get, err := planKeyGet(sel, p.schema, p.bind, st.ConsistentRead, rcc, msgBatchKey)
		if err != nil {
			return resp, nil, p.fail(err)
		}
		g, err := s.tables.GetItem(ctx, region, get)
		if err != nil {
			return resp, nil, err
		}
		item, err := g.ReadItem()
		resp.Item = attr.Item(item)
		return resp, g.ConsumedCapacity, err
	case *Exists:
		return resp, nil, validation(semErr(sel.At, "EXISTS can only be used in ExecuteTransaction write requests."))
	}
	w, err := planWrite(p, st.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return resp, nil, p.fail(err)
	}
	out, err := s.runWrite(ctx, region, w, rcc)
	if err != nil {
		return resp, nil, err
	}
	return resp, out.ConsumedCapacity, nil
}
