package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestBulkPutItemsGlobalTables: as the developer guide's bulk put items
// considerations say, a load cannot start on a table that is part of a
// global table (through either replica), and a replica cannot be added to
// a table while a load into it is in progress; once the load has ended,
// it can.
func TestBulkPutItemsGlobalTables(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	g := startGlobalServer(t, table.Options{S3: st})
	c, eu := g.client("us-east-1"), g.client("eu-west-1")
	ctx := context.Background()
	var b strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&b, `{"Item":{"pk":{"S":"p%d"},"sk":{"S":"1"}}}`+"\n", i)
	}
	putObject(t, st, "src", "in/1.json", b.String())

	createTable(t, c, "Global", true)
	addReplica(t, c, "Global", "eu-west-1")
	for region, client := range map[string]*dynamodb.Client{"us-east-1": c, "eu-west-1": eu} {
		_, err := client.StartBulkPutItems(ctx, bulkInput("Global", "in/", "global-"+region))
		wantAPIError(t, err, "ValidationException", "Bulk put items does not support global tables: table Global is a replica of a global table")
	}

	createTable(t, c, "Solo", true)
	in := bulkInput("Solo", "in/", "solo")
	in.MaxWriteRequestUnits = aws.Int64(1024) // about six seconds
	start, err := c.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	arn := start.BulkOperationDescription.BulkOperationArn
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Solo"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	wantAPIError(t, err, "ValidationException", fmt.Sprintf("Table Solo cannot become part of a global table while bulk operation %s is in progress", aws.ToString(arn)))
	if _, err := c.CancelBulkOperation(ctx, &dynamodb.CancelBulkOperationInput{BulkOperationArn: arn}); err != nil {
		t.Fatal(err)
	}
	if d := waitBulk(t, c, arn); d.BulkOperationStatus != types.BulkOperationStatusCancelled {
		t.Fatalf("cancelled load: %+v", d)
	}
	addReplica(t, c, "Solo", "eu-west-1")
}
