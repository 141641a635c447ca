package integration

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amazon-ion/ion-go/ion"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestExportLayoutFields exports a table through the API in each format
// and checks every object of the developer guide's layout field by field:
// manifest-summary.json has exactly the guide's fields, with the values
// DescribeExport and DescribeTable give; each manifest-files.json line has
// exactly the guide's four fields, with the data object's MD5 (base64) and
// ETag (hex) and its line count; _started is empty; and the data lines,
// read by the test's own reader of the documented format (DynamoDB JSON, or
// Ion through the Ion library, with sets as $dynamodb_SS/NS/BS lists), are
// the table's items.
func TestExportLayoutFields(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	arn := pitrTable(t, c, "Things", 40)
	tbl, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Things")})
	if err != nil {
		t.Fatal(err)
	}
	want := scanLines(t, c, "Things")
	for _, format := range []types.ExportFormat{types.ExportFormatDynamodbJson, types.ExportFormatIon} {
		out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn),
			S3Bucket: aws.String("exports"), S3Prefix: aws.String("daily"), ExportFormat: format})
		if err != nil {
			t.Fatal(err)
		}
		d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
		get := func(key string) []byte { return readObject(t, st, "exports", key) }
		base := strings.TrimSuffix(aws.ToString(d.ExportManifest), "/manifest-summary.json")
		if id := aws.ToString(d.ExportArn)[strings.LastIndex(aws.ToString(d.ExportArn), "/")+1:]; base != "daily/AWSDynamoDB/"+id {
			t.Fatalf("%s: ExportManifest %s, export id %s", format, aws.ToString(d.ExportManifest), id)
		}
		summary := get(base + "/manifest-summary.json")
		checkSummaryFields(t, summary, d, tbl.Table, base)
		files := get(base + "/manifest-files.json")
		for name, content := range map[string][]byte{"manifest-summary": summary, "manifest-files": files} {
			if sum := md5.Sum(content); string(get(base+"/"+name+".checksum")) != hex.EncodeToString(sum[:]) {
				t.Errorf("%s.checksum is not the hex MD5 of %s.json", name, name)
			}
		}
		if started := get(base + "/_started"); len(started) != 0 {
			t.Errorf("_started holds %q", started)
		}
		lines := checkDataFiles(t, get, files, base, format)
		if !slices.Equal(lines, want) || aws.ToInt64(d.ItemCount) != int64(len(want)) {
			t.Errorf("%s: the export's %d items, read back, differ from the table's %d", format, len(lines), len(want))
		}
	}
}

func readObject(t *testing.T, st bucket.Store, bkt, key string) []byte {
	t.Helper()
	r, err := st.Open(context.Background(), bkt, key)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkSummaryFields compares manifest-summary.json with the guide's
// field list and the export's description.
func checkSummaryFields(t *testing.T, raw []byte, d *types.ExportDescription, tbl *types.TableDescription, base string) {
	t.Helper()
	var sum map[string]any
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	iso := func(tm *time.Time) string { return tm.UTC().Format("2006-01-02T15:04:05.000Z") }
	want := map[string]any{"version": "2020-06-30", "exportArn": aws.ToString(d.ExportArn), "startTime": iso(d.StartTime),
		"endTime": iso(d.EndTime), "tableArn": aws.ToString(tbl.TableArn), "tableId": aws.ToString(tbl.TableId),
		"exportTime": iso(d.ExportTime), "s3Bucket": "exports", "s3Prefix": "daily", "s3SseAlgorithm": "AES256",
		"s3SseKmsKeyId": nil, "manifestFilesS3Key": base + "/manifest-files.json",
		"billedSizeBytes": float64(aws.ToInt64(d.BilledSizeBytes)), "itemCount": float64(aws.ToInt64(d.ItemCount)),
		"outputFormat": string(d.ExportFormat)}
	for k, w := range want {
		if g, ok := sum[k]; !ok || g != w && !sdkMillisecondBelow(g, w) {
			t.Errorf("manifest-summary.json %s = %#v (present %v), want %#v", k, g, ok, w)
		}
	}
	for k := range sum {
		if _, ok := want[k]; !ok {
			t.Errorf("manifest-summary.json has %s, not in the guide's full export summary", k)
		}
	}
}

// sdkMillisecondBelow reports whether time text got is one millisecond
// after want: the SDK reads DescribeExport's times, epoch seconds in a
// float, by truncating the float times 1,000 (smithy-go's
// ParseEpochSeconds), so a time whose float lies just under its
// millisecond comes out one millisecond early, while the manifest's text
// holds the millisecond itself.
func sdkMillisecondBelow(got, want any) bool {
	g, gok := got.(string)
	w, wok := want.(string)
	if !gok || !wok {
		return false
	}
	const layout = "2006-01-02T15:04:05.000Z"
	gt, gerr := time.Parse(layout, g)
	wt, werr := time.Parse(layout, w)
	return gerr == nil && werr == nil && gt.Sub(wt) == time.Millisecond
}

// checkDataFiles checks each manifest-files.json line against its data
// object and returns the objects' items as sorted DynamoDB-JSON lines.
func checkDataFiles(t *testing.T, get func(string) []byte, manifest []byte, base string, format types.ExportFormat) []string {
	t.Helper()
	ext := map[types.ExportFormat]string{types.ExportFormatDynamodbJson: ".json.gz", types.ExportFormatIon: ".ion.gz"}[format]
	keyShape := regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `/data/[a-z2-7]{26}` + regexp.QuoteMeta(ext) + `$`)
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(manifest), []byte("\n")) {
		var f map[string]any
		if err := json.Unmarshal(l, &f); err != nil || len(f) != 4 {
			t.Fatalf("manifest-files.json line %s: %v (want exactly itemCount, md5Checksum, etag, dataFileS3Key)", l, err)
		}
		key, _ := f["dataFileS3Key"].(string)
		obj := get(key)
		sum := md5.Sum(obj)
		if !keyShape.MatchString(key) || f["md5Checksum"] != base64.StdEncoding.EncodeToString(sum[:]) || f["etag"] != hex.EncodeToString(sum[:]) {
			t.Errorf("manifest-files.json line %s: key shape, md5Checksum or etag wrong", l)
		}
		zr, err := gzip.NewReader(bytes.NewReader(obj))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(zr)
		n := 0
		for _, rec := range strings.Split(string(data), "\n") {
			if rec == "" {
				continue
			}
			n++
			lines = append(lines, readRecord(t, format, rec))
		}
		if f["itemCount"] != float64(n) {
			t.Errorf("%s: itemCount %v, %d lines", key, f["itemCount"], n)
		}
	}
	slices.Sort(lines)
	return lines
}

// readRecord reads one data line as the guide documents it and returns
// its item as a DynamoDB-JSON line.
func readRecord(t *testing.T, format types.ExportFormat, rec string) string {
	t.Helper()
	var item map[string]types.AttributeValue
	if format == types.ExportFormatDynamodbJson {
		var r struct{ Item map[string]map[string]any }
		if err := json.Unmarshal([]byte(rec), &r); err != nil || r.Item == nil {
			t.Fatalf("line %s: %v", rec, err)
		}
		item = map[string]types.AttributeValue{}
		for k, v := range r.Item {
			item[k] = jsonValue(t, v)
		}
	} else {
		item = readIonItem(t, rec)
	}
	it, err := transfer.FromSDK(item)
	if err != nil {
		t.Fatalf("line %s: %v", rec, err)
	}
	return string(transfer.AppendLine(nil, it))
}

// jsonValue reads one DynamoDB-JSON value: {"S":…}, {"N":…}, {"B":base64},
// {"BOOL":…}, {"NULL":true}, {"M":{…}}, {"L":[…]}, {"SS"|"NS"|"BS":[…]}.
func jsonValue(t *testing.T, v map[string]any) types.AttributeValue {
	t.Helper()
	if len(v) != 1 {
		t.Fatalf("DynamoDB-JSON value %v: want one type", v)
	}
	strs := func(a any) []string {
		var out []string
		for _, e := range a.([]any) {
			out = append(out, e.(string))
		}
		return out
	}
	blob := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for typ, x := range v {
		switch typ {
		case "S":
			return &types.AttributeValueMemberS{Value: x.(string)}
		case "N":
			return &types.AttributeValueMemberN{Value: x.(string)}
		case "B":
			return &types.AttributeValueMemberB{Value: blob(x.(string))}
		case "BOOL":
			return &types.AttributeValueMemberBOOL{Value: x.(bool)}
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: x.(bool)}
		case "SS":
			return &types.AttributeValueMemberSS{Value: strs(x)}
		case "NS":
			return &types.AttributeValueMemberNS{Value: strs(x)}
		case "BS":
			var bs [][]byte
			for _, e := range strs(x) {
				bs = append(bs, blob(e))
			}
			return &types.AttributeValueMemberBS{Value: bs}
		case "M":
			m := map[string]types.AttributeValue{}
			for k, e := range x.(map[string]any) {
				m[k] = jsonValue(t, e.(map[string]any))
			}
			return &types.AttributeValueMemberM{Value: m}
		case "L":
			l := []types.AttributeValue{}
			for _, e := range x.([]any) {
				l = append(l, jsonValue(t, e.(map[string]any)))
			}
			return &types.AttributeValueMemberL{Value: l}
		}
	}
	t.Fatalf("DynamoDB-JSON value %v: unknown type", v)
	return nil
}

// readIonItem reads a line "$ion_1_0 {Item:{…}}" with the Ion library.
func readIonItem(t *testing.T, rec string) map[string]types.AttributeValue {
	t.Helper()
	var item map[string]types.AttributeValue
	if !strings.HasPrefix(rec, "$ion_1_0 ") {
		t.Fatalf("Ion line without $ion_1_0: %s", rec)
	}
	r := ion.NewReaderString(rec)
	for r.Next() && r.Type() != ion.StructType { // the version marker, if read as a symbol
	}
	if r.Type() != ion.StructType || r.StepIn() != nil {
		t.Fatalf("Ion line %s: not a struct (%v)", rec, r.Err())
	}
	for r.Next() {
		if name, _ := r.FieldName(); name != nil && name.Text != nil && *name.Text == "Item" {
			v, err := ionValue(r)
			if err != nil {
				t.Fatalf("Ion line %s: %v", rec, err)
			}
			item = v.(*types.AttributeValueMemberM).Value
		}
	}
	if item == nil {
		t.Fatalf("Ion line %s: no Item", rec)
	}
	return item
}

// ionValue reads the value at r as the guide maps DynamoDB's types onto
// Ion's: string, decimal, blob, bool, null, list, struct, and the sets as
// lists annotated $dynamodb_SS, $dynamodb_NS or $dynamodb_BS.
func ionValue(r ion.Reader) (types.AttributeValue, error) {
	ann, _ := r.Annotations()
	set := ""
	if len(ann) == 1 && ann[0].Text != nil {
		set = *ann[0].Text
	}
	switch {
	case r.IsNull():
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case r.Type() == ion.StringType:
		s, err := r.StringValue()
		return &types.AttributeValueMemberS{Value: *s}, err
	case r.Type() == ion.DecimalType || r.Type() == ion.IntType:
		return ionNumber(r)
	case r.Type() == ion.BlobType:
		b, err := r.ByteValue()
		return &types.AttributeValueMemberB{Value: b}, err
	case r.Type() == ion.BoolType:
		b, err := r.BoolValue()
		return &types.AttributeValueMemberBOOL{Value: *b}, err
	case r.Type() == ion.ListType:
		return ionList(r, set)
	case r.Type() == ion.StructType:
		m := map[string]types.AttributeValue{}
		if err := r.StepIn(); err != nil {
			return nil, err
		}
		for r.Next() {
			name, _ := r.FieldName()
			v, err := ionValue(r)
			if err != nil {
				return nil, err
			}
			m[*name.Text] = v
		}
		return &types.AttributeValueMemberM{Value: m}, r.StepOut()
	}
	return nil, fmt.Errorf("Ion type %v is not in the guide's mapping", r.Type())
}

func ionNumber(r ion.Reader) (*types.AttributeValueMemberN, error) {
	if r.Type() == ion.IntType {
		i, err := r.BigIntValue()
		return &types.AttributeValueMemberN{Value: i.String()}, err
	}
	d, err := r.DecimalValue()
	if err != nil {
		return nil, err
	}
	co, exp := d.CoEx()
	return &types.AttributeValueMemberN{Value: fmt.Sprintf("%sE%d", co, exp)}, nil
}

// ionList reads a list: a DynamoDB list, or a set when annotated.
func ionList(r ion.Reader, set string) (types.AttributeValue, error) {
	var vals []types.AttributeValue
	if err := r.StepIn(); err != nil {
		return nil, err
	}
	for r.Next() {
		v, err := ionValue(r)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	if err := r.StepOut(); err != nil {
		return nil, err
	}
	switch set {
	case "$dynamodb_SS":
		ss := []string{}
		for _, v := range vals {
			ss = append(ss, v.(*types.AttributeValueMemberS).Value)
		}
		return &types.AttributeValueMemberSS{Value: ss}, nil
	case "$dynamodb_NS":
		ns := []string{}
		for _, v := range vals {
			ns = append(ns, v.(*types.AttributeValueMemberN).Value)
		}
		return &types.AttributeValueMemberNS{Value: ns}, nil
	case "$dynamodb_BS":
		bs := [][]byte{}
		for _, v := range vals {
			bs = append(bs, v.(*types.AttributeValueMemberB).Value)
		}
		return &types.AttributeValueMemberBS{Value: bs}, nil
	}
	if vals == nil {
		vals = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: vals}, nil
}
