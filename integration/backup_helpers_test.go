package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// createOrders creates a PROVISIONED table pk S + sk S with a local index
// byAmount (amt N) and a global index byStatus (status S), both ALL.
func createOrders(t testing.TB, c *dynamodb.Client, name string) {
	t.Helper()
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("amt"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema:             ixKeys([]string{"pk"}, "sk"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsiDef("byAmount", "amt", types.ProjectionTypeAll)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byStatus"),
			KeySchema: ixKeys([]string{"status"}), Projection: ixProjection(types.ProjectionTypeAll), ProvisionedThroughput: pt}},
		ProvisionedThroughput: pt,
		Tags:                  []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}},
		StreamSpecification:   &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// putOrder writes order pk=o, sk=sk with amount amt and status st.
func putOrder(t testing.TB, c *dynamodb.Client, tableName, sk, amt, st string) {
	t.Helper()
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(tableName),
		Item: map[string]types.AttributeValue{"pk": s("o"), "sk": s(sk), "amt": n(amt), "status": s(st)}})
	if err != nil {
		t.Fatalf("PutItem %s/%s: %v", tableName, sk, err)
	}
}

func deleteOrder(t testing.TB, c *dynamodb.Client, tableName, sk string) {
	t.Helper()
	_, err := c.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(tableName),
		Key: map[string]types.AttributeValue{"pk": s("o"), "sk": s(sk)}})
	if err != nil {
		t.Fatalf("DeleteItem %s/%s: %v", tableName, sk, err)
	}
}

// orders returns "sk:amt:status" of every item of a table (consistent scan),
// of its local index byAmount in amount order, or of its global index
// byStatus for status "open", each sorted as read.
func orders(t testing.TB, c *dynamodb.Client, tableName, index string) []string {
	t.Helper()
	ctx := context.Background()
	var items []map[string]types.AttributeValue
	switch index {
	case "":
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tableName), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("Scan %s: %v", tableName, err)
		}
		items = out.Items
	case "byAmount":
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tableName), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("o")}})
		if err != nil {
			t.Fatalf("Query %s %s: %v", tableName, index, err)
		}
		items = out.Items
	default:
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tableName), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("open")}})
		if err != nil {
			t.Fatalf("Query %s %s: %v", tableName, index, err)
		}
		items = out.Items
	}
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s:%s:%s", rstr(it, "sk"), rnum(it, "amt"), rstr(it, "status")))
	}
	if index != "byAmount" {
		slices.Sort(got)
	}
	return got
}

func wantOrders(t testing.TB, c *dynamodb.Client, tableName, index string, want ...string) {
	t.Helper()
	if got := orders(t, c, tableName, index); !slices.Equal(got, want) {
		t.Errorf("%s %s: got [%s], want [%s]", tableName, index, strings.Join(got, " "), strings.Join(want, " "))
	}
}

func enablePITR(t testing.TB, c *dynamodb.Client, tableName string, days int32) *types.PointInTimeRecoveryDescription {
	t.Helper()
	spec := &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}
	if days > 0 {
		spec.RecoveryPeriodInDays = aws.Int32(days)
	}
	out, err := c.UpdateContinuousBackups(context.Background(), &dynamodb.UpdateContinuousBackupsInput{
		TableName: aws.String(tableName), PointInTimeRecoverySpecification: spec})
	if err != nil {
		t.Fatalf("UpdateContinuousBackups %s: %v", tableName, err)
	}
	return out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
}

// bkAttr defines string key attributes.
func bkAttr(names ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for _, n := range names {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS})
	}
	return out
}

// sortedJoin sorts ss and joins them with spaces.
func sortedJoin(ss []string) string {
	slices.Sort(ss)
	return strings.Join(ss, " ")
}
