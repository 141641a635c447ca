package table

import (
	"context"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
)

// Tag limits from DynamoDB's documentation ("Tagging restrictions").
const (
	maxTagsPerResource = 50
	maxTagKeyLength    = 128
	maxTagValueLength  = 256
)

// errTooManyTags refuses a tag set over the limit, after the change (and an
// untagging of more keys than the limit), as DynamoDB does (ack-api-quirks
// DDB-TABLE-107 and DDB-TABLE-108): a ValidationException, not a
// LimitExceededException.
func errTooManyTags() error {
	return ddb.Errorf(ddb.ValidationException, "Number of Tags exceed the current limit for the provided ResourceArn")
}

// parseTableARN splits arn:aws:dynamodb:REGION:ACCOUNT:table/NAME into
// the scope it names and the table name.
func parseTableARN(arn string) (scope, name string, ok bool) {
	scope, _, res, ok := access.SplitARN(arn)
	name, isTable := strings.CutPrefix(res, "table/")
	if !ok || !isTable || strings.Contains(name, "/") || name == "" {
		return "", "", false
	}
	return scope, name, true
}

// tagARNError words the refusal of a ResourceArn that names no table, as
// DynamoDB does for the tag operations (ack-api-quirks DDB-TABLE-105 and
// DDB-TABLE-442, recorded from the service): a backup's ARN is "not a
// DynamoDB resource arn", an index's is not a table or stream, a stream's
// is a table not found, and any other is an invalid ResourceArn.
func tagARNError(arn string) error {
	if !strings.HasPrefix(arn, "arn:") {
		return invalid("ARNs must start with 'arn:': %s", arn)
	}
	_, _, res, ok := access.SplitARN(arn)
	if parts := strings.Split(res, "/"); ok && len(parts) == 4 && parts[0] == "table" {
		switch parts[2] {
		case "backup":
			return invalid("Provided Arn is not a DynamoDB resource arn: %s", arn)
		case "index":
			return invalid("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", arn)
		case "stream":
			return ddb.NotFound("ResourceArn: %s", strings.TrimSuffix(arn, "/stream/"+parts[3]))
		}
	}
	return ddb.Errorf(ddb.ValidationException, "Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
}

// taggedTable resolves a ResourceArn to its table, which the caller (ctx)
// must be allowed to use (see authorize). A table of another account than
// the caller's (scope) is reached only when policies are enforced.
func (s *Service) taggedTable(ctx context.Context, scope, arn string) (*tableMeta, error) {
	region, name, ok := parseTableARN(arn)
	if !ok {
		return nil, tagARNError(arn)
	}
	notFound := tagNotFound(arn)
	if a, _ := access.SplitScope(region); !access.SameAccount(scope, a) && s.opts.Policies == nil {
		return nil, notFound
	}
	m, err := s.catalog.get(s.db, region, name)
	if err != nil {
		return nil, err
	}
	// Another account's missing table is refused, not reported missing.
	if err := s.authorize(ctx, scope, m, "", arn); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, notFound
	}
	return m, nil
}

// tagNotFound is the tag operations' ResourceNotFoundException, in the
// service's words (ack-api-quirks DDB-TABLE-070 and DDB-TABLE-446).
func tagNotFound(arn string) *ddb.Error {
	return ddb.NotFound("ResourceArn: %s not found", arn)
}

// changeTags rewrites a table's tags with fn, in one store transaction
// that reads them: fn gets the tags committed last.
func (s *Service) changeTags(ctx context.Context, scope, arn string, fn func(map[string]string) error) error {
	m, err := s.taggedTable(ctx, scope, arn)
	if err != nil {
		return err
	}
	_, err = s.changeTable(ctx, m, tagNotFound(arn), func(_ *store.Tx, cur, next *tableMeta) error {
		tags := map[string]string{}
		for _, t := range cur.Tags {
			tags[t.Key] = t.Value
		}
		if err := fn(tags); err != nil {
			return err
		}
		next.Tags = nil
		for k, v := range tags {
			next.Tags = append(next.Tags, ddb.Tag{Key: k, Value: v})
		}
		next.Tags = sortTags(next.Tags)
		return nil
	})
	return err
}

// checkTags validates tags being set, in DynamoDB's words (ack-api-quirks
// DDB-TABLE-105..110, -372 and -457, recorded from the service): a Key or
// Value left out is named null ("Key: null"); each key 1-128 characters
// (Unicode characters, as the tagging restrictions count them, not bytes)
// and each value at most 256, both of letters,
// numbers, spaces and + - = . _ : / @ only; no key beginning with aws: (in
// any case); no key twice. Then ddblocal's own tags: the throttling tag
// must be on or off, the consistency tags a lag consistency.ParseLag
// accepts.
func checkTags(tags []ddb.Tag) error {
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if t.KeyMissing() {
			return ddb.Errorf(ddb.ValidationException, "The Tag Key provided is invalid, Key: null")
		}
		if err := checkTagKey(t.Key); err != nil {
			return err
		}
		if t.ValueMissing() {
			return ddb.Errorf(ddb.ValidationException, "The Tag Value provided is invalid, Value: null")
		}
		if !tagText(t.Value, maxTagValueLength) {
			return ddb.Errorf(ddb.ValidationException, "The Tag Value provided is invalid, Value: %s", t.Value)
		}
		if seen[t.Key] {
			return ddb.Errorf(ddb.ValidationException, "Duplicate Tag Keys provided as input: Duplicate Tag Key found %s", t.Key)
		}
		seen[t.Key] = true
	}
	if len(tags) > maxTagsPerResource {
		return errTooManyTags()
	}
	for _, t := range tags {
		if t.Key == throttlingTag && t.Value != "on" && t.Value != "off" {
			return invalid("Tag %s: must be on or off, not %q", t.Key, t.Value)
		}
		if t.Key == consistency.EventualLagTag || t.Key == consistency.GSILagTag {
			if _, err := consistency.ParseLag(t.Value); err != nil {
				return invalid("Tag %s: %v", t.Key, err)
			}
		}
	}
	return nil
}

// checkTagKey refuses a tag key DynamoDB refuses, to be set or removed.
func checkTagKey(key string) error {
	if key == "" || !tagText(key, maxTagKeyLength) {
		return ddb.Errorf(ddb.ValidationException, "The Tag Key provided is invalid, Key: %s", key)
	}
	if len(key) >= 4 && strings.EqualFold(key[:4], "aws:") {
		return ddb.Errorf(ddb.ValidationException, "Tag Key cannot be prefixed with aws:, Key: %s", key)
	}
	return nil
}

// tagText reports whether s is at most max characters of the tagging
// rules' set: Unicode letters, numbers and spaces, and + - = . _ : / @.
func tagText(s string, max int) bool {
	if utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.In(r, unicode.Z) && !strings.ContainsRune("+-=._:/@", r) {
			return false
		}
	}
	return true
}

// TagResource adds or replaces tags on a table.
func (s *Service) TagResource(ctx context.Context, region string, in *ddb.TagResourceInput) (*ddb.Empty, error) {
	if len(in.Tags) == 0 {
		return nil, ddb.Errorf(ddb.ValidationException, "Atleast one Tag needs to be provided as Input.")
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	err := s.changeTags(ctx, region, in.ResourceArn, func(tags map[string]string) error {
		for _, t := range in.Tags {
			tags[t.Key] = t.Value
		}
		if len(tags) > maxTagsPerResource {
			return errTooManyTags()
		}
		return nil
	})
	return &ddb.Empty{}, err
}

// UntagResource removes tags from a table; absent keys are ignored.
func (s *Service) UntagResource(ctx context.Context, region string, in *ddb.UntagResourceInput) (*ddb.Empty, error) {
	if len(in.TagKeys) == 0 {
		return nil, ddb.Errorf(ddb.ValidationException, "Atleast one Tag Key needs to be provided as Input.")
	}
	for _, k := range in.TagKeys {
		if err := checkTagKey(k); err != nil {
			return nil, err
		}
	}
	// DynamoDB counts the keys of an untagging against the tag limit too.
	if len(in.TagKeys) > maxTagsPerResource {
		return nil, errTooManyTags()
	}
	err := s.changeTags(ctx, region, in.ResourceArn, func(tags map[string]string) error {
		for _, k := range in.TagKeys {
			delete(tags, k)
		}
		return nil
	})
	return &ddb.Empty{}, err
}

// ListTagsOfResource lists a table's tags (all in one page: at most 50 exist).
func (s *Service) ListTagsOfResource(ctx context.Context, region string, in *ddb.ListTagsOfResourceInput) (*ddb.ListTagsOfResourceOutput, error) {
	m, err := s.taggedTable(ctx, region, in.ResourceArn)
	if err != nil {
		return nil, err
	}
	return &ddb.ListTagsOfResourceOutput{Tags: append([]ddb.Tag{}, m.Tags...)}, nil
}

// DescribeLimits reports the account's capacity quotas (DynamoDB's defaults).
func (s *Service) DescribeLimits(ctx context.Context, region string, in *ddb.Empty) (*ddb.DescribeLimitsOutput, error) {
	// The quotas throttling enforces, scaled as it scales them.
	scale := s.limiter.Scale()
	account := int64(throttle.AccountQuotaUnits * scale)
	tbl := int64(throttle.TableQuotaUnits * scale)
	return &ddb.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits: account, AccountMaxWriteCapacityUnits: account,
		TableMaxReadCapacityUnits: tbl, TableMaxWriteCapacityUnits: tbl,
	}, nil
}

// sortTags orders tags by key for deterministic output.
func sortTags(tags []ddb.Tag) []ddb.Tag {
	out := append([]ddb.Tag(nil), tags...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
