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

// TestUpdateIndex: an index Update on an on-demand table may change only
// its on-demand or warm throughput; on a provisioned one its throughput,
// but not to what it is.
func TestUpdateIndex(t *testing.T) {
	two, three, warm := int64(2), int64(3), int64(20000)
	pt := func(r, w *int64) *ddb.ProvisionedThroughput {
		return &ddb.ProvisionedThroughput{ReadCapacityUnits: r, WriteCapacityUnits: w}
	}
	const only = "One or more parameter values were invalid: The only Updates for index: g when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"
	for _, tc := range []struct {
		name, mode string
		toOnDemand bool
		u          ddb.UpdateGlobalSecondaryIndexAction
		want       string // "" when taken
		r, w       int64  // the index's throughput afterwards
	}{
		{"on demand, throughput", "PAY_PER_REQUEST", false, ddb.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt(&two, &three)}, only, 0, 0},
		{"on demand, nothing", "PAY_PER_REQUEST", false, ddb.UpdateGlobalSecondaryIndexAction{}, only, 0, 0},
		{"on demand, empty maximum", "PAY_PER_REQUEST", false, ddb.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: &ddb.OnDemandThroughput{}}, only, 0, 0},
		{"on demand, maximum", "PAY_PER_REQUEST", false, ddb.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: &ddb.OnDemandThroughput{MaxReadRequestUnits: &two}}, "", 0, 0},
		{"on demand, warm", "PAY_PER_REQUEST", false, ddb.UpdateGlobalSecondaryIndexAction{WarmThroughput: &ddb.WarmThroughput{ReadUnitsPerSecond: &warm}}, "", 0, 0}, // above the on-demand floor: lowering is refused (catalog_warm.go)
		{"switching to on demand, throughput", "PAY_PER_REQUEST", true, ddb.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt(&two, &three)},
			"One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: g when BillingMode is PAY_PER_REQUEST", 0, 0},
		{"provisioned, unchanged", "PROVISIONED", false, ddb.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt(&two, &two)},
			"The provisioned throughput for the index g will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index g: 2. Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index g: 2. Requested WriteCapacityUnits: 2. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", 2, 2},
		{"provisioned, one unit changed", "PROVISIONED", false, ddb.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt(&two, &three)}, "", 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &tableMeta{Name: "T", BillingMode: tc.mode, GlobalSecondaryIndexes: []indexMeta{{Name: "g"}}}
			if tc.mode == "PROVISIONED" {
				m.GlobalSecondaryIndexes[0].ReadCapacity, m.GlobalSecondaryIndexes[0].WriteCapacity = 2, 2
			}
			u := tc.u
			u.IndexName = "g"
			err := m.updateIndex(&u, tc.toOnDemand)
			var got *ddb.Error
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want it taken", err)
			case tc.want != "" && (!errors.As(err, &got) || got.Code != ddb.ValidationException || got.Message != tc.want):
				t.Fatalf("got %v, want ValidationException: %s", err, tc.want)
			}
			if ix := m.GlobalSecondaryIndexes[0]; ix.ReadCapacity != tc.r || ix.WriteCapacity != tc.w {
				t.Errorf("index throughput: got %d/%d, want %d/%d", ix.ReadCapacity, ix.WriteCapacity, tc.r, tc.w)
			}
		})
	}
}
