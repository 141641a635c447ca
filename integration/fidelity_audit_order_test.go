package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestConstraintMessageOrder: when several member constraints fail, the
// messages come in the service's order, and an enumeration lists its
// values in the service's order, as recorded from DynamoDB in 2026 by the
// ack-api-quirks catalogue (DDB-TABLE-457: an attribute definition's type
// before its name, WriteCapacityUnits before ReadCapacityUnits, a Time to
// Live specification's attribute name before Enabled, a backup name's and
// ListTables' start name's pattern before their length, StreamViewType's
// and ContributorInsightsMode's values) and by paritysuite's conformance
// suite (CreateTable's global index before its local one, whichever the
// request lists first; Select's and AttributeType's values).
func TestConstraintMessageOrder(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	const notNull = "failed to satisfy constraint: Member must not be null"
	const short = "failed to satisfy constraint: Member must have length greater than or equal to 3"
	const pattern = "failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	pk := []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
	pkDef := []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}
	create := func(in dynamodb.CreateTableInput) error {
		in.TableName = aws.String("Order")
		_, err := c.CreateTable(ctx, &in, unvalidated)
		return err
	}
	createTable(t, c, "Ordered", false)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"attribute definition type and name", create(dynamodb.CreateTableInput{KeySchema: pk, BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{}}}),
			"2 validation errors detected: Value null at 'attributeDefinitions.1.member.attributeType' " + notNull +
				"; Value null at 'attributeDefinitions.1.member.attributeName' " + notNull},
		{"attribute type values", create(dynamodb.CreateTableInput{KeySchema: pk, BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: "SS"}}}),
			"1 validation error detected: Value 'SS' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"},
		{"throughput write before read", create(dynamodb.CreateTableInput{KeySchema: pk, AttributeDefinitions: pkDef,
			ProvisionedThroughput: &types.ProvisionedThroughput{}}),
			"2 validation errors detected: Value null at 'provisionedThroughput.writeCapacityUnits' " + notNull +
				"; Value null at 'provisionedThroughput.readCapacityUnits' " + notNull},
		{"global index before local index", create(dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: catalogDefs("pk", "sk"), KeySchema: catalogKeys("pk", "HASH", "sk", "RANGE"),
			LocalSecondaryIndexes:  []types.LocalSecondaryIndex{lsiDef("aa", "sk", types.ProjectionTypeAll)},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsiDef("zz", []string{"sk"}, nil, types.ProjectionTypeAll)}}),
			"2 validation errors detected: Value 'zz' at 'globalSecondaryIndexes.1.member.indexName' " + short +
				"; Value 'aa' at 'localSecondaryIndexes.1.member.indexName' " + short},
		{"stream view type values", create(dynamodb.CreateTableInput{KeySchema: pk, AttributeDefinitions: pkDef, BillingMode: types.BillingModePayPerRequest,
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: "BAD"}}),
			"1 validation error detected: Value 'BAD' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]"},
		{"time to live name before enabled", func() error {
			_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Ordered"),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{}}, unvalidated)
			return err
		}(), "2 validation errors detected: Value null at 'timeToLiveSpecification.attributeName' " + notNull +
			"; Value null at 'timeToLiveSpecification.enabled' " + notNull},
		{"backup name pattern before length", func() error {
			_, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Ordered"), BackupName: aws.String("x!")})
			return err
		}(), "2 validation errors detected: Value 'x!' at 'backupName' " + pattern + "; Value 'x!' at 'backupName' " + short},
		{"ListTables start name pattern before length", func() error {
			_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String("x!")})
			return err
		}(), "2 validation errors detected: Value 'x!' at 'exclusiveStartTableName' " + pattern + "; Value 'x!' at 'exclusiveStartTableName' " + short},
		{"select values", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Ordered"), Select: "INVALID_VALUE",
				KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("x")}})
			return err
		}(), "1 validation error detected: Value 'INVALID_VALUE' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"},
		{"contributor insights mode values", func() error {
			_, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("Ordered"),
				ContributorInsightsAction: types.ContributorInsightsActionEnable, ContributorInsightsMode: "BAD"})
			return err
		}(), "1 validation error detected: Value 'BAD' at 'contributorInsightsMode' failed to satisfy constraint: Member must satisfy enum value set: [THROTTLED_KEYS, ACCESSED_AND_THROTTLED_KEYS]"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantAPIError(t, tc.err, "ValidationException", tc.want) })
	}
}

// TestTableNameRequired: CreateTable, UpdateTable, DeleteTable and
// DescribeTable without a TableName (absent, null, or an empty body) are
// answered in DynamoDB's older words, alone, before anything else in the
// request is checked (recorded against the service by a Java suite's
// testNullTableName for CreateTable, Electric Imp's AWSDynamoDB tests for
// UpdateTable, architect/dynalite's suite for DeleteTable and
// DescribeTable); a body that is no object stays a SerializationException.
func TestTableNameRequired(t *testing.T) {
	srv := startServer(t, table.Options{})
	const want = "The parameter 'TableName' is required but was not present in the request"
	for _, op := range []string{"CreateTable", "UpdateTable", "DeleteTable", "DescribeTable"} {
		for _, body := range []string{`{}`, ``, `{"TableName":null}`, `{"ProvisionedThroughput":{"ReadCapacityUnits":0},"KeySchema":[]}`} {
			status, typ, msg := rawCall(t, srv.URL, op, body)
			if status != 400 || !strings.HasSuffix(typ, "#ValidationException") || msg != want {
				t.Errorf("%s %s: got %d %s %q, want 400 ValidationException %q", op, body, status, typ, msg, want)
			}
		}
		if status, typ, _ := rawCall(t, srv.URL, op, `null`); status != 400 || !strings.HasSuffix(typ, "#SerializationException") {
			t.Errorf("%s null: got %d %s, want a SerializationException", op, status, typ)
		}
	}
}
