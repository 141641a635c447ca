package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/table"
)

var tenantDefs = []types.AttributeDefinition{
	{AttributeName: aws.String("tenant"), AttributeType: types.ScalarAttributeTypeS},
	{AttributeName: aws.String("kind"), AttributeType: types.ScalarAttributeTypeS},
}

func tenantSchema() []types.SearchSchemaElement {
	return []types.SearchSchemaElement{
		{AttributeName: aws.String("tenant"), SearchSchemaElementType: types.SearchSchemaElementTypeHash},
		{AttributeName: aws.String("kind"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter},
	}
}

func putVectorItem(t testing.TB, c *dynamodb.Client, tableName string, item map[string]types.AttributeValue) error {
	t.Helper()
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(tableName), Item: item})
	return err
}

func mustPut(t testing.TB, c *dynamodb.Client, tableName string, item map[string]types.AttributeValue) {
	t.Helper()
	if err := putVectorItem(t, c, tableName, item); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

func sortedKeys(rs []types.SearchResultItem) []string {
	ks := keysOf(rs)
	sort.Strings(ks)
	return ks
}

// TestSearchVectorsConditionsAndProjection: the HASH element scopes a search
// to one partition, INLINE_FILTER equalities narrow it, items without the
// HASH attribute are not indexed, and results carry only what the index
// projects (never the vector unless asked for).
func TestSearchVectorsConditionsAndProjection(t *testing.T) {
	c := newClient(t)
	ix := vecIndex("byTenant", 2, types.VectorDistanceFunctionEuclidean, tenantSchema()...)
	ix.Projection = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"title"}}
	createVectorTable(t, c, "docs", tenantDefs, ix)
	for i := 0; i < 12; i++ {
		item := map[string]types.AttributeValue{"pk": s(fmt.Sprintf("d%02d", i)), "emb": vecList([]float32{float32(i), 0}),
			"title": s(fmt.Sprint("T", i)), "secret": s("x"), "kind": s([]string{"a", "b"}[i%2])}
		if i%4 != 3 {
			item["tenant"] = s([]string{"t1", "t2"}[i%4%2])
		}
		mustPut(t, c, "docs", item)
	}
	q := func(cond string, vals map[string]types.AttributeValue, proj *string) []types.SearchResultItem {
		return search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String("docs"), IndexName: aws.String("byTenant"),
			SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(100), SearchConditionExpression: aws.String(cond),
			ExpressionAttributeValues: vals, ProjectionExpression: proj}).SearchResults
	}
	// tenant t1: i%4 == 0 (kind a) and i%4 == 2 (kind a); t2: i%4 == 1 (kind b).
	if got, want := keysOf(q("tenant = :t", map[string]types.AttributeValue{":t": s("t1")}, nil)), []string{"d00", "d02", "d04", "d06", "d08", "d10"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("tenant t1: %v, want %v (nearest first)", got, want)
	}
	if got := q("tenant = :t AND kind = :k", map[string]types.AttributeValue{":t": s("t2"), ":k": s("b")}, nil); fmt.Sprint(keysOf(got)) != "[d01 d05 d09]" {
		t.Fatalf("t2 and kind b: %v", keysOf(got))
	}
	if got := q("tenant = :t AND kind = :k", map[string]types.AttributeValue{":t": s("t2"), ":k": s("a")}, nil); len(got) != 0 {
		t.Fatalf("t2 and kind a: %v, want none", keysOf(got))
	}
	first := q("tenant = :t", map[string]types.AttributeValue{":t": s("t1")}, nil)[0].Item
	if fmt.Sprint(sortedAttrs(first)) != "[kind pk tenant title]" {
		t.Fatalf("default projection: %v", sortedAttrs(first))
	}
	first = q("tenant = :t", map[string]types.AttributeValue{":t": s("t1")}, aws.String("pk, emb, secret"))[0].Item
	if fmt.Sprint(sortedAttrs(first)) != "[emb pk]" {
		t.Fatalf("ProjectionExpression pk, emb, secret (secret not projected): %v", sortedAttrs(first))
	}
}

func sortedAttrs(item map[string]types.AttributeValue) []string {
	var names []string
	for k := range item {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// TestSearchVectorsErrors: each refusal with the service's exception and
// text (docs/vector-search.md says which texts the documentation gives).
func TestSearchVectorsErrors(t *testing.T) {
	c := newClient(t)
	createVectorTable(t, c, "plain", nil, vecIndex("vix", 3, types.VectorDistanceFunctionCosine))
	createVectorTable(t, c, "schema", tenantDefs, vecIndex("six", 3, types.VectorDistanceFunctionCosine, tenantSchema()...))
	ctx := context.Background()
	in := func(tableName, index string, k int32, vec ...float32) *dynamodb.SearchVectorsInput {
		return &dynamodb.SearchVectorsInput{TableName: aws.String(tableName), IndexName: aws.String(index), SearchVector: vecValues(vec), TopK: aws.Int32(k)}
	}
	_, err := c.SearchVectors(ctx, in("plain", "vix", 101, 1, 0, 0))
	wantAPIError(t, err, "ValidationException", "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive")
	_, err = c.SearchVectors(ctx, in("plain", "vix", 1, 1, 0))
	wantAPIError(t, err, "ValidationException", "Input search vector dimension 2 does not match vector index dimension 3")
	_, err = c.SearchVectors(ctx, in("plain", "nope", 1, 1, 0, 0))
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: nope")
	_, err = c.SearchVectors(ctx, in("missing", "vix", 1, 1, 0, 0))
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	_, err = c.SearchVectors(ctx, in("schema", "six", 1, 1, 0, 0))
	wantAPIError(t, err, "ValidationException", "SearchConditionExpression must be provided when SearchSchema has a HASH key")
	bad := in("schema", "six", 1, 1, 0, 0)
	bad.SearchConditionExpression = aws.String("tenant < :t")
	bad.ExpressionAttributeValues = map[string]types.AttributeValue{":t": s("a")}
	_, err = c.SearchVectors(ctx, bad)
	wantAPIError(t, err, "ValidationException", "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression")
	bad.SearchConditionExpression = aws.String("tenant = :t AND color = :t")
	_, err = c.SearchVectors(ctx, bad)
	wantAPIError(t, err, "ValidationException", "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: color")

	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("plain"), IndexName: aws.String("vix"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("a")}})
	wantAPIError(t, err, "ValidationException", "Query operation not supported on this index type.")
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("plain"), IndexName: aws.String("vix")})
	wantAPIError(t, err, "ValidationException", "Scan operation not supported on this index type.")

	for _, w := range []struct {
		item map[string]types.AttributeValue
		msg  string
	}{
		{map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{1, 2})},
			"One or more parameter values were invalid. Invalid size for parameter emb, Expected: 3, Actual: 2. IndexName: vix"},
		{map[string]types.AttributeValue{"pk": s("a"), "emb": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), s("x"), n("0")}}},
			"One or more parameter values were invalid. Invalid type for parameter emb[1], Expected: 32-bit floating point number, Actual: S. IndexName: vix"},
		{map[string]types.AttributeValue{"pk": s("a"), "emb": s("1,2,3")},
			"One or more parameter values were invalid. Invalid type for parameter emb, Expected: 32-bit floating point number list IndexName: vix"},
	} {
		wantAPIError(t, putVectorItem(t, c, "plain", w.item), "ValidationException", w.msg)
	}
	wantAPIError(t, putVectorItem(t, c, "schema", map[string]types.AttributeValue{"pk": s("a"), "tenant": s("")}), "ValidationException",
		"One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: six, IndexKey: tenant")
}

// TestVectorIndexDefinitionErrors: CreateTable and UpdateTable refuse bad
// vector index definitions before anything is stored.
func TestVectorIndexDefinitionErrors(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	create := func(mode types.BillingMode, defs []types.AttributeDefinition, vis ...types.VectorIndex) error {
		in := &dynamodb.CreateTableInput{TableName: aws.String("bad"), BillingMode: mode,
			AttributeDefinitions: append([]types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}, defs...),
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}, VectorIndexes: vis}
		if mode == types.BillingModeProvisioned {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
		}
		_, err := c.CreateTable(ctx, in)
		return err
	}
	ok := vecIndex("vix", 3, types.VectorDistanceFunctionCosine)
	six := make([]types.VectorIndex, 6)
	for i := range six {
		six[i] = vecIndex(fmt.Sprint("vix", i), 3, types.VectorDistanceFunctionCosine)
	}
	big := vecIndex("vix", 4097, types.VectorDistanceFunctionCosine)
	four := vecIndex("four", 4, types.VectorDistanceFunctionCosine)
	for _, tc := range []struct {
		err  error
		code string
		msg  string
	}{
		{create(types.BillingModeProvisioned, nil, ok), "ValidationException", "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables"},
		{create(types.BillingModePayPerRequest, nil, six...), "ValidationException", "One or more parameter values were invalid: VectorIndex count exceeds the per-table limit of 5"},
		{create(types.BillingModePayPerRequest, nil, big), "ValidationException", "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive."},
		{create(types.BillingModePayPerRequest, nil, vecIndex("vix", 3, types.VectorDistanceFunctionCosine, tenantSchema()...)), "ValidationException",
			"One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions"},
		{create(types.BillingModePayPerRequest, nil, ok, ok), "ValidationException", "One or more parameter values were invalid: Duplicate index name: vix"},
		{create(types.BillingModePayPerRequest, nil, ok, four), "ValidationException",
			"One or more parameter values were invalid: Conflicting attribute definition for 'emb'. All VectorIndexes on the same vector attribute must use the same dimensions."},
		{create(types.BillingModePayPerRequest, nil, vecIndex("vix", 3, "MANHATTAN")), "ValidationException",
			"1 validation error detected: Value 'MANHATTAN' at 'vectorIndexes.1.member.distanceFunction' failed to satisfy constraint: Member must satisfy enum value set: [DOT_PRODUCT, COSINE, EUCLIDEAN]"},
	} {
		wantAPIError(t, tc.err, tc.code, tc.msg)
	}
	createVectorTable(t, c, "tbl", nil)
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), VectorIndexUpdates: []types.VectorIndexUpdate{
		{Create: &types.CreateVectorIndexAction{IndexName: aws.String("aaa"), Dimensions: aws.Int64(3), DistanceFunction: types.VectorDistanceFunctionCosine,
			VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("bbb")}}}})
	wantAPIError(t, err, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), VectorIndexUpdates: []types.VectorIndexUpdate{
		{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("bbb")}}}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index bbb for table tbl")
}

// TestVectorIndexLifecycle: under the movable clock, an index added by
// UpdateTable backfills the items already there, is CREATING with
// Backfilling (and refuses searches) until TransientDelay passes, then
// ACTIVE; a deleted one is DELETING until the delay passes again.
func TestVectorIndexLifecycle(t *testing.T) {
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, TransientDelay: 2 * time.Second})
	c := srv.client("us-east-1")
	ctx := context.Background()
	createVectorTable(t, c, "life", nil)
	clock.Advance(3 * time.Second)
	for i := 0; i < 5; i++ {
		mustPut(t, c, "life", map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i)), "emb": vecList([]float32{float32(i), 1})})
	}
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("life"), VectorIndexUpdates: []types.VectorIndexUpdate{
		{Create: &types.CreateVectorIndexAction{IndexName: aws.String("late"), Dimensions: aws.Int64(2), DistanceFunction: types.VectorDistanceFunctionDotProduct,
			VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	status := func() (types.IndexStatus, *bool) {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("life")})
		if err != nil || len(out.Table.VectorIndexes) != 1 {
			t.Fatalf("DescribeTable: %v, %+v", err, out)
		}
		v := out.Table.VectorIndexes[0]
		if *v.IndexArn != "arn:aws:dynamodb:us-east-1:000000000000:table/life/index/late" || *v.Dimensions != 2 || v.DistanceFunction != types.VectorDistanceFunctionDotProduct {
			t.Fatalf("description %+v", v)
		}
		return v.IndexStatus, v.Backfilling
	}
	if st, bf := status(); st != types.IndexStatusCreating || bf == nil || !*bf {
		t.Fatalf("just added: %s backfilling %v", st, bf)
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("life"), IndexName: aws.String("late"), SearchVector: vecValues([]float32{1, 0}), TopK: aws.Int32(3)}
	_, err = c.SearchVectors(ctx, q)
	wantAPIError(t, err, "ValidationException", "Cannot search backfilling vector index: late")
	clock.Advance(3 * time.Second)
	if st, bf := status(); st != types.IndexStatusActive || bf != nil {
		t.Fatalf("after the delay: %s backfilling %v", st, bf)
	}
	if got := keysOf(search(t, c, q).SearchResults); fmt.Sprint(got) != "[k4 k3 k2]" {
		t.Fatalf("backfilled search: %v", got)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("life"), VectorIndexUpdates: []types.VectorIndexUpdate{
		{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("late")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := status(); st != types.IndexStatusDeleting {
		t.Fatalf("just deleted: %s", st)
	}
	clock.Advance(3 * time.Second)
	out, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("life")})
	if len(out.Table.VectorIndexes) != 0 {
		t.Fatalf("after the delay: %+v", out.Table.VectorIndexes)
	}
}

// TestVectorIndexFollowsWritesAndLag: updates, deletes, a removed vector and
// a TTL-style delete leave the index; under --eventual-lag a write is found
// only once the lag passes, or at once after /_ddblocal/settle.
func TestVectorIndexFollowsWritesAndLag(t *testing.T) {
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, EventualLag: lagOf(time.Second)})
	c := srv.client("us-east-1")
	ctx := context.Background()
	createVectorTable(t, c, "lag", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("lag"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10)}
	mustPut(t, c, "lag", map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{1, 0})})
	if got := search(t, c, q).SearchResults; len(got) != 0 {
		t.Fatalf("within the lag: %v", keysOf(got))
	}
	clock.Advance(2 * time.Second)
	if got := keysOf(search(t, c, q).SearchResults); fmt.Sprint(got) != "[a]" {
		t.Fatalf("after the lag: %v", got)
	}
	mustPut(t, c, "lag", map[string]types.AttributeValue{"pk": s("b"), "emb": vecList([]float32{0.5, 0})})
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("lag"), Key: map[string]types.AttributeValue{"pk": s("a")},
		UpdateExpression: aws.String("REMOVE emb")}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/_ddblocal/settle", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("settle: %v, %v", resp, err)
	}
	resp.Body.Close()
	if got := keysOf(search(t, c, q).SearchResults); fmt.Sprint(got) != "[b]" {
		t.Fatalf("after settle: %v, want b only (a's vector removed)", got)
	}
}

// TestSearchVectorsCapacity: ReturnConsumedCapacity reports vector search
// bytes, at least the 1 KB per-request minimum, and nothing for NONE.
func TestSearchVectorsCapacity(t *testing.T) {
	c := newClient(t)
	createVectorTable(t, c, "cap", nil, vecIndex("vix", 512, types.VectorDistanceFunctionCosine))
	vec := make([]float32, 512)
	for i := 0; i < 3; i++ {
		vec[i] = 1
		mustPut(t, c, "cap", map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "emb": vecList(vec)})
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("cap"), IndexName: aws.String("vix"), SearchVector: vecValues(vec), TopK: aws.Int32(1),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	got := search(t, c, q).ConsumedCapacity
	// Three vectors of 512 float32 examined (6,144 bytes) and one small item returned.
	if got == nil || got.VectorSearchRequestBytes == nil || *got.VectorSearchRequestBytes < 3*512*4 || *got.VectorSearchRequestBytes > 3*512*4+100 {
		t.Fatalf("TOTAL: %+v", got)
	}
	q.ReturnConsumedCapacity = types.ReturnConsumedCapacityNone
	if got := search(t, c, q).ConsumedCapacity; got != nil {
		t.Fatalf("NONE: %+v", got)
	}
	createVectorTable(t, c, "small", nil, vecIndex("vix", 2, types.VectorDistanceFunctionCosine))
	mustPut(t, c, "small", map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{1, 0})})
	q = &dynamodb.SearchVectorsInput{TableName: aws.String("small"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{1, 0}), TopK: aws.Int32(1),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
	if got := search(t, c, q).ConsumedCapacity; got == nil || *got.VectorSearchRequestBytes != 1024 {
		t.Fatalf("small search: %+v, want the 1 KB minimum", got)
	}
}

// TestVectorIndexBackupRestore: a backup records the vector index
// definitions, and a restore rebuilds the indexes from the restored items.
func TestVectorIndexBackupRestore(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	createVectorTable(t, c, "orig", tenantDefs, vecIndex("byTenant", 2, types.VectorDistanceFunctionCosine, tenantSchema()...))
	for i := 0; i < 4; i++ {
		mustPut(t, c, "orig", map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i)), "tenant": s("t"), "emb": vecList([]float32{1, float32(i)})})
	}
	b, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("orig"), BackupName: aws.String("backup1")})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: b.BackupDetails.BackupArn})
	if err != nil {
		t.Fatal(err)
	}
	if vis := d.BackupDescription.SourceTableFeatureDetails.VectorIndexes; len(vis) != 1 || *vis[0].IndexName != "byTenant" || len(vis[0].SearchSchema) != 2 {
		t.Fatalf("backup's vector indexes: %+v", vis)
	}
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("copy"), BackupArn: b.BackupDetails.BackupArn}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("copy")})
	if err != nil || len(out.Table.VectorIndexes) != 1 || *out.Table.VectorIndexes[0].IndexName != "byTenant" {
		t.Fatalf("restored table: %v, %+v", err, out)
	}
	got := search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String("copy"), IndexName: aws.String("byTenant"), SearchVector: vecValues([]float32{1, 0}),
		TopK: aws.Int32(10), SearchConditionExpression: aws.String("tenant = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": s("t")}})
	if fmt.Sprint(keysOf(got.SearchResults)) != "[k0 k1 k2 k3]" {
		t.Fatalf("restored search: %v", keysOf(got.SearchResults))
	}
}

// TestVectorWriteCapacity: a write that changes what a vector index holds
// reports VectorWriteRequestBytes for it under INDEXES (at least the 1 KB
// request minimum); one that changes nothing the index holds reports none.
func TestVectorWriteCapacity(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ix := vecIndex("keys", 300, types.VectorDistanceFunctionCosine)
	ix.Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	createVectorTable(t, c, "wcap", nil, ix, vecIndex("small", 300, types.VectorDistanceFunctionDotProduct))
	vec := make([]float32, 300)
	vec[0] = 1
	out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("wcap"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		Item: map[string]types.AttributeValue{"pk": s("a"), "emb": vecList(vec), "note": s("n")}})
	if err != nil {
		t.Fatal(err)
	}
	got := out.ConsumedCapacity.VectorIndexes
	// keys: 1,200 bytes of vector + "pk"/"a" (3); small (ALL): the same + "note"/"n" (5).
	if len(got) != 2 || *got["keys"].VectorWriteRequestBytes != 1203 || *got["small"].VectorWriteRequestBytes != 1208 {
		t.Fatalf("put: %+v", got)
	}
	up, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("wcap"), Key: map[string]types.AttributeValue{"pk": s("a")},
		UpdateExpression: aws.String("SET note = :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": s("m")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if got := up.ConsumedCapacity.VectorIndexes; len(got) != 1 || *got["small"].VectorWriteRequestBytes != 1208 {
		t.Fatalf("update of a non-key attribute: %+v, want only the ALL index", got)
	}
	noVec, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("wcap"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		Item: map[string]types.AttributeValue{"pk": s("b")}})
	if err != nil || noVec.ConsumedCapacity.VectorIndexes != nil {
		t.Fatalf("item without a vector: %v, %+v", err, noVec.ConsumedCapacity)
	}
}

// TestSearchVectorsFault: a fault rule naming SearchVectors and the table
// fails that search (here with a 500 the SDK retries until it gives up).
func TestSearchVectorsFault(t *testing.T) {
	fs := startFaultServer(t)
	createVectorTable(t, fs.c, "faulty", nil, vecIndex("vix", 2, types.VectorDistanceFunctionCosine))
	fs.addRule(t, `{"operation":"SearchVectors","table":"faulty","error":"InternalServerError","count":3}`)
	_, err := fs.c.SearchVectors(context.Background(), &dynamodb.SearchVectorsInput{TableName: aws.String("faulty"), IndexName: aws.String("vix"),
		SearchVector: vecValues([]float32{1, 0}), TopK: aws.Int32(1)})
	wantAPIError(t, err, "InternalServerError", "")
	if hits := fs.hits(t); len(hits) != 1 || hits[0] != 3 {
		t.Fatalf("rule hits %v, want the 3 attempts", hits)
	}
}

// TestVectorIndexTimeToLive: an item Time to Live deletes leaves the vector
// index when the clock passes its expiry; unexpired items, and items whose
// TTL attribute is not a Number, stay.
func TestVectorIndexTimeToLive(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c := srv.client("us-east-1")
	createVectorTable(t, c, "expiring", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("expiring"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	now := streamStart.Unix()
	for i, exp := range map[string]types.AttributeValue{"past": n(strconv.FormatInt(now-10, 10)), "soon": n(strconv.FormatInt(now+3600, 10)),
		"text": s(strconv.FormatInt(now-10, 10)), "none": nil} {
		it := map[string]types.AttributeValue{"pk": s(i), "emb": vecList([]float32{float32(len(i)), 1})}
		if exp != nil {
			it["exp"] = exp
		}
		mustPut(t, c, "expiring", it)
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("expiring"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10)}
	found := func() string {
		t.Helper()
		return fmt.Sprint(sortedKeys(search(t, c, q).SearchResults))
	}
	if got := found(); got != "[none past soon text]" {
		t.Fatalf("before the clock moves: %s", got)
	}
	advanceClock(t, srv.URL, time.Second)
	if got := found(); got != "[none soon text]" {
		t.Fatalf("after 1s: %s, want past gone", got)
	}
	advanceClock(t, srv.URL, time.Hour+time.Second)
	if got := found(); got != "[none text]" {
		t.Fatalf("after an hour: %s, want soon gone too", got)
	}
}

// TestVectorIndexPartiQL: PartiQL cannot read a vector index (the developer
// guide: "not accessible through PartiQL"; the text is PartiQL's for an index
// it does not see, the service's own is not documented), while its writes
// are validated against the index and reach it like PutItem's.
func TestVectorIndexPartiQL(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createVectorTable(t, c, "qltab", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "qltab"."vix"`)})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index")
	if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "qltab" VALUE {'pk': 'a', 'emb': [3, 4]}`)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "qltab" VALUE {'pk': 'b', 'emb': [1, 2, 3]}`)})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid. Invalid size for parameter emb, Expected: 2, Actual: 3. IndexName: vix")
	out := search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String("qltab"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(5)})
	if got := keysOf(out.SearchResults); fmt.Sprint(got) != "[a]" || out.SearchResults[0].Score != 5 {
		t.Fatalf("after the PartiQL inserts: %v", got)
	}
}

// TestVectorIndexInsights: GET /_ddblocal/insights reports each vector index
// with its vectors and its search partitions, largest first, as written.
func TestVectorIndexInsights(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createVectorTable(t, c, "seen", tenantDefs, vecIndex("byTenant", 3, types.VectorDistanceFunctionCosine, tenantSchema()...),
		vecIndex("all", 3, types.VectorDistanceFunctionDotProduct))
	for i := 0; i < 7; i++ {
		it := map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "emb": vecList([]float32{1, float32(i), 0}), "tenant": s([]string{"t1", "t2"}[min(i/5, 1)])}
		if i == 6 {
			delete(it, "tenant") // no HASH value: left out of byTenant only
		}
		mustPut(t, c, "seen", it)
	}
	code, body := getInsights(t, srv, "?table=seen")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var rep insights.Report
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	var got []string
	for _, v := range rep.VectorIndexes {
		parts := ""
		for _, p := range v.SearchPartitions {
			if p.PartitionKey != nil {
				parts += " " + p.PartitionKey.S
			}
			parts += fmt.Sprintf(":%d", p.Vectors)
		}
		got = append(got, fmt.Sprintf("%s %s/%d %s hash=%q %d vectors %d B, %d partitions%s",
			v.Index, v.Attribute, v.Dimensions, v.DistanceFunction, v.Hash, v.Vectors, v.VectorBytes, v.SearchPartitionsTotal, parts))
	}
	want := []string{`byTenant emb/3 COSINE hash="tenant" 6 vectors 72 B, 2 partitions t1:5 t2:1`,
		`all emb/3 DOT_PRODUCT hash="" 7 vectors 84 B, 1 partitions:7`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("vectorIndexes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestVectorIndexStreams: a table's stream records its writes as without a
// vector index: one record per write, the vector in the image.
func TestVectorIndexStreams(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createVectorTable(t, c, "streamed", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	up, err := c.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("streamed"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, c, "streamed", map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{1, 2})})
	mustPut(t, c, "streamed", map[string]types.AttributeValue{"pk": s("b")})
	recs, _ := walkStream(t, streamsClient(srv.URL), aws.ToString(up.TableDescription.LatestStreamArn))
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s %s %d", r.EventName, r.Dynamodb.Keys["pk"].(*stypes.AttributeValueMemberS).Value, len(r.Dynamodb.NewImage)))
	}
	if want := "[INSERT a 2 INSERT b 1]"; fmt.Sprint(got) != want {
		t.Fatalf("stream records %v, want %s", got, want)
	}
}

// TestVectorIndexPointInTimeRestore: a table restored to a point in time
// has the source's vector index, holding the vectors of that moment; an
// empty VectorIndexOverride restores none.
func TestVectorIndexPointInTimeRestore(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createVectorTable(t, c, "pitr", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	enablePITR(t, c, "pitr", 0)
	clock.Advance(time.Second)
	mustPut(t, c, "pitr", map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{1, 0})})
	mustPut(t, c, "pitr", map[string]types.AttributeValue{"pk": s("b"), "emb": vecList([]float32{2, 0})})
	then := clock.Now()
	clock.Advance(time.Second)
	mustPut(t, c, "pitr", map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{3, 0})})
	mustPut(t, c, "pitr", map[string]types.AttributeValue{"pk": s("c"), "emb": vecList([]float32{0.5, 0})})
	clock.Advance(time.Second)
	for target, override := range map[string][]types.VectorIndex{"pitrthen": nil, "pitrbare": {}} {
		if _, err := c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("pitr"),
			TargetTableName: aws.String(target), RestoreDateTime: aws.Time(then), VectorIndexOverride: override}); err != nil {
			t.Fatalf("restore %s: %v", target, err)
		}
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("pitrthen"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10)}
	if got := fmt.Sprint(keysOf(search(t, c, q).SearchResults)); got != "[a b]" {
		t.Fatalf("restored search: %s, want the vectors as they were", got)
	}
	q.TableName = aws.String("pitrbare")
	_, err := c.SearchVectors(ctx, q)
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: vix")
}
