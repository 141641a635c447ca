package integration

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
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
	if !itemsSkipped(d) || d.ImportedItemCount != 4 || d.ErrorCount != 1 || d.ProcessedItemCount != 5 {
		t.Errorf("import: %s, %d imported, %d errors, %d processed; want FAILED (ItemValidationError), 4, 1 and 5",
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

// vectorIndexesOf turns DescribeTable's vector index descriptions back into
// the definitions that created them, as a client copying a table does.
func vectorIndexesOf(ds []types.VectorIndexDescription) []types.VectorIndex {
	var out []types.VectorIndex
	for _, d := range ds {
		out = append(out, types.VectorIndex{IndexName: d.IndexName, Dimensions: d.Dimensions, DistanceFunction: d.DistanceFunction,
			VectorAttribute: d.VectorAttribute, SearchSchema: d.SearchSchema, Projection: d.Projection})
	}
	return out
}

// TestExportImportVectorTable: an export holds a vector table's items with
// their vectors as lists of numbers (no index definitions, as the
// service's); importing its data files with the source's vector index
// definitions gives a table whose searches answer as the source's do.
func TestExportImportVectorTable(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	const dims = 6
	createVectorTable(t, c, "vsrc", tenantDefs, vecIndex("byTenant", dims, types.VectorDistanceFunctionCosine, tenantSchema()...))
	enablePITR(t, c, "vsrc", 0)
	r := rand.New(rand.NewSource(26))
	for i := range 40 {
		mustPut(t, c, "vsrc", map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i)), "tenant": s(fmt.Sprint("t", i%3)),
			"label": s(fmt.Sprint("L", i)), "emb": vecList(randVector(r, dims))})
	}
	src, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("vsrc")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: src.Table.TableArn, S3Bucket: aws.String("exports")})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	lines, _ := readExportLines(t, st, "exports", aws.ToString(d.ExportManifest))
	if want := scanLines(t, c, "vsrc"); !slices.Equal(lines, want) || len(lines) != 40 || !strings.Contains(lines[0], `"emb":{"L":[{"N":`) {
		t.Fatalf("export: %d lines, table %d; first %q", len(lines), len(want), lines[0])
	}
	params := &types.TableCreationParameters{TableName: aws.String("vcopy"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: src.Table.AttributeDefinitions, KeySchema: src.Table.KeySchema, VectorIndexes: vectorIndexesOf(src.Table.VectorIndexes)}
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("exports"), S3KeyPrefix: aws.String(strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json") + "data/")},
		TableCreationParameters: params})
	if err != nil {
		t.Fatal(err)
	}
	if done := waitImport(t, c, imp.ImportTableDescription.ImportArn); done.ImportedItemCount != 40 || done.ErrorCount != 0 {
		t.Fatalf("import: %+v", done)
	}
	for trial := range 3 {
		q := randVector(r, dims)
		for _, tenant := range []string{"t0", "t1", "t2"} {
			var got [2]string
			for i, name := range []string{"vsrc", "vcopy"} {
				res := search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String(name), IndexName: aws.String("byTenant"), SearchVector: vecValues(q),
					TopK: aws.Int32(8), SearchConditionExpression: aws.String("tenant = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": s(tenant)}})
				got[i] = fmt.Sprint(keysOf(res.SearchResults))
				for _, x := range res.SearchResults {
					got[i] += fmt.Sprint(" ", x.Score)
				}
			}
			if got[0] == "[]" || got[0] != got[1] {
				t.Errorf("trial %d, %s: source %s, imported copy %s", trial, tenant, got[0], got[1])
			}
		}
	}
}
