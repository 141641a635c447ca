package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestStreamSpecificationRefusals: the StreamSpecification requests
// DynamoDB refuses, in its words as recorded from the service (the
// ack-api-quirks catalogue, DDB-TABLE-050 and DDB-TABLE-442): a view type
// must come with enabling and only with it, checked before the table's
// state; a table with a stream cannot enable another, even of the same view
// type; one without a stream (never enabled, or disabled already) has none
// to disable. Nothing refused changes the table.
func TestStreamSpecificationRefusals(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Plain", false)
	spec := func(on bool, vt types.StreamViewType) *types.StreamSpecification {
		return &types.StreamSpecification{StreamEnabled: aws.Bool(on), StreamViewType: vt}
	}
	update := func(sp *types.StreamSpecification) error {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Plain"), StreamSpecification: sp})
		return err
	}
	noStream := "Table has no stream to disable: TableName: Plain"
	wantAPIError(t, update(spec(false, "")), "ValidationException", noStream)
	wantAPIError(t, update(spec(true, "")), "ValidationException",
		"One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required")
	if err := update(spec(true, types.StreamViewTypeNewImage)); err != nil {
		t.Fatal(err)
	}
	for _, vt := range []types.StreamViewType{types.StreamViewTypeNewImage, types.StreamViewTypeKeysOnly} {
		wantAPIError(t, update(spec(true, vt)), "ValidationException", "Table already has an enabled stream: TableName: Plain")
	}
	wantAPIError(t, update(spec(false, types.StreamViewTypeNewImage)), "ValidationException",
		"One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified")
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Plain")})
	if err != nil {
		t.Fatal(err)
	}
	if s := dt.Table.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || s.StreamViewType != types.StreamViewTypeNewImage {
		t.Fatalf("after the refusals: got StreamSpecification %+v, want the NEW_IMAGE stream enabled", s)
	}
	if err := update(spec(false, "")); err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, update(spec(false, "")), "ValidationException", noStream)

	for _, tc := range []struct {
		sp   *types.StreamSpecification
		want string
	}{
		{spec(true, ""), "One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required"},
		{spec(false, types.StreamViewTypeKeysOnly), "One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should not be specified"},
	} {
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String("Refused"),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			StreamSpecification:  tc.sp,
		})
		wantAPIError(t, err, "ValidationException", tc.want)
	}
}
