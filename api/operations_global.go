package api

import "github.com/ddblocal/ddblocal/table"

// globalTableOperations are the dispatch entries of global tables' own
// operations: version 2017.11.29's and replica auto scaling's.
func globalTableOperations(svc *table.Service) map[string]Handler {
	return map[string]Handler{
		"CreateGlobalTable":               Op(svc.CreateGlobalTable),
		"UpdateGlobalTable":               Op(svc.UpdateGlobalTable),
		"DescribeGlobalTable":             Op(svc.DescribeGlobalTable),
		"ListGlobalTables":                Op(svc.ListGlobalTables),
		"DescribeGlobalTableSettings":     Op(svc.DescribeGlobalTableSettings),
		"UpdateGlobalTableSettings":       Op(svc.UpdateGlobalTableSettings),
		"DescribeTableReplicaAutoScaling": Op(svc.DescribeTableReplicaAutoScaling),
		"UpdateTableReplicaAutoScaling":   Op(svc.UpdateTableReplicaAutoScaling),
	}
}
