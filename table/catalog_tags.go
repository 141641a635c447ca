package table

import (
	"context"
	"sort"
	"strings"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
)

// Tag limits from DynamoDB's documentation ("Tagging restrictions").
const maxTagsPerResource = 50

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

// taggedTable resolves a ResourceArn to its table, which the caller (ctx)
// must be allowed to use (see authorize). A table of another account than
// the caller's (scope) is reached only when policies are enforced.
func (s *Service) taggedTable(ctx context.Context, scope, arn string) (*tableMeta, error) {
	region, name, ok := parseTableARN(arn)
	if !ok {
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
	}
	notFound := ddb.NotFound("ResourcArn: %s not found", arn)
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

// changeTags rewrites a table's tags with fn, in one store transaction
// that reads them: fn gets the tags committed last.
func (s *Service) changeTags(ctx context.Context, scope, arn string, fn func(map[string]string) error) error {
	m, err := s.taggedTable(ctx, scope, arn)
	if err != nil {
		return err
	}
	_, err = s.changeTable(ctx, m, ddb.NotFound("ResourcArn: %s not found", arn), func(_ *store.Tx, cur, next *tableMeta) error {
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

// checkTags validates tags being set: no aws: prefix, and the ddblocal
// consistency tags must hold a lag consistency.ParseLag accepts.
func checkTags(tags []ddb.Tag) error {
	for _, t := range tags {
		if strings.HasPrefix(strings.ToLower(t.Key), "aws:") {
			return ddb.Errorf(ddb.ValidationException, "One or more parameter values were invalid: Tag keys may not begin with aws:")
		}
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

// TagResource adds or replaces tags on a table.
func (s *Service) TagResource(ctx context.Context, region string, in *ddb.TagResourceInput) (*ddb.Empty, error) {
	err := s.changeTags(ctx, region, in.ResourceArn, func(tags map[string]string) error {
		if err := checkTags(in.Tags); err != nil {
			return err
		}
		for _, t := range in.Tags {
			tags[t.Key] = t.Value
		}
		if len(tags) > maxTagsPerResource {
			return ddb.Errorf(ddb.ValidationException, "One or more parameter values were invalid: The number of tags exceeds the limit of %d", maxTagsPerResource)
		}
		return nil
	})
	return &ddb.Empty{}, err
}

// UntagResource removes tags from a table; absent keys are ignored.
func (s *Service) UntagResource(ctx context.Context, region string, in *ddb.UntagResourceInput) (*ddb.Empty, error) {
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
