package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// TestClusterDeletedTableForgotten: a table deleted through one front-end
// is forgotten by the others too: none keeps its applier running or its
// ownership claim (an election key under a live lease) in etcd.
func TestClusterDeletedTableForgotten(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "gone/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "gone/").client("us-east-1")
	ctx := context.Background()
	createGSITable(t, a, "gone")
	d, err := a.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("gone")})
	if err != nil {
		t.Fatal(err)
	}
	for _, fe := range []*dynamodb.Client{a, b} {
		if _, err := fe.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("gone"),
			Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("1"), "g": s("x")}}); err != nil {
			t.Fatal(err)
		}
		waitGSICount(t, fe, "gone", "x", 1)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	claims := func() int64 {
		resp, err := cli.Get(ctx, "gone/owner/table/"+aws.ToString(d.Table.TableId), clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Count
	}
	waitFor(t, "both front-ends to claim the table's work", func() bool { return claims() == 2 })
	if _, err := a.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every front-end to give up the deleted table's work", func() bool { return claims() == 0 })
}
