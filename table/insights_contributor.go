package table

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Contributor Insights (UpdateContributorInsights, DescribeContributorInsights,
// ListContributorInsights) is state kept with the table definition, per table
// and global index: whether it is on, in which mode, since when. The data it
// stands for in DynamoDB (CloudWatch rules of the most accessed and most
// throttled keys) is what ddblocal's insights keep for every table anyway
// (GET /_ddblocal/insights); these operations report the state as DynamoDB
// does, so infrastructure code that toggles it can be tested.
//
// As observed on DynamoDB: ENABLE answers ENABLING and settles to ENABLED,
// DISABLE answers DISABLING and settles to DISABLED (here after
// Options.TransientDelay, immediately without one); an ENABLE or DISABLE
// that changes nothing answers the current status; ENABLE without a mode
// means ACCESSED_AND_THROTTLED_KEYS and a mode change is a new ENABLING;
// a never-configured table or index describes as DISABLED without mode or
// time; List omits DISABLED entries and lists the table before its indexes.

// Contributor Insights modes and actions.
const (
	ciAccessedAndThrottled = "ACCESSED_AND_THROTTLED_KEYS"
	ciThrottled            = "THROTTLED_KEYS"
)

// insightsState is one table's or global index's Contributor Insights
// setting, stored in the table definition (tableMeta.ContributorInsights,
// keyed by index name, "" for the table).
type insightsState struct {
	Enabled bool
	Mode    string
	Changed int64 // Unix nanoseconds of the last change of status
	// Rules is the Unix milliseconds suffix of the rule names, from the
	// ENABLE that created them; a mode change keeps it.
	Rules int64
	// IndexCreated is the Created time of the index the state belongs to,
	// so that an index deleted and re-created with the same name starts
	// DISABLED.
	IndexCreated int64
}

// insightsTarget resolves the table and index a Contributor Insights call
// names: the index must be one of the table's global indexes.
func (s *Service) insightsTarget(ctx context.Context, region, tableName string, indexName *string) (*tableMeta, *indexMeta, error) {
	m, err := s.tableForControl(ctx, region, tableName)
	if err != nil {
		return nil, nil, err
	}
	if indexName == nil {
		return m, nil, nil
	}
	for i := range m.GlobalSecondaryIndexes {
		if ix := &m.GlobalSecondaryIndexes[i]; ix.Name == *indexName {
			return m, ix, nil
		}
	}
	return nil, nil, ddb.NotFound("Index: %s not found for table: %s", *indexName, m.Name)
}

// insightsOf returns the stored state of m's table (ix nil) or index ix,
// and whether there is one (an index re-created since has none).
func insightsOf(m *tableMeta, ix *indexMeta) (insightsState, bool) {
	key, created := "", int64(0)
	if ix != nil {
		key, created = ix.Name, ix.Created
	}
	st, ok := m.ContributorInsights[key]
	if !ok || st.IndexCreated != created {
		return insightsState{}, false
	}
	return st, true
}

// insightsStatus is the status of a stored state at now (Unix nanoseconds).
func (s *Service) insightsStatus(st insightsState, ok bool, now int64) string {
	settling := now < st.Changed+s.opts.TransientDelay.Nanoseconds()
	switch {
	case !ok:
		return "DISABLED"
	case st.Enabled && settling:
		return "ENABLING"
	case st.Enabled:
		return "ENABLED"
	case settling:
		return "DISABLING"
	}
	return "DISABLED"
}

// UpdateContributorInsights turns Contributor Insights on or off for a
// table or one of its global indexes.
func (s *Service) UpdateContributorInsights(ctx context.Context, region string, in *ddb.UpdateContributorInsightsInput) (*ddb.UpdateContributorInsightsOutput, error) {
	m, ix, err := s.insightsTarget(ctx, region, in.TableName, in.IndexName)
	if err != nil {
		return nil, err
	}
	out := &ddb.UpdateContributorInsightsOutput{TableName: m.Name, IndexName: in.IndexName}
	_, err = s.changeTable(ctx, m, ddb.NotFound("Table: %s not found", m.Name), func(_ *store.Tx, cur, next *tableMeta) error {
		cix, err := sameIndex(cur, ix)
		if err != nil {
			return err
		}
		if err := s.insightsAdmissible(cur, cix, in.ContributorInsightsAction); err != nil {
			return err
		}
		now := s.now().UnixNano()
		st, ok := insightsOf(cur, cix)
		status, changed := s.nextInsights(&st, ok, in, now)
		out.ContributorInsightsStatus, out.ContributorInsightsMode = status, st.Mode
		if !changed {
			return errUnchanged
		}
		if cix != nil {
			st.IndexCreated = cix.Created
		}
		next.ContributorInsights = copyInsights(cur.ContributorInsights)
		next.ContributorInsights[indexKey(cix)] = st
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) {
		return nil, err
	}
	return out, nil
}

// errUnchanged cancels a changeTable whose request changes nothing.
var errUnchanged = &ddb.Error{Code: ddb.InternalServerError, Message: "unchanged"}

// nextInsights applies an update request to state st (ok: there was one)
// at now: it returns the status to answer and whether st changed.
func (s *Service) nextInsights(st *insightsState, ok bool, in *ddb.UpdateContributorInsightsInput, now int64) (string, bool) {
	status := s.insightsStatus(*st, ok, now)
	if in.ContributorInsightsAction == "DISABLE" {
		if !ok || !st.Enabled {
			return status, false
		}
		st.Enabled, st.Changed = false, now
		return "DISABLING", true
	}
	mode := in.ContributorInsightsMode
	if mode == "" {
		mode = ciAccessedAndThrottled
	}
	if ok && st.Enabled && st.Mode == mode {
		return status, false
	}
	if !ok || !st.Enabled {
		st.Rules = now / 1e6
	}
	st.Enabled, st.Mode, st.Changed = true, mode, now
	return "ENABLING", true
}

// sameIndex finds in cur (the stored definition) the index ix names.
func sameIndex(cur *tableMeta, ix *indexMeta) (*indexMeta, error) {
	if ix == nil {
		return nil, nil
	}
	for i := range cur.GlobalSecondaryIndexes {
		if c := &cur.GlobalSecondaryIndexes[i]; c.Name == ix.Name {
			return c, nil
		}
	}
	return nil, ddb.NotFound("Index: %s not found for table: %s", ix.Name, cur.Name)
}

// insightsAdmissible refuses to enable Contributor Insights on a table or
// index that is not ACTIVE yet, in DynamoDB's words.
func (s *Service) insightsAdmissible(m *tableMeta, ix *indexMeta, action string) error {
	if action != "ENABLE" {
		return nil
	}
	now := s.now().UnixNano()
	if s.tableStatus(m, now) == "CREATING" {
		return ddb.Errorf(ddb.ValidationException, "Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights.")
	}
	delay := s.opts.TransientDelay.Nanoseconds()
	if ix == nil {
		return nil
	}
	ready, err := s.indexReady(m, ix.Name)
	if err != nil {
		return err
	}
	if !ready || (delay > 0 && now < ix.Created+delay) {
		return ddb.Errorf(ddb.ValidationException, "Table or Index is not in a valid state to update Key Access Insights: IndexStatus must be ACTIVE to enable ContributorInsights.")
	}
	return nil
}

func indexKey(ix *indexMeta) string {
	if ix == nil {
		return ""
	}
	return ix.Name
}

func copyInsights(m map[string]insightsState) map[string]insightsState {
	out := make(map[string]insightsState, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// DescribeContributorInsights reports the Contributor Insights state of a
// table or one of its global indexes.
func (s *Service) DescribeContributorInsights(ctx context.Context, region string, in *ddb.DescribeContributorInsightsInput) (*ddb.DescribeContributorInsightsOutput, error) {
	m, ix, err := s.insightsTarget(ctx, region, in.TableName, in.IndexName)
	if err != nil {
		return nil, err
	}
	st, ok := insightsOf(m, ix)
	out := &ddb.DescribeContributorInsightsOutput{TableName: m.Name, IndexName: in.IndexName,
		ContributorInsightsStatus: s.insightsStatus(st, ok, s.now().UnixNano())}
	if !ok {
		return out, nil
	}
	t := epochSeconds(st.Changed)
	out.LastUpdateDateTime, out.ContributorInsightsMode = &t, st.Mode
	if st.Enabled {
		out.ContributorInsightsRuleList = insightsRules(m, ix, st)
	}
	return out, nil
}

// insightsRules are the names of the CloudWatch rules DynamoDB creates for
// st: most accessed (C) and most throttled (T) partition keys (PK), and
// whole keys (SK) when the table or index has a sort key; THROTTLED_KEYS
// keeps only the throttled ones. An index's rules name the table and index.
func insightsRules(m *tableMeta, ix *indexMeta, st insightsState) []string {
	resource, keys := m.Name, m.KeySchema
	if ix != nil {
		resource, keys = m.Name+"-"+ix.Name, ix.KeySchema
	}
	kinds := []string{"PKC", "SKC", "PKT", "SKT"}
	var out []string
	for _, k := range kinds {
		if (k[0] == 'S' && len(keys) < 2) || (st.Mode == ciThrottled && k[2] == 'C') {
			continue
		}
		out = append(out, fmt.Sprintf("DynamoDBContributorInsights-%s-%s-%d", k, resource, st.Rules))
	}
	return out
}

// ListContributorInsights lists the Contributor Insights that are not
// DISABLED, of one table and its global indexes or of every table in the
// region, the table before its indexes, MaxResults at a time.
func (s *Service) ListContributorInsights(ctx context.Context, region string, in *ddb.ListContributorInsightsInput) (*ddb.ListContributorInsightsOutput, error) {
	var metas []*tableMeta
	if in.TableName != nil {
		m, err := s.tableForControl(ctx, region, *in.TableName)
		if err != nil {
			return nil, err
		}
		metas = []*tableMeta{m}
	} else {
		var err error
		if metas, err = s.regionTables(region, ""); err != nil {
			return nil, err
		}
	}
	after, err := decodeInsightsToken(in.NextToken)
	if err != nil {
		return nil, err
	}
	limit := 100
	if in.MaxResults != nil && *in.MaxResults > 0 {
		limit = int(*in.MaxResults)
	}
	out := &ddb.ListContributorInsightsOutput{ContributorInsightsSummaries: []ddb.ContributorInsightsSummary{}}
	now := s.now().UnixNano()
	for _, m := range metas {
		for _, sum := range s.insightsSummaries(m, now) {
			pos := sum.TableName + "\x00" + indexNameOf(sum.IndexName)
			if after != "" && pos <= after {
				continue
			}
			if len(out.ContributorInsightsSummaries) == limit {
				tok := base64.RawURLEncoding.EncodeToString([]byte(after))
				out.NextToken = &tok
				return out, nil
			}
			out.ContributorInsightsSummaries = append(out.ContributorInsightsSummaries, sum)
			after = pos
		}
	}
	return out, nil
}

// insightsSummaries are m's entries that are not DISABLED: the table's,
// then its global indexes' in definition order.
func (s *Service) insightsSummaries(m *tableMeta, now int64) []ddb.ContributorInsightsSummary {
	var out []ddb.ContributorInsightsSummary
	add := func(ix *indexMeta) {
		st, ok := insightsOf(m, ix)
		status := s.insightsStatus(st, ok, now)
		if status == "DISABLED" {
			return
		}
		sum := ddb.ContributorInsightsSummary{TableName: m.Name, ContributorInsightsStatus: status, ContributorInsightsMode: st.Mode}
		if ix != nil {
			name := ix.Name
			sum.IndexName = &name
		}
		out = append(out, sum)
	}
	add(nil)
	for i := range m.GlobalSecondaryIndexes {
		add(&m.GlobalSecondaryIndexes[i])
	}
	return out
}

func indexNameOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// decodeInsightsToken returns the position a NextToken continues after.
// Table names sort before "\x00"-joined positions of their indexes.
func decodeInsightsToken(tok *string) (string, error) {
	if tok == nil {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*tok)
	if err != nil || !strings.Contains(string(b), "\x00") {
		return "", ddb.Errorf(ddb.ValidationException, "Invalid NextToken")
	}
	return string(b), nil
}
