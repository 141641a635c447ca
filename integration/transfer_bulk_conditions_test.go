package integration

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestBulkPutItemsConditions: a bulk load's record may carry a condition
// beside its item, as PutItem's ConditionExpression with its names and
// values. An item whose condition fails is not written, counts in
// ProcessedItemCount but not in FailedItemCount, leaves the load
// COMPLETED, adds nothing to BulkOperationUsage, and is reported under
// CONDITION_CHECK_FAILURE output with the item the table had; a condition
// that does not compile makes its record a failed one (ERROR output, and
// COMPLETED_WITH_ERRORS). Ion records carry conditions alike.
func TestBulkPutItemsConditions(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	put := func(key, body string) { putObject(t, st, "src", key, body) }
	createTable(t, c, "Cond", true)
	for _, it := range []map[string]types.AttributeValue{{"pk": s("a"), "sk": s("1"), "v": n("5")}, {"pk": s("b"), "sk": s("1"), "v": n("1")}} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Cond"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	put("cond/1.json", `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"10"}},"ConditionExpression":"attribute_not_exists(pk)"}
{"Item":{"pk":{"S":"b"},"sk":{"S":"1"},"v":{"N":"2"}},"ConditionExpression":"#v < :v","ExpressionAttributeNames":{"#v":"v"},"ExpressionAttributeValues":{":v":{"N":"2"}}}
{"Item":{"pk":{"S":"c"},"sk":{"S":"1"}},"ConditionExpression":"attribute_exists(pk)"}
{"Item":{"pk":{"S":"d"},"sk":{"S":"1"}}}
`)
	in := bulkInput("Cond", "cond/", "cond-1")
	in.OutputS3Configuration.OutputType = []types.OutputTypeEnum{types.OutputTypeEnumError, types.OutputTypeEnumConditionCheckFailure}
	start, err := c.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn)
	// Written: {pk b, sk 1, v 2} (3+3+1+2 bytes) and {pk d, sk 1} (6).
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 4 || d.FailedItemCount != 0 ||
		len(d.BulkOperationUsage) != 1 || aws.ToInt64(d.BulkOperationUsage[0].Table.BulkPutBytes) != 15 || d.FailureCode != nil {
		t.Errorf("load: %+v, usage %+v", d, d.BulkOperationUsage)
	}
	got := strings.Join(scanLines(t, c, "Cond"), "\n")
	for _, want := range []string{`"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"5"}`, `"pk":{"S":"b"},"sk":{"S":"1"},"v":{"N":"2"}`, `"pk":{"S":"d"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("table after the load lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"S":"c"`) {
		t.Errorf("an item whose condition failed was written:\n%s", got)
	}
	lines := reportLines(t, st, "report/", "/condition-check-failures/")
	if len(lines) != 2 || lines[0]["S3Key"] != "cond/1.json" || lines[0]["Line"] != 1.0 || lines[1]["Line"] != 3.0 ||
		jsonOf(lines[0]["Item"]) != `{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"10"}}` ||
		jsonOf(lines[0]["ExistingItem"]) != `{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"5"}}` || lines[1]["ExistingItem"] != nil {
		t.Errorf("condition-check failure report: %v", lines)
	}
	if errs := reportLines(t, st, "report/", "/errors/"); len(errs) != 0 {
		t.Errorf("error report of a load without bad records: %v", errs)
	}
	checkBulkBadCondition(t, c, st, put)
}

// checkBulkBadCondition: a condition that does not compile makes its
// record a failed one, reported as an error; an Ion record's condition
// is evaluated as a JSON one's.
func checkBulkBadCondition(t *testing.T, c *dynamodb.Client, st bucket.Dir, put func(key, body string)) {
	ctx := context.Background()
	put("ion/1.ion", `$ion_1_0 {Item:{pk:"a",sk:"1",v:11.},ConditionExpression:"v > :v",ExpressionAttributeValues:{':v':4.}}
$ion_1_0 {Item:{pk:"e",sk:"1"},ConditionExpression:"attribute_not_exists("}
`)
	in := bulkInput("Cond", "ion/", "cond-2")
	in.InputS3Configuration.InputFormat = types.BulkOperationInputFormatIon
	in.OutputS3Configuration.S3KeyPrefix = aws.String("report2")
	start, err := c.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 2 || d.FailedItemCount != 1 {
		t.Errorf("load with a bad condition: %+v", d)
	}
	got := strings.Join(scanLines(t, c, "Cond"), "\n")
	if !strings.Contains(got, `"pk":{"S":"a"},"sk":{"S":"1"},"v":{"N":"11"}`) || strings.Contains(got, `"S":"e"`) {
		t.Errorf("table after the Ion load:\n%s", got)
	}
	errs := reportLines(t, st, "report2/", "/errors/")
	if len(errs) != 1 || errs[0]["Line"] != 2.0 || !strings.Contains(errs[0]["ErrorMessage"].(string), "Invalid ConditionExpression") {
		t.Errorf("error report: %v", errs)
	}
}

// reportLines reads the JSON lines of the report objects under prefix in
// bucket out whose keys contain kind.
func reportLines(t *testing.T, st bucket.Store, prefix, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	err := st.List(context.Background(), "out", prefix, func(o bucket.Object) error {
		if !strings.Contains(o.Key, kind) {
			return nil
		}
		r, err := st.Open(context.Background(), "out", o.Key)
		if err != nil {
			return err
		}
		defer r.Close()
		dec := json.NewDecoder(r)
		for dec.More() {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// jsonOf is v as compact JSON, its object keys sorted.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
