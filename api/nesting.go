package api

import (
	"errors"
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/api/internal/validate"
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/table"
)

// Deep requests. A request holding a value nested past DynamoDB's limit is
// refused while it is decoded (attr), before anything else is looked at.
// DynamoDB reads such a request whole and checks it in its own order, so
// that another problem of the request may be reported instead
// (paritysuite/dynamodb-conformance's deepRequests, nestingDepth and
// transactions captures, us-east-1 and eu-west-2 and eight more Regions
// for the transactions, October 2026):
//
//   - every operation first checks its members' constraints (the
//     validator's "N validation errors detected"; a ConditionalOperator
//     outside its enum in the newer form below 128 JSON levels, see
//     newerConditionalOperator, and in the older one from there);
//   - TransactWriteItems then checks its actions one at a time, in request
//     order, as table.CheckTransactWriteItems does, the nesting of each
//     action among them;
//   - PutItem, UpdateItem and DeleteItem refuse the value inside the
//     envelope (enveloped), unless the request nests 128 JSON levels or
//     more (a value of about 62 containers): the service then reads it
//     with an older reader, which checks DeleteItem's and PutItem's
//     ReturnValues in its own words first, and refuses an item or key
//     bare and an ExpressionAttributeValues member naming it.
//
// The request is decoded again for this with the values' bound raised to
// attr.MaxDecodeDepth (so no body can exhaust the stack), only to find the
// error: it is never run. A request the fast decoder cannot read keeps the
// decoding's answer.

// olderReaderDepth is the JSON nesting (the body's object counting 1) from
// which DynamoDB reads a single-item request with its older reader: a
// PutItem item nested 61 containers deep (125 levels) is refused in the
// envelope, one nested 63 (129 levels) bare, and a transaction's value of
// 61 containers (128 levels) is named in every Region.
const olderReaderDepth = 128

// deepOrder reports what the service reports first for a request whose
// values may nest up to attr.MaxDecodeDepth containers, which passed its
// member constraints; older says whether the service reads it with its
// older reader. nil means the nesting itself.
type deepOrder[In any] func(in *In, older bool) error

// deepError answers a request whose decoding failed with err: err itself
// unless it is a value nested too deeply and order finds what DynamoDB
// reports first.
func deepError[In any](r *Request, err error, order deepOrder[In]) error {
	if !errors.Is(err, attr.ErrNesting) {
		return err
	}
	fd := r.fd
	if fd == nil {
		fd = new(codec.Decoder)
	}
	in := new(In)
	if !fd.DecodeDeep(r.Body, in) {
		return err
	}
	vd := r.vd
	if vd == nil {
		vd = new(validate.Validator)
	}
	older := jsonDepth(r.Body) >= olderReaderDepth
	if verr := vd.ValidateBody(in, r.Body); verr != nil {
		if !older {
			verr = newerConditionalOperator(in, newerReturnValues(in, verr))
		}
		return verr
	}
	if oerr := order(in, older); oerr != nil {
		return oerr
	}
	return err
}

// jsonDepth is how deeply b's objects and arrays nest, b's own counting 1.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// transactOrder: TransactWriteItems checks its actions in order.
func transactOrder(svc *table.Service) deepOrder[ddb.TransactWriteItemsInput] {
	return func(in *ddb.TransactWriteItemsInput, _ bool) error {
		return svc.CheckTransactWriteItems(in)
	}
}

// putOrder, updateOrder and deleteOrder: the older reader's checks (see
// above); the newer one refuses the nesting in the envelope.
func putOrder(in *ddb.PutItemInput, older bool) error {
	if !older {
		return nil
	}
	if err := ddb.CheckOldReturnValues(in.ReturnValues); err != nil {
		return err
	}
	return olderNesting(in.WriteParams, in.Item)
}

func updateOrder(in *ddb.UpdateItemInput, older bool) error {
	if !older {
		return nil
	}
	return olderNesting(in.WriteParams, in.Key)
}

func deleteOrder(in *ddb.DeleteItemInput, older bool) error {
	if !older {
		return nil
	}
	if err := ddb.CheckOldReturnValues(in.ReturnValues); err != nil {
		return err
	}
	return olderNesting(in.WriteParams, in.Key)
}

// olderNesting is the older reader's refusal of p's values or item (an
// item, or a key, or an Expected value) nested too deeply: an
// ExpressionAttributeValues member by name, anything else bare. The
// service's words are recorded for a PutItem item and an UpdateItem value;
// the others follow them.
func olderNesting(p ddb.WriteParams, item attr.Item) error {
	for _, k := range slices.Sorted(maps.Keys(p.ExpressionAttributeValues)) {
		if p.ExpressionAttributeValues[k].Depth() > attr.MaxNestingDepth {
			return ddb.NestedValueError(k)
		}
	}
	deep := item.Depth() > attr.MaxNestingDepth
	for _, e := range p.Expected {
		deep = deep || (e.Value != nil && e.Value.Depth() > attr.MaxNestingDepth)
		for _, v := range e.AttributeValueList {
			deep = deep || v.Depth() > attr.MaxNestingDepth
		}
	}
	if deep {
		return ddb.NestingError()
	}
	return nil
}
