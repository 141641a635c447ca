package api

import (
	"maps"

	"github.com/ddblocal/ddblocal/partiql"
	"github.com/ddblocal/ddblocal/table"
)

// Operations is the dispatch table: every DynamoDB operation ddblocal serves,
// by its X-Amz-Target name. DescribeEndpoints is answered by the handler itself.
func Operations(svc *table.Service) map[string]Handler {
	ql := partiql.New(svc)
	ops := map[string]Handler{
		"CreateTable":               tableNameRequired(Op(svc.CreateTable)),
		"DescribeTable":             tableNameRequired(Op(svc.DescribeTable)),
		"ListTables":                Op(svc.ListTables),
		"DeleteTable":               tableNameRequired(Op(svc.DeleteTable)),
		"UpdateTable":               tableNameRequired(Op(svc.UpdateTable)),
		"TagResource":               Op(svc.TagResource),
		"UntagResource":             Op(svc.UntagResource),
		"ListTagsOfResource":        Op(svc.ListTagsOfResource),
		"DescribeLimits":            Op(svc.DescribeLimits),
		"DescribeContinuousBackups": Op(svc.DescribeContinuousBackups),
		"DescribeTimeToLive":        Op(svc.DescribeTimeToLive),
		"UpdateTimeToLive":          Op(svc.UpdateTimeToLive),
		"PutItem":                   emptyTableName(enveloped(opOrdered(svc.PutItem, putOrder))),
		"GetItem":                   currentLayer(Op(svc.GetItem)),
		"DeleteItem":                emptyTableName(enveloped(opOrdered(svc.DeleteItem, deleteOrder))),
		"UpdateItem":                emptyTableName(enveloped(opOrdered(svc.UpdateItem, updateOrder))),
		"Query":                     currentLayer(Op(svc.Query)),
		"Scan":                      olderValues(Op(svc.Scan)),
		"SearchVectors":             Op(svc.SearchVectors),
		"BatchGetItem":              currentLayer(Op(svc.BatchGetItem)),
		"BatchWriteItem":            Op(svc.BatchWriteItem),
		"TransactWriteItems":        olderValues(opOrdered(svc.TransactWriteItems, transactOrder(svc))),
		"TransactGetItems":          Op(svc.TransactGetItems),
		"ExecuteStatement":          Op(ql.ExecuteStatement),
		"BatchExecuteStatement":     Op(ql.BatchExecuteStatement),
		"ExecuteTransaction":        Op(ql.ExecuteTransaction),
	}
	maps.Copy(ops, streamOperations(svc))
	maps.Copy(ops, backupOperations(svc))
	maps.Copy(ops, transferOperations(svc))
	maps.Copy(ops, contributorInsightsOperations(svc))
	maps.Copy(ops, globalTableOperations(svc))
	return ops
}
