package integration

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestMultiAccountReplicaFromSourceArn: the developer guide's multi-account
// tutorial creates the replica with TableName, GlobalTableSourceArn,
// ResourcePolicy and GlobalTableSettingsReplicationMode only (the SDK
// requires nothing else); the replica takes the source's key schema,
// attribute definitions, indexes, billing mode, capacity and stream, and a
// request repeating them may not change them.
func TestMultiAccountReplicaFromSourceArn(t *testing.T) {
	srv := startAccountsServer(t)
	us, eu := srv.client("us-east-1"), secondClient(srv, "eu-west-1")
	ctx := context.Background()
	src := "arn:aws:dynamodb:us-east-1:000000000000:table/Music"
	dst := "arn:aws:dynamodb:eu-west-1:" + secondAccount + ":table/Music"
	keys := []types.KeySchemaElement{{AttributeName: aws.String("Artist"), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String("SongTitle"), KeyType: types.KeyTypeRange}}
	defs := []types.AttributeDefinition{{AttributeName: aws.String("Artist"), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String("SongTitle"), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String("Year"), AttributeType: types.ScalarAttributeTypeN}}
	gsi := types.GlobalSecondaryIndex{IndexName: aws.String("ByYear"),
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("Year"), KeyType: types.KeyTypeHash}},
		Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)}}
	lsi := types.LocalSecondaryIndex{IndexName: aws.String("ArtistYear"),
		KeySchema:  []types.KeySchemaElement{keys[0], {AttributeName: aws.String("Year"), KeyType: types.KeyTypeRange}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}
	if _, err := us.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Music"), KeySchema: keys, AttributeDefinitions: defs,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi}, LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi},
		BillingMode:                        types.BillingModeProvisioned,
		ProvisionedThroughput:              &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(6)},
		StreamSpecification:                &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled,
		ResourcePolicy:                     aws.String(policyOf(replicationStatement(src, allReplication(), dst, src), associateStatement(src, secondAccount))),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := us.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Music"), Item: map[string]types.AttributeValue{
		"Artist": s("item_0"), "SongTitle": s("Song Value 0"), "Year": &types.AttributeValueMemberN{Value: "1999"}}}); err != nil {
		t.Fatal(err)
	}
	replica := func(change func(*dynamodb.CreateTableInput)) error {
		in := &dynamodb.CreateTableInput{TableName: aws.String("Music"), GlobalTableSourceArn: aws.String(src),
			ResourcePolicy:                     aws.String(policyOf(replicationStatement(dst, allReplication(), dst, src))),
			GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled}
		if change != nil {
			change(in)
		}
		_, err := eu.CreateTable(ctx, in)
		return err
	}

	// Without a source, KeySchema and AttributeDefinitions are required (javaMapOrder's order).
	_, err := eu.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Music")})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: "+
		"Value null at 'keySchema' failed to satisfy constraint: Member must not be null; "+
		"Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null")
	sourceRefusals(t, replica, keys, defs, gsi, lsi)
	if _, err := eu.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Music")}); err == nil {
		t.Fatal("a refused replica exists")
	}

	// Repeating the source's definitions (in another order) is accepted
	// like leaving them out; here they are left out, as the tutorial does.
	if err := replica(nil); err != nil {
		t.Fatalf("CreateTable with GlobalTableSourceArn only: %v", err)
	}
	srv.settle(t)
	checkReplicaFromSource(t, describe(t, us, "Music"), describe(t, eu, "Music"), src, keys, len(defs), lsi.KeySchema)
	// The tutorial's check: an item written in the source Region is read in
	// the replica's, the copied one too.
	if _, err := us.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Music"), Item: map[string]types.AttributeValue{
		"Artist": s("item_1"), "SongTitle": s("Song Value 1")}}); err != nil {
		t.Fatal(err)
	}
	srv.settle(t)
	for _, artist := range []string{"item_0", "item_1"} {
		out, err := eu.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Music"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"Artist": s(artist), "SongTitle": s("Song Value " + artist[5:])}})
		if err != nil || out.Item == nil {
			t.Errorf("%s in the replica: %v %v", artist, out, err)
		}
	}
	q, err := eu.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Music"), IndexName: aws.String("ByYear"),
		KeyConditionExpression:    aws.String("#y = :y"),
		ExpressionAttributeNames:  map[string]string{"#y": "Year"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":y": &types.AttributeValueMemberN{Value: "1999"}}})
	if err != nil || q.Count != 1 {
		t.Errorf("the replica's global index after the copy: %v %v, want item_0", q, err)
	}
}

// checkReplicaFromSource checks that replica got has source want's
// definition, as TestMultiAccountReplicaFromSourceArn made them.
func checkReplicaFromSource(t *testing.T, want, got *types.TableDescription, src string, keys []types.KeySchemaElement, defs int, lsiKeys []types.KeySchemaElement) {
	t.Helper()
	sameKeys := func(a, b []types.KeySchemaElement) bool {
		return slices.EqualFunc(a, b, func(x, y types.KeySchemaElement) bool {
			return aws.ToString(x.AttributeName) == aws.ToString(y.AttributeName) && x.KeyType == y.KeyType
		})
	}
	switch {
	case !sameKeys(got.KeySchema, keys):
		t.Errorf("the replica's key schema: %+v", got.KeySchema)
	case len(got.AttributeDefinitions) != defs:
		t.Errorf("the replica's attribute definitions: %+v", got.AttributeDefinitions)
	case len(got.GlobalSecondaryIndexes) != 1 || aws.ToString(got.GlobalSecondaryIndexes[0].IndexName) != "ByYear" ||
		got.GlobalSecondaryIndexes[0].Projection.ProjectionType != types.ProjectionTypeKeysOnly ||
		aws.ToInt64(got.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits) != 4:
		t.Errorf("the replica's global indexes: %+v", got.GlobalSecondaryIndexes)
	case len(got.LocalSecondaryIndexes) != 1 || !sameKeys(got.LocalSecondaryIndexes[0].KeySchema, lsiKeys):
		t.Errorf("the replica's local indexes: %+v", got.LocalSecondaryIndexes)
	case got.BillingModeSummary != nil && got.BillingModeSummary.BillingMode != types.BillingModeProvisioned,
		aws.ToInt64(got.ProvisionedThroughput.ReadCapacityUnits) != 5 || aws.ToInt64(got.ProvisionedThroughput.WriteCapacityUnits) != 6:
		t.Errorf("the replica's billing: %+v %+v, want the source's PROVISIONED 5/6", got.BillingModeSummary, got.ProvisionedThroughput)
	case got.StreamSpecification == nil || got.StreamSpecification.StreamViewType != want.StreamSpecification.StreamViewType:
		t.Errorf("the replica's stream: %+v, want the source's %+v", got.StreamSpecification, want.StreamSpecification)
	case len(got.Replicas) != 1 || aws.ToString(got.Replicas[0].ReplicaArn) != src:
		t.Errorf("the replica's replicas: %+v, want the source", got.Replicas)
	}
}

// sourceRefusals: a replica's CreateTable naming an unknown source, or
// giving a definition other than the source's, is refused.
func sourceRefusals(t *testing.T, replica func(func(*dynamodb.CreateTableInput)) error, keys []types.KeySchemaElement,
	defs []types.AttributeDefinition, gsi types.GlobalSecondaryIndex, lsi types.LocalSecondaryIndex) {
	t.Helper()
	for _, c := range []struct {
		name, code, msg string
		change          func(*dynamodb.CreateTableInput)
	}{
		{"no such source", "ResourceNotFoundException", "Requested resource not found: Table: Music not found", func(in *dynamodb.CreateTableInput) {
			in.GlobalTableSourceArn = aws.String("arn:aws:dynamodb:us-west-2:000000000000:table/Music")
		}},
		{"another key schema", "ValidationException", "The key schema must be the source table's.", func(in *dynamodb.CreateTableInput) {
			in.KeySchema, in.AttributeDefinitions = keys[:1], defs[:1]
		}},
		{"another attribute type", "ValidationException", "The attribute definitions must be the source table's.", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = []types.AttributeDefinition{defs[0], defs[1], {AttributeName: aws.String("Year"), AttributeType: types.ScalarAttributeTypeS}}
		}},
		{"another global index", "ValidationException", "The global secondary indexes must be the source table's.", func(in *dynamodb.CreateTableInput) {
			g := gsi
			g.Projection = &types.Projection{ProjectionType: types.ProjectionTypeAll}
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{g}
		}},
		{"another local index", "ValidationException", "The local secondary indexes must be the source table's.", func(in *dynamodb.CreateTableInput) {
			l := lsi
			l.Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{l}
		}},
		{"another billing mode", "ValidationException", "The billing mode must be the source table's.", func(in *dynamodb.CreateTableInput) {
			in.BillingMode = types.BillingModePayPerRequest
		}},
		{"other capacity", "ValidationException", "The provisioned throughput must be the source table's.", func(in *dynamodb.CreateTableInput) {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)}
		}},
		{"another stream", "ValidationException", "The stream specification must be the source table's.", func(in *dynamodb.CreateTableInput) {
			in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
		}},
	} {
		wantAPIError(t, replica(c.change), c.code, c.msg)
	}
}
