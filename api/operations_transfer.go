package api

import "github.com/ddblocal/ddblocal/table"

// transferOperations are the dispatch entries of exports to S3 and
// imports from S3, and of bulk loads.
func transferOperations(svc *table.Service) map[string]Handler {
	return map[string]Handler{
		"ExportTableToPointInTime": Op(svc.ExportTableToPointInTime),
		"DescribeExport":           Op(svc.DescribeExport),
		"ListExports":              Op(svc.ListExports),
		"ImportTable":              Op(svc.ImportTable),
		"DescribeImport":           Op(svc.DescribeImport),
		"ListImports":              Op(svc.ListImports),
		"StartBulkPutItems":        Op(svc.StartBulkPutItems),
		"DescribeBulkOperation":    Op(svc.DescribeBulkOperation),
		"ListBulkOperations":       Op(svc.ListBulkOperations),
		"CancelBulkOperation":      Op(svc.CancelBulkOperation),
	}
}
