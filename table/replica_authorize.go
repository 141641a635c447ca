package table

import (
	"context"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// Multi-account global tables replicate by DynamoDB's replication service
// principal, which each replica's resource-based policy must allow
// ("DynamoDB global tables security", multi-account): dynamodb:
// ReadDataForReplication, WriteDataForReplication and ReplicateSettings,
// granted to every replica of the global table, itself included, which
// the policy names by the source context keys aws:SourceAccount and
// aws:SourceArn. A new replica is refused unless every replica, the new one
// with the policy of its CreateTable, grants all three to every other, and
// unless every existing replica's policy lets the caller's account perform
// dynamodb:AssociateTableReplica. Afterwards, a replica whose policy stops
// granting ReadDataForReplication or WriteDataForReplication to any member
// is REPLICATION_NOT_AUTHORIZED, and replication to and from it stops until
// the policy grants them again, or for 20 hours (on the server's clock),
// after which it leaves the global table as a regional table; UpdateTable
// on any replica is refused while a replica does not grant
// ReplicateSettings. All of it applies when
// resource-based policies are enforced (--credentials); the messages are
// ddblocal's, the service documents none.

// replicationPrincipal is the service principal that replicates
// multi-account global tables.
const replicationPrincipal = "replication.dynamodb.amazonaws.com"

// notAuthorizedLimit is how long a replica stays REPLICATION_NOT_AUTHORIZED
// before it is converted to a regional table.
const notAuthorizedLimit = 20 * time.Hour

// denial is a table the replication service may not replicate: since when
// (Unix nanoseconds), and where it is.
type denial struct {
	since       int64
	scope, name string
}

// replicationMember is a replica of a multi-account global table as the
// replication service sees it: its ARN and account, and its resource-based
// policy (nil: none, which grants nothing).
type replicationMember struct {
	arn, account string
	policy       access.Policy
}

// memberOf is m as a replicationMember.
func (s *Service) memberOf(m *tableMeta) replicationMember {
	account, _ := access.SplitScope(m.Region)
	return replicationMember{arn: m.arn(), account: account, policy: s.policies.get(s.opts.Policies, m, "")}
}

// grants reports whether y's policy lets the replication service perform
// action on y for x.
func (y replicationMember) grants(x replicationMember, action string) bool {
	if y.policy == nil {
		return false
	}
	c := access.Caller{Account: x.account, Operation: action, Service: replicationPrincipal, SourceArn: x.arn}
	return y.policy.Evaluate(c, y.arn) == access.PolicyAllowed
}

// missingGrant returns the first of actions some member of members does
// not grant some member (itself included), as an AccessDeniedException;
// nil when all are granted.
func missingGrant(members []replicationMember, actions ...string) error {
	for _, y := range members {
		for _, x := range members {
			for _, a := range actions {
				if !y.grants(x, a) {
					return ddb.Errorf(ddb.AccessDeniedException, "User: %s is not authorized to perform: dynamodb:%s on resource: %s because no resource-based policy allows the dynamodb:%s action for aws:SourceArn %s",
						replicationPrincipal, a, y.arn, a, x.arn)
				}
			}
		}
	}
	return nil
}

// groupMembers returns the tables of m's global table that exist: m first,
// then its replicas in m's order.
func (s *Service) groupMembers(m *tableMeta) []*tableMeta {
	out := []*tableMeta{m}
	for _, r := range m.Replicas {
		if r.Status == replicaDeleting {
			continue
		}
		if o, err := s.catalog.get(s.db, memberScope(m, r.Region), m.Name); err == nil && o != nil {
			out = append(out, o)
		}
	}
	return out
}

// checkJoin checks, when policies are enforced, that a replica of src's
// global table may be created in scope with the resource-based policy doc
// (CreateTable's ResourcePolicy): the caller (from ctx) is allowed
// dynamodb:AssociateTableReplica by every member in another account, and
// every member, the new one included, grants the replication service all
// three actions for every other.
func (s *Service) checkJoin(ctx context.Context, scope string, src *tableMeta, doc string) error {
	if s.opts.Policies == nil {
		return nil
	}
	if doc != "" {
		if err := checkPolicy(doc); err != nil {
			return err
		}
	}
	tables := s.groupMembers(src)
	if c, ok := s.callerOf(ctx); ok {
		c.Operation = "AssociateTableReplica"
		for _, m := range tables {
			if owner, _ := access.SplitScope(m.Region); access.SameAccount(scope, owner) {
				continue
			}
			switch p := s.policies.get(s.opts.Policies, m, ""); {
			case p != nil && p.Evaluate(c, m.arn()) == access.PolicyDenied:
				return ddb.Errorf(ddb.AccessDeniedException, "%s with an explicit deny in a resource-based policy", notAuthorized(c, m.arn()))
			case p == nil || p.Evaluate(c, m.arn()) != access.PolicyAllowed:
				return denyCross(c, m.arn())
			}
		}
	}
	members := make([]replicationMember, 0, len(tables)+1)
	for _, m := range tables {
		members = append(members, s.memberOf(m))
	}
	account, _ := access.SplitScope(scope)
	joining := replicationMember{arn: (&tableMeta{Region: scope, Name: src.Name}).arn(), account: account}
	if doc != "" {
		joining.policy = s.opts.Policies(doc)
	}
	return missingGrant(append(members, joining), "ReadDataForReplication", "WriteDataForReplication", "ReplicateSettings")
}

// checkReplicateSettings refuses an UpdateTable of a replica of a
// multi-account global table while some replica does not grant the
// replication service ReplicateSettings for every other.
func (s *Service) checkReplicateSettings(m *tableMeta) error {
	if s.opts.Policies == nil || !m.multiAccount() {
		return nil
	}
	var members []replicationMember
	for _, t := range s.groupMembers(m) {
		members = append(members, s.memberOf(t))
	}
	return missingGrant(members, "ReplicateSettings")
}

// unauthorized returns the table space ids of the tables of a
// multi-account global table whose policy does not grant the replication
// service ReadDataForReplication and WriteDataForReplication for every
// one of them.
func (s *Service) unauthorized(tables []*tableMeta) map[string]bool {
	members := make([]replicationMember, len(tables))
	for i, t := range tables {
		members[i] = s.memberOf(t)
	}
	out := map[string]bool{}
	for i, y := range members {
		for _, x := range members {
			if !y.grants(x, "ReadDataForReplication") || !y.grants(x, "WriteDataForReplication") {
				out[tables[i].ID] = true
				break
			}
		}
	}
	return out
}

// reauthorize records which members of m's global table the replication
// service may not replicate, and since when (on the server's clock), and
// holds every link to or from them; links it no longer denies resume
// unless their Region is paused. The time is kept in each member's
// definition (recordDenials), so that a restart, or another front-end,
// finds it again.
func (s *Service) reauthorize(m *tableMeta) {
	if s.opts.Policies == nil || !m.multiAccount() {
		return
	}
	tables := s.groupMembers(m)
	denied := s.unauthorized(tables)
	now := s.now().UnixNano()
	if deniedChanged(tables, denied) {
		g, err := s.changeGroup(s.bg, m, func(g *group) error { return s.recordDenials(g, denied, now) })
		switch {
		case err == nil:
			tables = g.members
		case s.opts.Logger != nil:
			s.opts.Logger.Error("replication: recording a replica's authorization", "table", m.Name, "err", err)
		}
	}
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	for _, t := range tables {
		_, was := s.replicas.denied[t.ID]
		switch since := t.global().NotAuthorizedSince; {
		case !denied[t.ID]:
			delete(s.replicas.denied, t.ID)
		case since != 0:
			s.replicas.denied[t.ID] = denial{since: since, scope: t.Region, name: t.Name}
		case !was: // its definition could not be written
			s.replicas.denied[t.ID] = denial{since: now, scope: t.Region, name: t.Name}
		}
	}
	s.replicas.applyHolds()
}

// deniedChanged reports whether the tables' recorded NotAuthorizedSince
// disagrees with denied (table space ids) anywhere.
func deniedChanged(tables []*tableMeta, denied map[string]bool) bool {
	for _, t := range tables {
		if denied[t.ID] != (t.global().NotAuthorizedSince != 0) {
			return true
		}
	}
	return false
}

// recordDenials is reauthorize's transaction: every member of g found
// not authorized (denied) and not yet recorded so is recorded since now,
// and every member authorized again is cleared.
func (s *Service) recordDenials(g *group, denied map[string]bool, now int64) error {
	for _, mem := range g.members {
		gs := mem.global()
		switch {
		case denied[mem.ID] && gs.NotAuthorizedSince == 0:
			gs.NotAuthorizedSince = now
		case !denied[mem.ID] && gs.NotAuthorizedSince != 0:
			gs.NotAuthorizedSince = 0
		default:
			continue
		}
		mem.Global = &gs
		if err := s.put(g, mem); err != nil {
			return err
		}
	}
	return nil
}

// describeDenied describes m's multi-account replica r as
// REPLICATION_NOT_AUTHORIZED, with the time it was first found so, when
// the replication service may not replicate to or from it.
func (s *Service) describeDenied(rd *ddb.ReplicaDescription, m *tableMeta, r replicaMeta) {
	t, err := s.catalog.get(s.db, memberScope(m, r.Region), m.Name)
	if err != nil || t == nil {
		return
	}
	s.replicas.mu.Lock()
	d, denied := s.replicas.denied[t.ID]
	s.replicas.mu.Unlock()
	if denied {
		at := epochSeconds(d.since)
		rd.ReplicaStatus, rd.ReplicaInaccessibleDateTime = "REPLICATION_NOT_AUTHORIZED", &at
	}
}

// convertUnauthorized takes every replica the replication service has not
// been authorized for during notAuthorizedLimit out of its global table,
// a regional table with its items, as the service converts it (a chore of
// the maintenance list). The policies are judged again first.
func (s *Service) convertUnauthorized(ctx context.Context) error {
	now := s.now().UnixNano()
	s.replicas.mu.Lock()
	var due []denial
	for _, d := range s.replicas.denied {
		if now-d.since >= notAuthorizedLimit.Nanoseconds() {
			due = append(due, d)
		}
	}
	s.replicas.mu.Unlock()
	for _, d := range due {
		t, err := s.catalog.get(s.db, d.scope, d.name)
		if err != nil {
			return err
		}
		if t == nil || !t.multiAccount() {
			continue
		}
		s.reauthorize(t)
		s.replicas.mu.Lock()
		cur, still := s.replicas.denied[t.ID]
		s.replicas.mu.Unlock()
		if !still || now-cur.since < notAuthorizedLimit.Nanoseconds() {
			continue
		}
		if err := s.leaveGroup(ctx, t, now); err != nil {
			return err
		}
	}
	return nil
}
