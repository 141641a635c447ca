package integration

import (
	"context"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// The member constraints these tests send against, from the API reference:
// ClientToken (ExportTableToPointInTime, ImportTable, StartBulkPutItems:
// one shape) has the pattern ^[^\$]+$; StartBulkPutItems' MaxWriteRequestUnits
// is at least 1,024 and PerformanceTier STANDARD or ACCELERATED;
// OutputS3Configuration's OutputType holds ERROR or CONDITION_CHECK_FAILURE;
// ListBulkOperations' MaxResults is 1 to 25 and its NextToken 1 to 1024 of
// ([0-9a-f]{16})+; ListImports' NextToken 112 to 1024 of that pattern;
// CsvOptions' Delimiter one of [,;:|\t ] and each of HeaderList's names 1
// to 65,536 of [\x20-\x21\x23-\x2B\x2D-\x7E]*.
const (
	tokenPattern  = `Member must satisfy regular expression pattern: ^[^\$]+$`
	outputTypeSet = "Member must satisfy constraint: [Member must satisfy enum value set: [ERROR, CONDITION_CHECK_FAILURE]]"
	nextPattern   = "Member must satisfy regular expression pattern: ([0-9a-f]{16})+"
)

// TestTransferMemberConstraints: the transfer operations' documented member
// constraints are the validator's, so several failures are one
// ValidationException listing each ("N validation errors detected"), in
// the order the validator lists a shape's members, before anything runs.
func TestTransferMemberConstraints(t *testing.T) {
	c := transferServer(t, bucket.Dir{Root: t.TempDir()})
	ctx := context.Background()
	createTable(t, c, "Things", true)

	in := bulkInput("Things", "in/", "tok$")
	in.MaxWriteRequestUnits = aws.Int64(10)
	in.PerformanceTier = "FAST"
	in.OutputS3Configuration.OutputType = []types.OutputTypeEnum{types.OutputTypeEnumError, "BOGUS"}
	_, err := c.StartBulkPutItems(ctx, in)
	wantAPIError(t, err, "ValidationException", "4 validation errors detected: "+
		"Value '[ERROR, BOGUS]' at 'outputS3Configuration.outputType' failed to satisfy constraint: "+outputTypeSet+"; "+
		"Value 'FAST' at 'performanceTier' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, ACCELERATED]; "+
		"Value 'tok$' at 'clientToken' failed to satisfy constraint: "+tokenPattern+"; "+
		"Value '10' at 'maxWriteRequestUnits' failed to satisfy constraint: Member must have value greater than or equal to 1024")
	in = bulkInput("Things", "in/", "")
	_, err = c.StartBulkPutItems(ctx, in)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '' at 'clientToken' failed to satisfy constraint: "+tokenPattern)

	_, err = c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Things"),
		S3Bucket: aws.String("exports"), ClientToken: aws.String("a$b"), ExportType: "FULL"})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: "+
		"Value 'a$b' at 'clientToken' failed to satisfy constraint: "+tokenPattern+"; "+
		"Value 'FULL' at 'exportType' failed to satisfy constraint: Member must satisfy enum value set: [FULL_EXPORT, INCREMENTAL_EXPORT]")

	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatCsv, ClientToken: aws.String("$"),
		InputFormatOptions: &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String("x"), HeaderList: []string{"pk", "a,b", `c"d`}}},
		S3BucketSource:     &types.S3BucketSource{S3Bucket: aws.String("src")}, TableCreationParameters: importParams("Imported")})
	wantAPIError(t, err, "ValidationException", "3 validation errors detected: "+
		"Value '$' at 'clientToken' failed to satisfy constraint: "+tokenPattern+"; "+
		`Value '[pk, a,b, c"d]' at 'inputFormatOptions.csv.headerList' failed to satisfy constraint: `+
		`Member must satisfy constraint: [Member must satisfy regular expression pattern: [\x20-\x21\x23-\x2B\x2D-\x7E]*]; `+
		`Value 'x' at 'inputFormatOptions.csv.delimiter' failed to satisfy constraint: Member must satisfy regular expression pattern: [,;:|\t ]`)

	_, err = c.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{MaxResults: aws.Int32(26), NextToken: aws.String("zz")})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: "+
		"Value '26' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 25; "+
		"Value 'zz' at 'nextToken' failed to satisfy constraint: "+nextPattern)
	_, err = c.ListImports(ctx, &dynamodb.ListImportsInput{PageSize: aws.Int32(0), NextToken: aws.String("0123456789abcdef")})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: "+
		"Value '0123456789abcdef' at 'nextToken' failed to satisfy constraint: Member must have length greater than or equal to 112; "+
		"Value '0' at 'pageSize' failed to satisfy constraint: Member must have value greater than or equal to 1")

	if list, err := c.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{}); err != nil || len(list.BulkOperationsSummaryList) != 0 {
		t.Errorf("bulk loads after refused requests: %+v, %v", list, err)
	}
	if list, err := c.ListImports(ctx, &dynamodb.ListImportsInput{}); err != nil || len(list.ImportSummaryList) != 0 {
		t.Errorf("imports after refused requests: %+v, %v", list, err)
	}
}

// TestListImportsPages: ListImports' NextToken is of its documented shape
// (so the validator takes it back) and the next page starts where the
// first ended.
func TestListImportsPages(t *testing.T) {
	c := transferServer(t, bucket.Dir{Root: t.TempDir()})
	ctx := context.Background()
	var arns []string
	for _, name := range []string{"First", "Second"} {
		out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("none/")}, TableCreationParameters: importParams(name)})
		if err != nil {
			t.Fatal(err)
		}
		arns = append(arns, aws.ToString(out.ImportTableDescription.ImportArn))
	}
	first, err := c.ListImports(ctx, &dynamodb.ListImportsInput{PageSize: aws.Int32(1)})
	if err != nil || len(first.ImportSummaryList) != 1 || aws.ToString(first.ImportSummaryList[0].ImportArn) != arns[0] {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	tok := aws.ToString(first.NextToken)
	if len(tok) < 112 || !regexp.MustCompile(`^([0-9a-f]{16})+$`).MatchString(tok) {
		t.Fatalf("NextToken %q: not 112 or more of ([0-9a-f]{16})+", tok)
	}
	second, err := c.ListImports(ctx, &dynamodb.ListImportsInput{PageSize: aws.Int32(1), NextToken: first.NextToken})
	if err != nil || len(second.ImportSummaryList) != 1 || aws.ToString(second.ImportSummaryList[0].ImportArn) != arns[1] || second.NextToken != nil {
		t.Errorf("second page: %+v, %v", second, err)
	}
}
