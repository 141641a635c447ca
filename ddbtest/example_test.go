package ddbtest_test

import (
	"context"
	"fmt"
	"log"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/ddbtest"
)

// Start a server with the tables defined in testdata (CreateTable JSON, or
// a CloudFormation/SAM template) and the items of testdata/Sessions.jsonl,
// as TestMain would to share one server across a package's tests.
func Example() {
	srv, err := ddbtest.Start(ddbtest.WithInit("testdata"))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	db, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("Sessions"),
		Key:       map[string]types.AttributeValue{"sid": &types.AttributeValueMemberS{Value: "s1"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Item["user"].(*types.AttributeValueMemberS).Value)
	// Output: u1
}

// In a test, New gives the test its own server and stops it when the test
// ends; parallel tests each get their own.
func ExampleNew() {
	_ = func(t *testing.T) { // func TestCheckout(t *testing.T)
		t.Parallel()
		db := ddbtest.New(t, ddbtest.WithInit("testdata/tables.yaml"), ddbtest.WithEventualLag(0))
		_ = db // hand db to the code under test
	}
}
