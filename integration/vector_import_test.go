package integration

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestImportTableVectorIndexes: ImportTable's TableCreationParameters
// carry VectorIndexes: the new table has them, DescribeImport repeats
// them, and the imported items are in them (a record whose vector has the
// wrong length is refused as PutItem would refuse it, and counted in
// ErrorCount). A vector index on a provisioned table is refused as
// CreateTable refuses it.
func TestImportTableVectorIndexes(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	w, err := st.Create(ctx, "src", "vec/a.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"Item":{"pk":{"S":"a"},"tenant":{"S":"acme"},"emb":{"L":[{"N":"1"},{"N":"0"}]}}}`,
		`{"Item":{"pk":{"S":"b"},"tenant":{"S":"acme"},"emb":{"L":[{"N":"3"},{"N":"0"}]}}}`,
		`{"Item":{"pk":{"S":"c"},"tenant":{"S":"globex"},"emb":{"L":[{"N":"0.5"},{"N":"0"}]}}}`,
		`{"Item":{"pk":{"S":"d"},"tenant":{"S":"acme"},"emb":{"L":[{"N":"1"},{"N":"2"},{"N":"3"}]}}}`,
		`{"Item":{"pk":{"S":"e"},"tenant":{"S":"acme"}}}`,
	} {
		io.WriteString(w, line+"\n")
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	params := func(name string) *types.TableCreationParameters {
		return &types.TableCreationParameters{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: append([]types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}, tenantDefs...),
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			VectorIndexes:        []types.VectorIndex{vecIndex("byTenant", 2, types.VectorDistanceFunctionEuclidean, tenantSchema()...)}}
	}
	source := &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("vec/")}
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, S3BucketSource: source,
		TableCreationParameters: params("Imported")})
	if err != nil {
		t.Fatal(err)
	}
	d := waitImport(t, c, imp.ImportTableDescription.ImportArn)
	if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 4 || d.ErrorCount != 1 || d.ProcessedItemCount != 5 {
		t.Errorf("import: %s, %d imported, %d errors, %d processed; want COMPLETED, 4, 1 and 5",
			d.ImportStatus, d.ImportedItemCount, d.ErrorCount, d.ProcessedItemCount)
	}
	if vis := d.TableCreationParameters.VectorIndexes; len(vis) != 1 || aws.ToString(vis[0].IndexName) != "byTenant" || len(vis[0].SearchSchema) != 2 {
		t.Errorf("DescribeImport's TableCreationParameters.VectorIndexes: %+v", vis)
	}
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Imported")})
	if err != nil || len(out.Table.VectorIndexes) != 1 || aws.ToString(out.Table.VectorIndexes[0].IndexName) != "byTenant" ||
		out.Table.VectorIndexes[0].IndexStatus != types.IndexStatusActive {
		t.Fatalf("imported table: %v, %+v", err, out)
	}
	for tenant, want := range map[string]string{"acme": "[a b]", "globex": "[c]"} {
		got := search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String("Imported"), IndexName: aws.String("byTenant"),
			SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10), SearchConditionExpression: aws.String("tenant = :t"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":t": s(tenant)}})
		if fmt.Sprint(keysOf(got.SearchResults)) != want {
			t.Errorf("search of %s after the import: %v, want %s", tenant, keysOf(got.SearchResults), want)
		}
	}

	prov := params("Provisioned")
	prov.BillingMode = types.BillingModeProvisioned
	prov.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, S3BucketSource: source,
		TableCreationParameters: prov})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables")
}
