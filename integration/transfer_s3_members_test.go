package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// The member constraints of the S3 locations, from the API reference's
// pages for ExportTableToPointInTime, S3BucketSource, InputS3Configuration
// and OutputS3Configuration: S3Bucket has at most 255 characters of the
// pattern ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$, S3BucketOwner (an account
// id) the pattern [0-9]{12}.
const (
	bucketPattern = `Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`
	ownerPattern  = "Member must satisfy regular expression pattern: [0-9]{12}"
)

// TestS3LocationMembers: a bucket name or an owner that is not of its
// documented pattern is refused before anything runs, with the
// ValidationException the service's validator words, each failure at its
// member's path, several in one message in the order the validator lists
// a shape's members (api/internal/validate: Java's HashMap order).
func TestS3LocationMembers(t *testing.T) {
	c := transferServer(t, bucket.Dir{Root: t.TempDir()})
	ctx := context.Background()
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Things"

	_, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn),
		S3Bucket: aws.String("exports"), S3BucketOwner: aws.String("12345678901x")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '12345678901x' at 's3BucketOwner' failed to satisfy constraint: "+ownerPattern)
	_, err = c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn),
		S3Bucket: aws.String("x"), S3BucketOwner: aws.String("1234567890123")})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: "+
		"Value '1234567890123' at 's3BucketOwner' failed to satisfy constraint: "+ownerPattern+"; "+
		"Value 'x' at 's3Bucket' failed to satisfy constraint: "+bucketPattern)

	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("src"), S3BucketOwner: aws.String("owner")},
		TableCreationParameters: importParams("Imported")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'owner' at 's3BucketSource.s3BucketOwner' failed to satisfy constraint: "+ownerPattern)
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src.")}, TableCreationParameters: importParams("Imported")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'src.' at 's3BucketSource.s3Bucket' failed to satisfy constraint: "+bucketPattern)

	in := bulkInput("Things", "in/", "members")
	in.InputS3Configuration.S3BucketOwner = aws.String("12345")
	in.OutputS3Configuration.S3BucketOwner = aws.String("")
	in.OutputS3Configuration.S3Bucket = aws.String("-out")
	_, err = c.StartBulkPutItems(ctx, in)
	wantAPIError(t, err, "ValidationException", "3 validation errors detected: "+
		"Value '' at 'outputS3Configuration.s3BucketOwner' failed to satisfy constraint: "+ownerPattern+"; "+
		"Value '-out' at 'outputS3Configuration.s3Bucket' failed to satisfy constraint: "+bucketPattern+"; "+
		"Value '12345' at 'inputS3Configuration.s3BucketOwner' failed to satisfy constraint: "+ownerPattern)
	if list, err := c.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{}); err != nil || len(list.BulkOperationsSummaryList) != 0 {
		t.Errorf("after refused requests: %+v, %v", list, err)
	}
}
