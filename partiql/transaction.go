package partiql

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/ddb"
)

// Messages of ExecuteTransaction.
const (
	msgTxKey       = "Select statements within ExecuteTransaction must specify the primary key in the where clause."
	msgTxIndex     = "Reads on indices are not supported within transactions."
	msgTxReturning = "RETURNING clause is not supported in ExecuteTransaction."
	msgTxMixed     = "Transactions must contain either all reads or all writes"
)

// inStatement names the statement a validation error is about, as
// ExecuteTransaction does; other errors are returned unchanged.
func inStatement(i int, err error) error {
	var te *ddb.Error
	if errors.As(validation(err), &te) && te.Code == ddb.ValidationException {
		return ddb.Errorf(ddb.ValidationException, "Validation failed in TransactStatements[%d]: %s", i, te.Message)
	}
	return err
}

// ExecuteTransaction runs up to 100 statements all or nothing: SELECTs of
// whole keys as one TransactGetItems, or INSERT, UPDATE, DELETE and
// EXISTS(...) as one TransactWriteItems, with its cancellation reasons
// (an INSERT of an existing key is reason DuplicateItem), its
// ClientRequestToken idempotency and its capacity.
func (s *Service) ExecuteTransaction(ctx context.Context, region string, in *ExecuteTransactionInput) (*ExecuteTransactionOutput, error) {
	preps := make([]*prepared, len(in.TransactStatements))
	reads := 0
	for i, st := range in.TransactStatements {
		p, err := s.prepare(ctx, region, st.Statement, st.Parameters)
		if err != nil {
			return nil, inStatement(i, err)
		}
		if _, ok := p.stmt.(*Select); ok {
			reads++
		}
		preps[i] = p
	}
	switch reads {
	case 0:
		return s.writeTransaction(ctx, region, preps, in)
	case len(preps):
		return s.readTransaction(ctx, region, preps, in.ReturnConsumedCapacity)
	}
	return nil, ddb.Errorf(ddb.ValidationException, msgTxMixed)
}

// readTransaction runs SELECTs as one TransactGetItems.
func (s *Service) readTransaction(ctx context.Context, region string, preps []*prepared, rcc string) (*ExecuteTransactionOutput, error) {
	tin := &ddb.TransactGetItemsInput{ReturnConsumedCapacity: rcc}
	for i, p := range preps {
		sel := p.stmt.(*Select)
		if sel.Index != "" {
			return nil, inStatement(i, semErr(sel.At, msgTxIndex))
		}
		get, err := planKeyGet(sel, p.schema, p.bind, nil, "", msgTxKey)
		err = locate(err, p.src)
		if err != nil {
			return nil, inStatement(i, err)
		}
		tin.TransactItems = append(tin.TransactItems, ddb.TransactGetItem{Get: &ddb.TransactGet{
			TableName: get.TableName, Key: get.Key, ProjectionExpression: get.ProjectionExpression,
			ExpressionAttributeNames: get.ExpressionAttributeNames}})
	}
	out, err := s.tables.TransactGetItems(ctx, region, tin)
	if err != nil {
		return nil, err
	}
	return &ExecuteTransactionOutput{Responses: out.Responses, ConsumedCapacity: out.ConsumedCapacity}, nil
}

// writeTransaction runs INSERT, UPDATE, DELETE and EXISTS as one TransactWriteItems.
func (s *Service) writeTransaction(ctx context.Context, region string, preps []*prepared, in *ExecuteTransactionInput) (*ExecuteTransactionOutput, error) {
	tin := &ddb.TransactWriteItemsInput{ClientRequestToken: in.ClientRequestToken, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	inserts := make([]bool, len(preps))
	for i, p := range preps {
		w, err := planWrite(p, in.TransactStatements[i].ReturnValuesOnConditionCheckFailure)
		err = locate(err, p.src)
		if err != nil {
			return nil, inStatement(i, err)
		}
		if w.returning {
			return nil, inStatement(i, semErr(p.stmt.Pos(), msgTxReturning))
		}
		inserts[i] = w.kind == writePut
		tin.TransactItems = append(tin.TransactItems, w.transactItem())
	}
	out, err := s.tables.TransactWriteItems(ctx, region, tin)
	if err != nil {
		return nil, duplicateReasons(err, inserts)
	}
	return &ExecuteTransactionOutput{ConsumedCapacity: out.ConsumedCapacity}, nil
}

// duplicateReasons rewrites a cancellation: an INSERT whose condition (a
// new key) failed was cancelled for a duplicate item.
func duplicateReasons(err error, inserts []bool) error {
	var te *ddb.Error
	if !errors.As(err, &te) || te.Code != ddb.TransactionCanceledException || len(te.CancellationReasons) != len(inserts) {
		return err
	}
	reasons := append([]ddb.CancellationReason(nil), te.CancellationReasons...)
	for i, r := range reasons {
		if inserts[i] && r.Code == "ConditionalCheckFailed" {
			reasons[i] = ddb.CancellationReason{Code: "DuplicateItem", Message: msgDuplicate}
		}
	}
	return ddb.Cancelled(reasons)
}

// transactItem is the write plan as one TransactWriteItems action.
func (w *writePlan) transactItem() ddb.TransactWriteItem {
	var cond *string
	if w.cond != nil && *w.cond != "" {
		cond = w.cond
	}
	names, values := w.names, w.values
	if cond == nil && w.update == nil {
		names, values = nil, nil
	}
	switch w.kind {
	case writePut:
		a := &ddb.TransactPut{TableName: w.table, Item: w.item, ConditionExpression: cond, ReturnValuesOnConditionCheckFailure: w.rvccf}
		a.ExpressionAttributeNames, a.ExpressionAttributeValues = names, values
		return ddb.TransactWriteItem{Put: a}
	case writeUpdate:
		a := &ddb.TransactUpdate{TableName: w.table, Key: w.key, UpdateExpression: w.update, ConditionExpression: cond, ReturnValuesOnConditionCheckFailure: w.rvccf}
		a.ExpressionAttributeNames, a.ExpressionAttributeValues = names, values
		return ddb.TransactWriteItem{Update: a}
	case writeDelete:
		a := &ddb.TransactDelete{TableName: w.table, Key: w.key, ConditionExpression: cond, ReturnValuesOnConditionCheckFailure: w.rvccf}
		a.ExpressionAttributeNames, a.ExpressionAttributeValues = names, values
		return ddb.TransactWriteItem{Delete: a}
	}
	a := &ddb.ConditionCheck{TableName: w.table, Key: w.key, ConditionExpression: cond, ReturnValuesOnConditionCheckFailure: w.rvccf}
	a.ExpressionAttributeNames, a.ExpressionAttributeValues = names, values
	return ddb.TransactWriteItem{ConditionCheck: a}
}
