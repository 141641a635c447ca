package table

import (
	"context"
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// TestUpdateTableValidatesFirst checks that a bad UpdateTable is refused
// before the store is touched: with the store closed under a table whose
// definition is cached, the answer is still the request's own error.
func TestUpdateTableValidatesFirst(t *testing.T) {
	s := memService(t, Options{})
	ctx := context.Background()
	five := int64(5)
	if _, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "A",
		AttributeDefinitions:  []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:             []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: &five, WriteCapacityUnits: &five}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DescribeTable(ctx, "r", &ddb.TableNameInput{TableName: "A"}); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   ddb.UpdateTableInput
		want ddb.Error
	}{
		{"same throughput", ddb.UpdateTableInput{ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: &five, WriteCapacityUnits: &five}},
			ddb.Error{Code: ddb.ValidationException, Message: "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."}},
		{"unknown index", ddb.UpdateTableInput{GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{{Delete: &struct {
			IndexName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
		}{IndexName: "nope"}}}},
			ddb.Error{Code: ddb.ResourceNotFoundException, Message: "Requested resource not found: Index nope for table A"}},
		{"unknown table class", ddb.UpdateTableInput{TableClass: "STANDARD_IA"},
			ddb.Error{Code: ddb.ValidationException, Message: "Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."}},
		{"encrypted by default", ddb.UpdateTableInput{SSESpecification: &ddb.SSESpecification{}},
			ddb.Error{Code: ddb.ValidationException, Message: "One or more parameter values were invalid: Table is already encrypted by default"}},
		{"index without definitions", ddb.UpdateTableInput{GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{{Create: &ddb.GlobalSecondaryIndex{IndexName: "byPk",
			KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}, Projection: &ddb.Projection{ProjectionType: "ALL"}}}}},
			ddb.Error{Code: ddb.ValidationException, Message: "One or more parameter values were invalid: AttributeDefinitions is not specified for index: byPk"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = "A"
			_, err := s.UpdateTable(ctx, "r", &in)
			var got *ddb.Error
			if !errors.As(err, &got) || got.Code != tc.want.Code || got.Message != tc.want.Message {
				t.Errorf("UpdateTable: got %v, want %s: %s", err, tc.want.Code, tc.want.Message)
			}
		})
	}
}
