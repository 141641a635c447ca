package integration

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestIncrementalExport writes before, inside and after a window on a
// fake clock and checks each view's records: one net change per item,
// nothing for an item created and deleted inside the window.
func TestIncrementalExport(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	var offset atomic.Int64
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return base.Add(time.Duration(offset.Load())) }
	advance := func(d time.Duration) { offset.Add(int64(d)) }
	c := startServer(t, table.Options{S3: st, Now: now}).client("us-east-1")
	ctx := context.Background()
	createTable(t, c, "Inc", false)
	enablePITR(t, c, "Inc", 0)
	put := func(pk, v string) {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Inc"), Item: map[string]types.AttributeValue{"pk": s(pk), "v": s(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	del := func(pk string) {
		if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Inc"), Key: map[string]types.AttributeValue{"pk": s(pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	advance(time.Minute)
	put("a", "1")
	put("b", "1")
	put("c", "1")
	advance(time.Minute)
	from := now()
	put("a", "2")
	del("b")
	put("d", "1")
	del("d")
	put("e", "1")
	advance(20 * time.Minute)
	to := now()
	put("a", "3")
	advance(time.Minute)
	d, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Inc")})
	arn := d.Table.TableArn
	want := map[types.ExportViewType][]string{
		types.ExportViewTypeNewAndOldImages: {
			`{"Metadata":{"WriteTimestampMicros":{"N":"1796119320000000"}},"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"v":{"S":"2"}},"OldImage":{"pk":{"S":"a"},"v":{"S":"1"}}}` + "\n",
			`{"Metadata":{"WriteTimestampMicros":{"N":"1796119320000000"}},"Keys":{"pk":{"S":"b"}},"OldImage":{"pk":{"S":"b"},"v":{"S":"1"}}}` + "\n",
			`{"Metadata":{"WriteTimestampMicros":{"N":"1796119320000000"}},"Keys":{"pk":{"S":"e"}},"NewImage":{"pk":{"S":"e"},"v":{"S":"1"}}}` + "\n"},
		types.ExportViewTypeNewImage: {
			`{"Metadata":{"WriteTimestampMicros":{"N":"1796119320000000"}},"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"v":{"S":"2"}}}` + "\n",
			`{"Metadata":{"WriteTimestampMicros":{"N":"1796119320000000"}},"Keys":{"pk":{"S":"b"}}}` + "\n",
			`{"Metadata":{"WriteTimestampMicros":{"N":"1796119320000000"}},"Keys":{"pk":{"S":"e"}},"NewImage":{"pk":{"S":"e"},"v":{"S":"1"}}}` + "\n"},
	}
	for view, lines := range want {
		out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: arn, S3Bucket: aws.String("inc"),
			ExportType: types.ExportTypeIncrementalExport, IncrementalExportSpecification: &types.IncrementalExportSpecification{
				ExportFromTime: aws.Time(from), ExportToTime: aws.Time(to), ExportViewType: view}})
		if err != nil {
			t.Fatal(err)
		}
		e := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
		got, sum := readExportLines(t, st, "inc", aws.ToString(e.ExportManifest))
		if !slices.Equal(got, lines) {
			t.Errorf("%s: got\n%q\nwant\n%q", view, got, lines)
		}
		if e.ExportType != types.ExportTypeIncrementalExport || aws.ToInt64(e.ItemCount) != 3 || sum["exportType"] != "INCREMENTAL_EXPORT" ||
			sum["outputView"] != string(view) || sum["exportFromTime"] != "2026-12-01T10:02:00.000Z" || sum["exportToTime"] != "2026-12-01T10:22:00.000Z" {
			t.Errorf("%s: description %+v, summary %v", view, e, sum)
		}
	}
	_, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: arn, S3Bucket: aws.String("inc"),
		ExportType: types.ExportTypeIncrementalExport, IncrementalExportSpecification: &types.IncrementalExportSpecification{
			ExportFromTime: aws.Time(from), ExportToTime: aws.Time(from.Add(5 * time.Minute))}})
	var ve *types.InvalidExportTimeException
	if err == nil || errors.As(err, &ve) {
		t.Errorf("a 5-minute window: %v, want a ValidationException", err)
	}
	_, err = c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: arn, S3Bucket: aws.String("inc"),
		ExportType: types.ExportTypeIncrementalExport, IncrementalExportSpecification: &types.IncrementalExportSpecification{
			ExportFromTime: aws.Time(base.Add(-time.Hour)), ExportToTime: aws.Time(to)}})
	if !errors.As(err, &ve) {
		t.Errorf("a window before point-in-time recovery: %v", err)
	}
}
