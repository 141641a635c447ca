package table

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Resource-based policies are stored with their table (a table's under "",
// a stream's under its label), returned with a revision id, and dropped with
// the table. With Options.Policies set they are enforced on verified
// callers (authorize, policy_authorize.go).

// resourcePolicy is one stored policy document.
type resourcePolicy struct {
	Document string
	Revision string
}

// maxPolicySize is DynamoDB's limit on a policy document, whitespace included.
const maxPolicySize = 20480

// policyTarget resolves a ResourceArn (a table or one of its streams) of the
// caller's scope to its table and the key of its policy.
func (s *Service) policyTarget(ctx context.Context, scope, arn string) (*tableMeta, string, error) {
	if !strings.HasPrefix(arn, "arn:") {
		return nil, "", invalid("ARNs must start with 'arn:': %s", arn)
	}
	arnScope, account, res, ok := access.SplitARN(arn)
	if !ok {
		return nil, "", invalid("Provided Arn is not a DynamoDB resource arn: %s", arn)
	}
	rest := strings.Split(res, "/")
	if rest[0] != "table" || len(rest) < 2 || rest[1] == "" || (len(rest) != 2 && (len(rest) != 4 || rest[2] != "stream")) {
		return nil, "", invalid("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", arn)
	}
	if !access.SameAccount(scope, account) {
		return nil, "", ddb.Errorf(ddb.ValidationException, "This action is only supported by accounts that match the resource owner’s account.")
	}
	if arnScope != scope {
		return nil, "", invalid("Invalid resource Arn: %s", arn)
	}
	// Policy management is not itself policed, so that a policy denying
	// everyone can still be replaced.
	m, err := s.tableForControl(access.Unpoliced(ctx), scope, rest[1])
	if err != nil {
		return nil, "", err
	}
	key := ""
	if len(rest) == 4 {
		key = rest[3]
	}
	return m, key, nil
}

// policyCache keeps parsed policies by table incarnation, key and
// revision, so that a request judged against a stored policy does not
// parse its JSON again. It is safe for concurrent use.
type policyCache struct {
	mu sync.RWMutex
	m  map[policyRef]parsedPolicy
}

type policyRef struct{ table, key, revision string }

// parsedPolicy is a document and its parse; the document is compared on a
// hit, so a revision id reused after a delete never serves a stale parse.
type parsedPolicy struct {
	doc    string
	policy access.Policy
}

// maxCachedPolicies bounds the cache; past it the cache starts over.
const maxCachedPolicies = 1024

// get returns the parsed policy stored under key of m, or nil when there
// is none.
func (pc *policyCache) get(parse access.PolicyParser, m *tableMeta, key string) access.Policy {
	rp, ok := m.Policies[key]
	if !ok {
		return nil
	}
	ref := policyRef{m.ID, key, rp.Revision}
	pc.mu.RLock()
	e, ok := pc.m[ref]
	pc.mu.RUnlock()
	if ok && e.doc == rp.Document {
		return e.policy
	}
	e = parsedPolicy{doc: rp.Document, policy: parse(rp.Document)}
	pc.mu.Lock()
	if pc.m == nil || len(pc.m) >= maxCachedPolicies {
		pc.m = make(map[policyRef]parsedPolicy)
	}
	pc.m[ref] = e
	pc.mu.Unlock()
	return e.policy
}

// currentStream reports whether a policy key names m itself or its current
// stream: only those can take a new policy (an old stream's is only read).
func (m *tableMeta) currentStream(key string) bool {
	return key == "" || (m.Stream != nil && key == m.StreamLabel)
}

// checkPolicy validates a policy document as far as its structure goes:
// JSON, a non-empty Statement, each with a Resource, Sids unique.
func checkPolicy(doc string) error {
	if len(doc) > maxPolicySize {
		return invalid("Maximum policy size of %d bytes exceeded", maxPolicySize)
	}
	bad := func(why string) error { return invalid("Invalid policy document: %s", why) }
	var p struct{ Statement json.RawMessage }
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		return bad("This policy contains invalid Json")
	}
	var stmts []map[string]json.RawMessage
	if raw := bytes.TrimSpace(p.Statement); len(raw) > 0 && raw[0] == '{' {
		raw = append(append([]byte{'['}, raw...), ']')
		p.Statement = raw
	}
	if len(p.Statement) == 0 || json.Unmarshal(p.Statement, &stmts) != nil || len(stmts) == 0 {
		return bad("Could not parse the policy: Statement is empty!")
	}
	sids := map[string]bool{}
	for _, st := range stmts {
		if _, ok := st["Resource"]; !ok {
			return bad("Missing required field Resource")
		}
		var sid string
		if raw, ok := st["Sid"]; ok && json.Unmarshal(raw, &sid) == nil {
			if sids[sid] {
				return bad("The Statement Ids in the policy are not unique")
			}
			sids[sid] = true
		}
	}
	return nil
}

// nextRevision returns a revision id for a policy stored at nanos that
// differs from prev: epoch milliseconds, as DynamoDB's look.
func nextRevision(nanos int64, prev string) string {
	r := nanos / 1e6
	if p, err := strconv.ParseInt(prev, 10, 64); err == nil && r <= p {
		r = p + 1
	}
	return strconv.FormatInt(r, 10)
}

// policyMismatch is the PolicyNotFoundException of an ExpectedRevisionId
// that does not match.
func policyMismatch(arn, table, expected string, cur *resourcePolicy) error {
	switch {
	case cur == nil:
		return ddb.Errorf(ddb.PolicyNotFoundException, "Resource-based policy not found for the provided ResourceArn: %s", arn)
	case expected == "NO_POLICY":
		return ddb.Errorf(ddb.PolicyNotFoundException, "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table %s, but a policy exists with revision id %s.", table, cur.Revision)
	}
	return ddb.Errorf(ddb.PolicyNotFoundException, "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id %s, but the policy associated to target table %s has revision id %s.", expected, table, cur.Revision)
}

// createPolicy validates and stores CreateTable's ResourcePolicy, if any.
func (m *tableMeta) createPolicy(doc string) error {
	if doc == "" {
		return nil
	}
	if err := checkPolicy(doc); err != nil {
		return err
	}
	m.Policies = map[string]resourcePolicy{"": {Document: doc, Revision: nextRevision(m.Created, "")}}
	return nil
}

// PutResourcePolicy attaches a policy to a table or stream, replacing any.
func (s *Service) PutResourcePolicy(ctx context.Context, region string, in *ddb.PutResourcePolicyInput) (*ddb.ResourcePolicyOutput, error) {
	m, key, err := s.policyTarget(ctx, region, in.ResourceArn)
	if err != nil {
		return nil, err
	}
	if !m.currentStream(key) {
		return nil, ddb.NotFound("%s", in.ResourceArn)
	}
	if err := checkPolicy(in.Policy); err != nil {
		return nil, err
	}
	var rev string
	err = s.setPolicy(ctx, m, key, func(cur, next *tableMeta) error {
		if !cur.currentStream(key) {
			return ddb.NotFound("%s", in.ResourceArn)
		}
		var old *resourcePolicy
		if p, ok := cur.Policies[key]; ok {
			old = &p
		}
		switch e := in.ExpectedRevisionId; {
		case e == "":
		case e == "NO_POLICY" && old != nil, e != "NO_POLICY" && (old == nil || old.Revision != e):
			return policyMismatch(in.ResourceArn, cur.Name, e, old)
		}
		prev := ""
		if old != nil {
			prev = old.Revision
		}
		p := resourcePolicy{Document: in.Policy, Revision: nextRevision(s.now().UnixNano(), prev)}
		rev = p.Revision
		if next.Policies == nil {
			next.Policies = map[string]resourcePolicy{}
		}
		next.Policies[key] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &ddb.ResourcePolicyOutput{RevisionId: rev}, nil
}

// setPolicy runs change, which edits next's policies from cur's, as a
// read-modify-write of m's definition (changeTable). A multi-account
// global table's replication then follows what its policies allow
// (replica_authorize.go).
func (s *Service) setPolicy(ctx context.Context, m *tableMeta, key string, change func(cur, next *tableMeta) error) error {
	next, err := s.changeTable(ctx, m, ddb.NotFound("Table: %s not found", m.Name),
		func(_ *store.Tx, cur, next *tableMeta) error { return change(cur, next) })
	if err == nil && next.multiAccount() {
		s.reauthorize(next)
	}
	return err
}

// storedPolicy returns the policy an ARN names with its table and key, or
// PolicyNotFoundException when there is none.
func (s *Service) storedPolicy(ctx context.Context, scope, arn string) (*tableMeta, string, resourcePolicy, error) {
	m, key, err := s.policyTarget(ctx, scope, arn)
	if err != nil {
		return nil, "", resourcePolicy{}, err
	}
	p, ok := m.Policies[key]
	if !ok {
		return nil, "", p, policyMismatch(arn, m.Name, "", nil)
	}
	return m, key, p, nil
}

// GetResourcePolicy returns the policy of a table or stream.
func (s *Service) GetResourcePolicy(ctx context.Context, region string, in *ddb.ResourceArnInput) (*ddb.ResourcePolicyOutput, error) {
	_, _, p, err := s.storedPolicy(ctx, region, in.ResourceArn)
	if err != nil {
		return nil, err
	}
	return &ddb.ResourcePolicyOutput{Policy: p.Document, RevisionId: p.Revision}, nil
}

// DeleteResourcePolicy removes the policy of a table or stream and returns
// the revision it had.
func (s *Service) DeleteResourcePolicy(ctx context.Context, region string, in *ddb.DeleteResourcePolicyInput) (*ddb.ResourcePolicyOutput, error) {
	m, key, _, err := s.storedPolicy(ctx, region, in.ResourceArn)
	if err != nil {
		return nil, err
	}
	var rev string
	err = s.setPolicy(ctx, m, key, func(cur, next *tableMeta) error {
		p, ok := cur.Policies[key]
		if !ok {
			return policyMismatch(in.ResourceArn, cur.Name, "", nil)
		}
		if e := in.ExpectedRevisionId; e != "" && e != p.Revision {
			return policyMismatch(in.ResourceArn, cur.Name, e, &p)
		}
		rev = p.Revision
		delete(next.Policies, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &ddb.ResourcePolicyOutput{RevisionId: rev}, nil
}
