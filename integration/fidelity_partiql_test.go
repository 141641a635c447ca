package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestPartiQLIndexQualifier: SELECTs on an index and FROM paths DynamoDB
// refuses, in its words as nubo-db/dynamodb-conformance pins them against
// the service (tests/tier3/error-messages/partiqlIndexQualifier, eu-west-2):
// attributes an index does not project, in the SELECT list of a global
// index or in the WHERE of either kind (unlike Query, which filters what it
// has); empty path components, before the table is looked up; and an
// ordering operator on a BOOL without the expression API's prefix.
func TestPartiQLIndexQualifier(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	def := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	hash := func(name string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: types.KeyTypeHash}
	}
	rng := func(name string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: types.KeyTypeRange}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("PIdx"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{def("pk"), def("sk"), def("gsiPk"), def("gsiPk2"), def("l")},
		KeySchema:            []types.KeySchemaElement{hash("pk"), rng("sk")},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi-keys"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}, KeySchema: []types.KeySchemaElement{hash("pk"), rng("l")}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("gsi-all"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}, KeySchema: []types.KeySchemaElement{hash("gsiPk")}},
			{IndexName: aws.String("gsi-inc"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"inc"}},
				KeySchema: []types.KeySchemaElement{hash("gsiPk2")}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	const pre = "One or more parameter values were invalid: "
	for _, tc := range []struct {
		stmt   string
		params []types.AttributeValue
		code   string
		want   string
	}{
		{`SELECT pk FROM "PIdx"."gsi-inc" WHERE gsiPk2 = 'y' AND np = 'np1'`, nil, "ValidationException",
			pre + "Secondary index gsi-inc does not project one or more filter attributes: [np]"},
		{`SELECT pk FROM "PIdx"."lsi-keys" WHERE pk = 'p' AND np = 'np1'`, nil, "ValidationException",
			pre + "Secondary index lsi-keys does not project one or more filter attributes: [np]"},
		{`SELECT np FROM "PIdx"."gsi-inc" WHERE gsiPk2 = 'y'`, nil, "ValidationException",
			pre + "Global secondary index gsi-inc does not project [np]"},
		{`SELECT * FROM "PIdx"."" WHERE pk = 'p'`, nil, "ValidationException", "Path component cannot be an empty string"},
		{`SELECT * FROM "" WHERE pk = 'p'`, nil, "ValidationException", "Path component cannot be an empty string"},
		{`SELECT * FROM "PIdx"."gsi-all"."extra" WHERE pk = 'p'`, nil, "ValidationException", "A path may contain at most 2 components in the FROM clause"},
		{`SELECT * FROM "PIdx"."no-such-index" WHERE pk = 'p'`, nil, "ValidationException", "The table does not have the specified index"},
		{`SELECT pk FROM "PIdx" WHERE pk = 'x' AND val < ?`, []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}}, "ValidationException",
			"Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
	} {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.stmt), Parameters: tc.params})
		if err == nil {
			t.Fatalf("%s: accepted", tc.stmt)
		}
		wantAPIError(t, err, tc.code, tc.want)
	}
	// What the indexes project is read, and ALL projects everything.
	for _, stmt := range []string{
		`SELECT inc, pk FROM "PIdx"."gsi-inc" WHERE gsiPk2 = 'y' AND inc = 'a'`,
		`SELECT np FROM "PIdx"."gsi-all" WHERE gsiPk = 'y' AND np = 'a'`,
		`SELECT * FROM "PIdx"."lsi-keys" WHERE pk = 'p' AND sk = 's'`,
	} {
		if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)}); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
}
