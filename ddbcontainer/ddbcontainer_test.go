package ddbcontainer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/testcontainers/testcontainers-go"

	"github.com/ddblocal/ddblocal/ddbcontainer"
)

// image returns the image to test, named by DDBCONTAINER_IMAGE. ddblocal's
// integration/container_test.go builds it with podman and runs this test
// against podman's Docker-compatible socket; without the variable the test
// is skipped, or fails when DDBLOCAL_CI=1 says this run must test it.
func image(t *testing.T) string {
	img := os.Getenv("DDBCONTAINER_IMAGE")
	if img != "" {
		return img
	}
	if os.Getenv("DDBLOCAL_CI") == "1" {
		t.Fatal("DDBCONTAINER_IMAGE is not set, and DDBLOCAL_CI=1 says this run must test the container")
	}
	t.Skip("SKIPPED, NOT TESTED: set DDBCONTAINER_IMAGE to an image built from ddblocal's Dockerfile (integration/container_test.go does)")
	return ""
}

func TestRunWithInit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	def := `{"TableName":"Users","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`
	for name, data := range map[string]string{"users.json": def, "Users.jsonl": `{"pk":"u#1","name":"Ada"}` + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := ddbcontainer.Run(ctx, image(t), ddbcontainer.WithInMemory(), ddbcontainer.WithInit(dir))
	if c != nil {
		testcontainers.CleanupContainer(t, c)
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := c.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Users"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "u#1"}}})
	if err != nil {
		t.Fatal(err)
	}
	name, _ := out.Item["name"].(*types.AttributeValueMemberS)
	if name == nil || name.Value != "Ada" {
		t.Fatalf("got item %v, want the seeded u#1 with name Ada", out.Item)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Users"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "u#2"}}}); err != nil {
		t.Fatal(err)
	}
}
