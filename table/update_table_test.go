package table

import (
	"context"
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/store"
)

// TestUpdateTableValidatesFirst checks that a bad UpdateTable is refused
// before the store is touched: with the store closed under a table whose
// definition is cached, the answer is still the request's own error.
func TestUpdateTableValidatesFirst(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{})
	defer s.Close()
	ctx := context.Background()
	five := int64(5)
	if _, err := s.CreateTable(ctx, "r", &CreateTableInput{TableName: "A",
		AttributeDefinitions:  []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:             []KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		ProvisionedThroughput: &ProvisionedThroughput{ReadCapacityUnits: &five, WriteCapacityUnits: &five}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DescribeTable(ctx, "r", &TableNameInput{TableName: "A"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   UpdateTableInput
		want Error
	}{
		{"same throughput", UpdateTableInput{ProvisionedThroughput: &ProvisionedThroughput{ReadCapacityUnits: &five, WriteCapacityUnits: &five}},
			Error{Code: ValidationException, Message: "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."}},
		{"unknown index", UpdateTableInput{GlobalSecondaryIndexUpdates: []GlobalSecondaryIndexUpdate{{Delete: &struct {
			IndexName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
		}{IndexName: "nope"}}}},
			Error{Code: ResourceNotFoundException, Message: "Requested resource not found: Index: nope not found"}},
		{"key type change", UpdateTableInput{AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "N"}}, TableClass: "STANDARD"},
			Error{Code: ValidationException, Message: "One or more parameter values were invalid: Cannot change the type of attribute pk"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = "A"
			_, err := s.UpdateTable(ctx, "r", &in)
			var got *Error
			if !errors.As(err, &got) || got.Code != tc.want.Code || got.Message != tc.want.Message {
				t.Errorf("UpdateTable: got %v, want %s: %s", err, tc.want.Code, tc.want.Message)
			}
		})
	}
}
