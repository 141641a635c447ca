package api

import "github.com/ddblocal/ddblocal/table"

// streamOperations is the DynamoDB Streams part of the dispatch table, keyed
// by the whole X-Amz-Target (DynamoDBStreams_20120810.<Operation>).
func streamOperations(svc *table.Service) map[string]Handler {
	return map[string]Handler{
		streamsPrefix + "ListStreams":      Op(svc.ListStreams),
		streamsPrefix + "DescribeStream":   Op(svc.DescribeStream),
		streamsPrefix + "GetShardIterator": Op(svc.GetShardIterator),
		streamsPrefix + "GetRecords":       Op(svc.GetRecords),
	}
}
