package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestResourcePolicyVectorIndex: SearchVectors is judged on the vector
// index's ARN (table/NAME/index/INDEX, as the developer guide's IAM
// example names it): a resource-based policy's Deny of dynamodb:SearchVectors
// on that index, or on index/*, refuses the owner's searches of it while
// other indexes, and the table's own reads, stay open. Another account is
// refused even when the policy allows it, since SearchVectors is not among
// the operations DynamoDB opens to other accounts.
func TestResourcePolicyVectorIndex(t *testing.T) {
	srv := startAuthServer(t, alice, bob)
	ctx := context.Background()
	a := clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	b := clientAs(srv.URL, bob.AccessKey, bob.Secret, "")
	createVectorTable(t, a, "Docs", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean),
		vecIndex("other", 2, types.VectorDistanceFunctionCosine))
	mustPut(t, a, "Docs", map[string]types.AttributeValue{"pk": s("d1"), "emb": vecList([]float32{1, 0})})
	arn := "arn:aws:dynamodb:us-east-1:" + alice.Account + ":table/Docs"
	searchAs := func(c *dynamodb.Client, table, index string) error {
		out, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String(index),
			SearchVector: vecValues([]float32{1, 0}), TopK: aws.Int32(1)})
		if err == nil && fmt.Sprint(keysOf(out.SearchResults)) != "[d1]" {
			t.Errorf("search of %s: %v, want d1", index, keysOf(out.SearchResults))
		}
		return err
	}
	if err := searchAs(a, "Docs", "vix"); err != nil {
		t.Fatalf("the owner's search without a policy: %v", err)
	}

	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*",
		"Action":"dynamodb:SearchVectors","Resource":"`+arn+`/index/vix"}]}`)
	wantAPIError(t, searchAs(a, "Docs", "vix"), "AccessDeniedException", explicitDeny(alice.Account, "SearchVectors", arn+"/index/vix"))
	if err := searchAs(a, "Docs", "other"); err != nil {
		t.Fatalf("search of an index the Deny does not name: %v", err)
	}
	if _, err := a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Docs"), Key: map[string]types.AttributeValue{"pk": s("d1")}}); err != nil {
		t.Fatalf("GetItem of the table while its vector index is denied: %v", err)
	}

	// A Deny on the table's ARN alone does not reach its indexes.
	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*",
		"Action":"dynamodb:SearchVectors","Resource":"`+arn+`"}]}`)
	if err := searchAs(a, "Docs", "vix"); err != nil {
		t.Fatalf("search under a Deny naming only the table: %v", err)
	}
	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*",
		"Action":"dynamodb:Search*","Resource":"`+arn+`/index/*"},
		{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},"Action":"dynamodb:*","Resource":["`+arn+`","`+arn+`/index/*"]}]}`)
	wantAPIError(t, searchAs(a, "Docs", "other"), "AccessDeniedException", explicitDeny(alice.Account, "SearchVectors", arn+"/index/other"))

	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},
		"Action":["dynamodb:SearchVectors","dynamodb:GetItem"],"Resource":["`+arn+`","`+arn+`/index/*"]}]}`)
	if _, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(arn), Key: map[string]types.AttributeValue{"pk": s("d1")}}); err != nil {
		t.Fatalf("another account's GetItem the policy allows: %v", err)
	}
	wantAPIError(t, searchAs(b, arn, "vix"), "AccessDeniedException", noPolicyAllows(bob.Account, "SearchVectors", arn+"/index/vix"))
}
