package api

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/faults"
	"github.com/ddblocal/ddblocal/partiql"
)

// Messages of injected failures, as DynamoDB words them.
const (
	msgConflict   = "Transaction is ongoing for the item"
	msgThrottling = "Rate of requests exceeds the allowed throughput."
)

// WithFaults returns a copy of ops in which every handler first consults
// inj: a request matching an armed rule fails as the rule says instead of
// (or, for UnprocessedItems, partly instead of) being served. Requests
// that match nothing cost one mutex-guarded scan of the rules.
func WithFaults(ops map[string]Handler, inj *faults.Injector) map[string]Handler {
	out := make(map[string]Handler, len(ops))
	for op, h := range ops {
		out[op] = faulty(h, inj)
	}
	return out
}

// faulty wraps one operation's handler with the injector.
func faulty(h Handler, inj *faults.Injector) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		if !inj.Armed(r.Operation) {
			return h(ctx, r)
		}
		var p probe
		if err := json.Unmarshal(r.Body, &p); err != nil {
			return h(ctx, r) // let the operation report the bad request
		}
		targets := p.targets(r.Operation)
		rule, hit, ok := inj.Match(r.Operation, targets)
		if !ok {
			return h(ctx, r)
		}
		switch {
		case rule.Error == faults.UnprocessedItems:
			return unprocessed(ctx, h, r, rule, targets, hit)
		case r.Operation == "BatchExecuteStatement":
			return failStatements(ctx, h, r, rule.Error, hit)
		}
		return nil, injectedError(r.Operation, rule.Error, hit)
	}
}

// injectedReasons are the reasons a transaction's or a statement batch's
// matching members fail with, by kind.
var injectedReasons = map[faults.Kind]ddb.CancellationReason{
	faults.TransactionConflict:           {Code: "TransactionConflict", Message: msgConflict},
	faults.ProvisionedThroughputExceeded: ddb.ThrottledReason(true),
	faults.ThrottlingException:           ddb.ThrottledReason(false),
	faults.InternalServerError:           {Code: "InternalServerError", Message: internalMessage},
}

// failStatements serves a BatchExecuteStatement whose matching statements
// fail with kind k: as DynamoDB reports a statement's failure in a batch,
// each gets an Error in its place among the Responses, and the others run.
func failStatements(ctx context.Context, h Handler, r *Request, k faults.Kind, hit []bool) (any, error) {
	var in partiql.BatchExecuteStatementInput
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	all := in.Statements
	in.Statements = nil
	for i, st := range all {
		if !at(hit, i) {
			in.Statements = append(in.Statements, st)
		}
	}
	out := &partiql.BatchExecuteStatementOutput{}
	if len(in.Statements) > 0 {
		res, err := callWith(ctx, h, r, &in)
		if err != nil {
			return nil, err
		}
		if o, ok := res.(*partiql.BatchExecuteStatementOutput); ok {
			out = o
		}
	}
	served := out.Responses
	out.Responses = make([]partiql.BatchStatementResponse, len(all))
	reason := injectedReasons[k]
	for i := range all {
		if at(hit, i) || len(served) == 0 {
			out.Responses[i].Error = &partiql.BatchStatementError{Code: reason.Code, Message: reason.Message}
			continue
		}
		out.Responses[i], served = served[0], served[1:]
	}
	return out, nil
}

// injectedError is the error a matched rule of kind k makes op fail with.
// Transactions are cancelled, with the rule's reason on the actions it
// matched; other operations get the exception itself.
func injectedError(op string, k faults.Kind, hit []bool) error {
	if k == faults.InternalServerError {
		return &ddb.Error{Code: ddb.InternalServerError, Message: internalMessage}
	}
	if op == "TransactWriteItems" || op == "TransactGetItems" || op == "ExecuteTransaction" {
		reason := injectedReasons[k]
		reasons := make([]ddb.CancellationReason, len(hit))
		for i, h := range hit {
			reasons[i] = ddb.CancellationReason{Code: "None"}
			if h {
				reasons[i] = reason
			}
		}
		return ddb.Cancelled(reasons)
	}
	switch k {
	case faults.TransactionConflict:
		return &ddb.Error{Code: ddb.TransactionConflictException, Message: msgConflict}
	case faults.ProvisionedThroughputExceeded:
		return &ddb.Error{Code: ddb.ProvisionedThroughputExceededException, Message: ddb.ThrottledReason(true).Message}
	default:
		return &ddb.Error{Code: ddb.ThrottlingException, Message: msgThrottling}
	}
}

// unprocessed serves a batch whose matching requests are left unprocessed:
// the rest go to the operation, and the matching ones are added to its
// UnprocessedItems or UnprocessedKeys. hit is per target, in the order
// probe.targets lists them.
func unprocessed(ctx context.Context, h Handler, r *Request, rule faults.Rule, targets []faults.Target, hit []bool) (any, error) {
	if r.Operation == "BatchWriteItem" {
		var in ddb.BatchWriteItemInput
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
		keep, skip := map[string][]ddb.WriteRequest{}, map[string][]ddb.WriteRequest{}
		i := 0
		for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
			for _, wr := range in.RequestItems[name] {
				if at(hit, i) {
					skip[name] = append(skip[name], wr)
				} else {
					keep[name] = append(keep[name], wr)
				}
				i++
			}
		}
		out := &ddb.BatchWriteItemOutput{UnprocessedItems: map[string][]ddb.WriteRequest{}}
		if len(keep) > 0 {
			in.RequestItems = keep
			res, err := callWith(ctx, h, r, &in)
			if err != nil {
				return nil, err
			}
			if o, ok := res.(*ddb.BatchWriteItemOutput); ok {
				out = o
			}
		}
		for name, reqs := range skip {
			out.UnprocessedItems[name] = append(out.UnprocessedItems[name], reqs...)
		}
		return out, nil
	}
	var in ddb.BatchGetItemInput
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	keep, skip := map[string]ddb.KeysAndAttributes{}, map[string]ddb.KeysAndAttributes{}
	i := 0
	for _, name := range slices.Sorted(maps.Keys(in.RequestItems)) {
		ka := in.RequestItems[name]
		k, s := ka, ka
		k.Keys, s.Keys = nil, nil
		for _, key := range ka.Keys {
			if at(hit, i) {
				s.Keys = append(s.Keys, key)
			} else {
				k.Keys = append(k.Keys, key)
			}
			i++
		}
		if len(k.Keys) > 0 {
			keep[name] = k
		}
		if len(s.Keys) > 0 {
			skip[name] = s
		}
	}
	out := &ddb.BatchGetItemOutput{Responses: map[string][]attr.Item{}, UnprocessedKeys: map[string]ddb.KeysAndAttributes{}}
	if len(keep) > 0 {
		in.RequestItems = keep
		res, err := callWith(ctx, h, r, &in)
		if err != nil {
			return nil, err
		}
		if o, ok := res.(*ddb.BatchGetItemOutput); ok {
			out = o
		}
	}
	for name, ka := range skip {
		out.UnprocessedKeys[name] = ka
	}
	return out, nil
}

// at reports hit[i], treating requests beyond the probe's view (a body the
// probe could not read) as matched.
func at(hit []bool, i int) bool { return i >= len(hit) || hit[i] }

// callWith runs h on a copy of r whose body is in, re-encoded.
func callWith(ctx context.Context, h Handler, r *Request, in any) (any, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	r2 := *r
	r2.Body = body
	return h(ctx, &r2)
}

// probe is the part of any item operation's request that names the items it
// touches.
type probe struct {
	TableName     string
	Key           attr.Item
	Item          attr.Item
	RequestItems  map[string]json.RawMessage
	TransactItems []struct {
		ConditionCheck, Put, Delete, Update, Get *probe
	}
	// PartiQL: ExecuteStatement's statement, BatchExecuteStatement's and
	// ExecuteTransaction's lists of them.
	statementProbe
	Statements, TransactStatements []statementProbe
}

// statementProbe is one PartiQL statement with its parameters.
type statementProbe struct {
	Statement  string
	Parameters []attr.Value
}

// target is the table a statement names and the key it fixes.
func (sp statementProbe) target() faults.Target {
	name, item := partiql.Target(sp.Statement, sp.Parameters)
	return faults.Target{Table: name, Item: item}
}

// targets lists the items a request of operation op touches: one per
// transaction action or batch request, in request order (batch tables in
// name order), so that Match's hits line up with them.
func (p *probe) targets(op string) []faults.Target {
	switch {
	case len(p.TransactItems) > 0:
		ts := make([]faults.Target, len(p.TransactItems))
		for i, ti := range p.TransactItems {
			for _, a := range []*probe{ti.ConditionCheck, ti.Put, ti.Delete, ti.Update, ti.Get} {
				if a != nil {
					ts[i] = a.target()
				}
			}
		}
		return ts
	case op == "ExecuteStatement":
		return []faults.Target{p.statementProbe.target()}
	case op == "BatchExecuteStatement" || op == "ExecuteTransaction":
		sts := p.Statements
		if op == "ExecuteTransaction" {
			sts = p.TransactStatements
		}
		ts := make([]faults.Target, len(sts))
		for i, sp := range sts {
			ts[i] = sp.target()
		}
		return ts
	case op == "BatchWriteItem":
		var ts []faults.Target
		for _, name := range slices.Sorted(maps.Keys(p.RequestItems)) {
			var reqs []ddb.WriteRequest
			_ = json.Unmarshal(p.RequestItems[name], &reqs)
			for _, wr := range reqs {
				t := faults.Target{Table: name}
				switch {
				case wr.PutRequest != nil:
					t.Item, _ = wr.PutRequest.Item.Item() // a decoded Encoded is valid
				case wr.DeleteRequest != nil:
					t.Item = wr.DeleteRequest.Key
				}
				ts = append(ts, t)
			}
		}
		return ts
	case op == "BatchGetItem":
		var ts []faults.Target
		for _, name := range slices.Sorted(maps.Keys(p.RequestItems)) {
			var ka ddb.KeysAndAttributes
			_ = json.Unmarshal(p.RequestItems[name], &ka)
			for _, k := range ka.Keys {
				ts = append(ts, faults.Target{Table: name, Item: k})
			}
		}
		return ts
	case p.TableName != "":
		return []faults.Target{p.target()}
	}
	return nil
}

// target is the item a single-item request or action names.
func (p *probe) target() faults.Target {
	if p.Item != nil {
		return faults.Target{Table: p.TableName, Item: p.Item}
	}
	return faults.Target{Table: p.TableName, Item: p.Key}
}
