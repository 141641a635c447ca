package faults

import (
	"errors"
	"slices"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func str(s string) attr.Value { return attr.Value{T: attr.TypeS, S: s} }
func num(s string) attr.Value { return attr.Value{T: attr.TypeN, S: s} }

func TestAddValidates(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		want error
	}{
		{"ok", Rule{Operation: "PutItem", Error: TransactionConflict}, nil},
		{"no operation", Rule{Error: TransactionConflict}, ErrNoOperation},
		{"unknown kind", Rule{Operation: "PutItem", Error: "Boom"}, ErrUnknownKind},
		{"negative count", Rule{Operation: "PutItem", Error: InternalServerError, Count: -1}, ErrBadCount},
		{"unprocessed on put", Rule{Operation: "PutItem", Error: UnprocessedItems}, ErrNotABatch},
		{"unprocessed on batch", Rule{Operation: "BatchGetItem", Error: UnprocessedItems}, nil},
		{"key without table", Rule{Operation: "PutItem", Error: ThrottlingException, Key: attr.Item{"pk": str("a")}}, ErrKeyNeedsName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Add(tt.rule)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestMatchSpendsCount(t *testing.T) {
	in := New()
	if err := in.Add(Rule{Operation: "PutItem", Error: TransactionConflict, Count: 2}); err != nil {
		t.Fatal(err)
	}
	var got []bool
	for range 3 {
		_, _, ok := in.Match("PutItem", nil)
		got = append(got, ok)
	}
	if want := []bool{true, true, false}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	rules := in.Rules()
	if len(rules) != 1 || rules[0].Count != 0 || rules[0].Hits != 2 {
		t.Fatalf("got rules %+v, want one spent rule with 2 hits", rules)
	}
	if in.Armed("PutItem") {
		t.Fatal("got Armed true after the rule was spent, want false")
	}
	in.Clear()
	if n := len(in.Rules()); n != 0 {
		t.Fatalf("got %d rules after Clear, want 0", n)
	}
}

func TestMatchTargets(t *testing.T) {
	targets := []Target{
		{Table: "A", Item: attr.Item{"pk": str("1"), "sk": num("5"), "x": str("y")}},
		{Table: "arn:aws:dynamodb:us-east-1:000000000000:table/B", Item: attr.Item{"pk": str("1")}},
		{Table: "A", Item: attr.Item{"pk": str("2")}},
	}
	tests := []struct {
		name   string
		rule   Rule
		wantOK bool
		want   []bool
	}{
		{"any", Rule{}, true, []bool{true, true, true}},
		{"table A", Rule{Table: "A"}, true, []bool{true, false, true}},
		{"table B by name matches ARN", Rule{Table: "B"}, true, []bool{false, true, false}},
		{"partition key", Rule{Table: "A", Key: attr.Item{"pk": str("1")}}, true, []bool{true, false, false}},
		{"number compares numerically", Rule{Table: "A", Key: attr.Item{"sk": num("5.0")}}, true, []bool{true, false, false}},
		{"no such item", Rule{Table: "A", Key: attr.Item{"pk": str("9")}}, false, nil},
		{"other table", Rule{Table: "C"}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := New()
			r := tt.rule
			r.Operation, r.Error = "TransactWriteItems", TransactionConflict
			if err := in.Add(r); err != nil {
				t.Fatal(err)
			}
			_, got, ok := in.Match("TransactWriteItems", targets)
			if ok != tt.wantOK || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v %v, want %v %v", ok, got, tt.wantOK, tt.want)
			}
			if _, _, ok := in.Match("PutItem", targets); ok {
				t.Fatal("got a match for another operation, want none")
			}
		})
	}
}

func TestMatchWithoutTargetsNeedsUnfilteredRule(t *testing.T) {
	in := New()
	if err := in.Add(Rule{Operation: "ListTables", Error: ThrottlingException, Table: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := in.Match("ListTables", nil); ok {
		t.Fatal("got a match for a table rule on a request without tables, want none")
	}
}
