package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTimeToLive: the setting round-trips through Describe/UpdateTimeToLive,
// which infrastructure tools call after creating a table.
func TestTimeToLive(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Expiring", false)
	describe := func() types.TimeToLiveDescription {
		t.Helper()
		out, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Expiring")})
		if err != nil {
			t.Fatal(err)
		}
		return *out.TimeToLiveDescription
	}
	if got := describe(); got.TimeToLiveStatus != types.TimeToLiveStatusDisabled || got.AttributeName != nil {
		t.Fatalf("new table: got %+v, want DISABLED", got)
	}
	update := func(enabled bool) error {
		_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Expiring"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(enabled), AttributeName: aws.String("expiresAt")}})
		return err
	}
	if err := update(true); err != nil {
		t.Fatal(err)
	}
	if got := describe(); got.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(got.AttributeName) != "expiresAt" {
		t.Fatalf("after enabling: got %+v", got)
	}
	wantAPIError(t, update(true), "ValidationException", "TimeToLive is already enabled")
	if err := update(false); err != nil {
		t.Fatal(err)
	}
	if got := describe(); got.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Fatalf("after disabling: got %+v", got)
	}
	wantAPIError(t, update(false), "ValidationException", "TimeToLive is already disabled")
	_, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
}
