package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// The tag operations' refusals, in DynamoDB's words as recorded from the
// service by the ack-api-quirks catalogue (DDB-TABLE-070, -105, -106, -107,
// -108, -110, -372 and -446).

func tagList(kv ...string) []types.Tag {
	var tags []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		tags = append(tags, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return tags
}

func listTags(t *testing.T, c *dynamodb.Client, arn string) map[string]string {
	t.Helper()
	out, err := c.ListTagsOfResource(context.Background(), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tg := range out.Tags {
		got[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return got
}

// TestTagCharacters: keys and values of letters of any script, numbers,
// spaces (also no-break and ideographic ones) and + - = . _ : / @ are
// tags, an empty value is one too; anything else (emoji, %, comma, #, ...)
// is refused and the request applies nothing.
func TestTagCharacters(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Tagged", false)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Tagged"
	good := tagList("Env", "", "env", "x", "ключ", "café", "表", "a\u00a0b\u3000c",
		" sp ace", "a+b-c=d.e_f:g/h@i", "myaws:foo", "1", "k", strings.Repeat("v", 256), strings.Repeat("k", 128), "long")
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: good}); err != nil {
		t.Fatal(err)
	}
	got := listTags(t, c, arn)
	for _, tg := range good {
		if v, ok := got[*tg.Key]; !ok || v != *tg.Value {
			t.Errorf("tag %q: got %q (present %v), want %q", *tg.Key, v, ok, *tg.Value)
		}
	}
	for _, tc := range []struct {
		tags []types.Tag
		want string
	}{
		{tagList("ok", "1", "🔑", "x"), "The Tag Key provided is invalid, Key: 🔑"},
		{tagList("ok", "1", "k", "🔑"), "The Tag Value provided is invalid, Value: 🔑"},
		{tagList("ok", "1", "bad#char", "x"), "The Tag Key provided is invalid, Key: bad#char"},
		{tagList("ok", "1", "k", "100%"), "The Tag Value provided is invalid, Value: 100%"},
		{tagList("ok", "1", "k", "a,b"), "The Tag Value provided is invalid, Value: a,b"},
		{tagList("ok", "1", "k", "~a"), "The Tag Value provided is invalid, Value: ~a"},
		{tagList("ok", "1", "", "x"), "The Tag Key provided is invalid, Key: "},
		{tagList("ok", "1", strings.Repeat("k", 129), "x"), "The Tag Key provided is invalid, Key: " + strings.Repeat("k", 129)},
		{tagList("ok", "1", "k", strings.Repeat("v", 257)), "The Tag Value provided is invalid, Value: " + strings.Repeat("v", 257)},
		{tagList("ok", "1", "aws:zzz", "x"), "Tag Key cannot be prefixed with aws:, Key: aws:zzz"},
		{tagList("ok", "1", "AWS:foo", "x"), "Tag Key cannot be prefixed with aws:, Key: AWS:foo"},
		{tagList("ok", "1", "dup", "a", "dup", "b"), "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup"},
		{[]types.Tag{}, "Atleast one Tag needs to be provided as Input."},
	} {
		_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tc.tags})
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	if _, ok := listTags(t, c, arn)["ok"]; ok {
		t.Error("a refused TagResource applied its good tag")
	}
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{}, "Atleast one Tag Key needs to be provided as Input."},
		{[]string{"Env", "aws:foo"}, "Tag Key cannot be prefixed with aws:, Key: aws:foo"},
		{[]string{""}, "The Tag Key provided is invalid, Key: "},
		{[]string{strings.Repeat("k", 129)}, "The Tag Key provided is invalid, Key: " + strings.Repeat("k", 129)},
	} {
		_, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: tc.keys})
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	if _, ok := listTags(t, c, arn)["Env"]; !ok {
		t.Error("a refused UntagResource removed a tag")
	}
}

// TestTagLimit: 50 tags per table, counted after the change (re-setting a
// key adds none); 51 keys in one UntagResource are refused too; CreateTable
// takes no tags, and refuses 51 or a bad one without creating the table.
func TestTagLimit(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Full", false)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Full"
	var fifty, fiftyOne []string
	for i := range 51 {
		fiftyOne = append(fiftyOne, fmt.Sprintf("k%02d", i), "v")
		if i < 50 {
			fifty = append(fifty, fmt.Sprintf("k%02d", i), "v")
		}
	}
	const tooMany = "Number of Tags exceed the current limit for the provided ResourceArn"
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tagList(fifty...)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tagList("k00", "new")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tagList("k01", "new", "k50", "v")})
	wantAPIError(t, err, "ValidationException", tooMany)
	var keys []string
	for i := range 51 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
	}
	_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: keys})
	wantAPIError(t, err, "ValidationException", tooMany)
	if got := listTags(t, c, arn); len(got) != 50 || got["k00"] != "new" || got["k01"] != "v" {
		t.Errorf("after the refusals: got %d tags, k00=%q k01=%q; want 50, new, v", len(got), got["k00"], got["k01"])
	}

	create := func(name string, tags []types.Tag) error {
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			Tags:                 tags,
		})
		return err
	}
	if err := create("NoTags", []types.Tag{}); err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, create("TooMany", tagList(fiftyOne...)), "ValidationException", tooMany)
	wantAPIError(t, create("BadTag", tagList("aws:foo", "x")), "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:foo")
	for _, name := range []string{"TooMany", "BadTag"} {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		wantAPIError(t, err, "ResourceNotFoundException", "")
	}
}

// TestTagResourceARNs: what each tag operation answers for an ARN that
// names no table: a missing table, a stream, an index, a backup, no ARN.
func TestTagResourceARNs(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Known", false)
	table := "arn:aws:dynamodb:us-east-1:000000000000:table/Known"
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/Nope"
	for _, tc := range []struct {
		arn, code, want string
	}{
		{missing, "ResourceNotFoundException", "Requested resource not found: ResourceArn: " + missing + " not found"},
		{table + "/stream/2026-01-01T00:00:00.000", "ResourceNotFoundException", "Requested resource not found: ResourceArn: " + table},
		{table + "/index/ByX", "ValidationException",
			"One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " + table + "/index/ByX"},
		{table + "/backup/01700000000000-abcdef12", "ValidationException",
			"One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: " + table + "/backup/01700000000000-abcdef12"},
		{"Known", "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:': Known"},
	} {
		_, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(tc.arn)})
		wantAPIError(t, err, tc.code, tc.want)
		_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(tc.arn), Tags: tagList("a", "b")})
		wantAPIError(t, err, tc.code, tc.want)
		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(tc.arn), TagKeys: []string{"a"}})
		wantAPIError(t, err, tc.code, tc.want)
	}
}

// unvalidated turns off the SDK's own check of required members for one
// call, so that the request reaches the server as a client that does not
// check (boto3 with parameter_validation off, a hand-written client) sends it.
func unvalidated(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		_, err := st.Initialize.Remove("OperationInputValidation")
		return err
	})
}

// TestTagMissingMembers: a tag without its Key, or without its Value, is
// refused naming the member null (ack-api-quirks DDB-TABLE-107 and -457,
// recorded from the service), before anything is applied; the 128 and 256
// limits count characters, not bytes (DynamoDB's tagging restrictions).
func TestTagMissingMembers(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Nulls", false)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Nulls"
	for _, tc := range []struct {
		tags []types.Tag
		want string
	}{
		{[]types.Tag{{Value: aws.String("v")}}, "The Tag Key provided is invalid, Key: null"},
		{[]types.Tag{{}}, "The Tag Key provided is invalid, Key: null"},
		{[]types.Tag{{Key: aws.String("k")}}, "The Tag Value provided is invalid, Value: null"},
		{append(tagList("ok", "1"), types.Tag{Key: aws.String("k")}), "The Tag Value provided is invalid, Value: null"},
		{[]types.Tag{{Key: aws.String("bad#"), Value: aws.String("v")}, {Value: aws.String("v")}}, "The Tag Key provided is invalid, Key: bad#"},
	} {
		_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tc.tags}, unvalidated)
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	if got := listTags(t, c, arn); len(got) != 0 {
		t.Errorf("refused requests applied tags: %v", got)
	}
	key, value := strings.Repeat("ключ", 32), strings.Repeat("значение", 32) // 128 and 256 characters, twice as many bytes
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tagList(key, value)}); err != nil {
		t.Fatalf("a 128-character key with a 256-character value: %v", err)
	}
	if got := listTags(t, c, arn); got[key] != value {
		t.Errorf("got tags %v, want %s=%s", got, key, value)
	}
	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tagList(key+"я", "v")})
	wantAPIError(t, err, "ValidationException", "The Tag Key provided is invalid, Key: "+key+"я")
}
