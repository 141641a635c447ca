package integration

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestGlobalTableTransactionsTTLAndLocalIndexes: on an MREC global table a
// TransactWriteItems commits in its own Region and each of its items
// replicates; the replica's local secondary index has the replicated items;
// an item whose Time to Live has passed is deleted in both Regions.
func TestGlobalTableTransactionsTTLAndLocalIndexes(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	ctx := context.Background()
	key := func(names ...string) []types.KeySchemaElement {
		ks := []types.KeySchemaElement{{AttributeName: aws.String(names[0]), KeyType: types.KeyTypeHash}}
		if len(names) > 1 {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(names[1]), KeyType: types.KeyTypeRange})
		}
		return ks
	}
	sAttr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	if _, err := us.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("glob"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{sAttr("pk"), sAttr("sk"), sAttr("l")}, KeySchema: key("pk", "sk"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"), KeySchema: key("pk", "l"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}); err != nil {
		t.Fatal(err)
	}
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	if _, err := us.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("glob"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	item := func(sk, l string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s("p"), "sk": s(sk), "l": s(l)}
	}
	if _, err := us.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("glob"), Item: item("1", "a")}},
		{Put: &types.Put{TableName: aws.String("glob"), Item: item("2", "b")}}}}); err != nil {
		t.Fatal(err)
	}
	expiring := item("3", "c")
	expiring["exp"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(streamStart.Unix()+60, 10)}
	if _, err := eu.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("glob"), Item: expiring}); err != nil {
		t.Fatal(err)
	}
	srv.settle(t)
	local := func(c *dynamodb.Client) []string {
		t.Helper()
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("glob"), IndexName: aws.String("byL"),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}})
		if err != nil {
			t.Fatal(err)
		}
		var ls []string
		for _, it := range out.Items {
			ls = append(ls, it["l"].(*types.AttributeValueMemberS).Value)
		}
		return ls
	}
	for region, c := range map[string]*dynamodb.Client{"us-east-1": us, "eu-west-1": eu} {
		if got := local(c); len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
			t.Errorf("%s byL before the expiry: %v, want [a b c]", region, got)
		}
	}
	srv.clk.Advance(ctx, 2*time.Minute) // the sweeper deletes the expired item
	srv.settle(t)
	for region, c := range map[string]*dynamodb.Client{"us-east-1": us, "eu-west-1": eu} {
		if got := local(c); len(got) != 2 || got[0] != "a" || got[1] != "b" {
			t.Errorf("%s byL after the expiry: %v, want [a b]", region, got)
		}
	}
}
