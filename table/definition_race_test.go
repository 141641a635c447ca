package table

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// TestConcurrentDefinitionChanges runs different changes to one table's
// definition at once, as separate clients would, and checks that every one
// of them is kept: none may overwrite another with the definition it read
// before the other committed.
func TestConcurrentDefinitionChanges(t *testing.T) {
	s := memService(t, Options{})
	ctx := context.Background()
	const region, tags, rounds = "us-east-1", 4, 8
	yes := true
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}`
	for round := range rounds {
		name := fmt.Sprintf("race%d", round)
		out, err := s.CreateTable(ctx, region, &ddb.CreateTableInput{TableName: name, BillingMode: "PAY_PER_REQUEST",
			AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
			Tags:                 []ddb.Tag{{Key: "old", Value: "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		arn := out.TableDescription.TableArn
		changes := []func() error{
			func() error {
				_, err := s.UpdateTimeToLive(ctx, region, &ddb.UpdateTimeToLiveInput{TableName: name,
					TimeToLiveSpecification: &ddb.TimeToLiveSpecification{Enabled: &yes, AttributeName: "exp"}})
				return err
			},
			func() error {
				_, err := s.UpdateContinuousBackups(ctx, region, &ddb.UpdateContinuousBackupsInput{TableName: name,
					PointInTimeRecoverySpecification: &ddb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &yes}})
				return err
			},
			func() error {
				_, err := s.PutResourcePolicy(ctx, region, &ddb.PutResourcePolicyInput{ResourceArn: arn, Policy: policy})
				return err
			},
			func() error {
				_, err := s.UpdateTable(ctx, region, &ddb.UpdateTableInput{TableName: name, DeletionProtectionEnabled: &yes})
				return err
			},
			func() error {
				_, err := s.UntagResource(ctx, region, &ddb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"old"}})
				return err
			},
		}
		for i := range tags {
			changes = append(changes, func() error {
				_, err := s.TagResource(ctx, region, &ddb.TagResourceInput{ResourceArn: arn, Tags: []ddb.Tag{{Key: fmt.Sprint("k", i), Value: "v"}}})
				return err
			})
		}
		start := make(chan struct{})
		errs := make([]error, len(changes))
		var wg sync.WaitGroup
		for i, change := range changes {
			wg.Go(func() {
				<-start
				errs[i] = change()
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: change %d: %v", round, i, err)
			}
		}
		checkAllChanges(t, s, region, name, arn, tags)
	}
}

// checkAllChanges checks that every change TestConcurrentDefinitionChanges
// made is visible.
func checkAllChanges(t *testing.T, s *Service, region, name, arn string, tags int) {
	t.Helper()
	ctx := context.Background()
	d, err := s.DescribeTable(ctx, region, &ddb.TableNameInput{TableName: name})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Table.DeletionProtectionEnabled {
		t.Errorf("%s: DeletionProtectionEnabled got false, want true", name)
	}
	tl, err := s.ListTagsOfResource(ctx, region, &ddb.ListTagsOfResourceInput{ResourceArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, tag := range tl.Tags {
		got = append(got, tag.Key)
	}
	for i := range tags {
		want = append(want, fmt.Sprint("k", i))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s: tags got %v, want %v", name, got, want)
	}
	ttl, err := s.DescribeTimeToLive(ctx, region, &ddb.TableNameInput{TableName: name})
	if err != nil {
		t.Fatal(err)
	}
	if got := ttl.TimeToLiveDescription; got.TimeToLiveStatus != "ENABLED" || got.AttributeName != "exp" {
		t.Errorf("%s: TTL got %+v, want ENABLED on exp", name, got)
	}
	cb, err := s.DescribeContinuousBackups(ctx, region, &ddb.TableNameInput{TableName: name})
	if err != nil {
		t.Fatal(err)
	}
	if got := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus; got != "ENABLED" {
		t.Errorf("%s: PITR got %s, want ENABLED", name, got)
	}
	if _, err := s.GetResourcePolicy(ctx, region, &ddb.ResourceArnInput{ResourceArn: arn}); err != nil {
		t.Errorf("%s: GetResourcePolicy got %v, want the policy", name, err)
	}
}
