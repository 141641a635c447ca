package api

import (
	"context"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/table"
)

// batchWriteItem is svc.BatchWriteItem behind the checks of a client's
// RequestItems map that follow its members' constraints
// (Service.CheckBatchWriteRequestItems): a key that is no table name is
// refused here, where a client's request is validated, before any table is
// looked up.
func batchWriteItem(svc *table.Service) func(context.Context, string, *ddb.BatchWriteItemInput) (*ddb.BatchWriteItemOutput, error) {
	return func(ctx context.Context, region string, in *ddb.BatchWriteItemInput) (*ddb.BatchWriteItemOutput, error) {
		if err := svc.CheckBatchWriteRequestItems(in.RequestItems); err != nil {
			return nil, err
		}
		return svc.BatchWriteItem(ctx, region, in)
	}
}
