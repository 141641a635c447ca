package api

import "github.com/ddblocal/ddblocal/table"

// backupOperations are the dispatch entries of backups, point-in-time
// recovery, resource policies and Kinesis streaming destinations.
func backupOperations(svc *table.Service) map[string]Handler {
	return map[string]Handler{
		"UpdateContinuousBackups":             Op(svc.UpdateContinuousBackups),
		"CreateBackup":                        Op(svc.CreateBackup),
		"DescribeBackup":                      Op(svc.DescribeBackup),
		"ListBackups":                         Op(svc.ListBackups),
		"DeleteBackup":                        Op(svc.DeleteBackup),
		"RestoreTableFromBackup":              Op(svc.RestoreTableFromBackup),
		"RestoreTableToPointInTime":           Op(svc.RestoreTableToPointInTime),
		"PutResourcePolicy":                   Op(svc.PutResourcePolicy),
		"GetResourcePolicy":                   Op(svc.GetResourcePolicy),
		"DeleteResourcePolicy":                Op(svc.DeleteResourcePolicy),
		"DescribeKinesisStreamingDestination": Op(svc.DescribeKinesisStreamingDestination),
		"EnableKinesisStreamingDestination":   Op(svc.EnableKinesisStreamingDestination),
		"DisableKinesisStreamingDestination":  Op(svc.DisableKinesisStreamingDestination),
		"UpdateKinesisStreamingDestination":   Op(svc.UpdateKinesisStreamingDestination),
	}
}
