package expressions

import (
	"fmt"
	"testing"
)

func TestKeyCondition(t *testing.T) {
	tests := []struct {
		src            string
		partition, srt []string
		want           string // fmt of Partition/Sort ops, or the error message
	}{
		{"pk = :s", []string{"pk"}, nil, "[pk = 1] []"},
		{"pk = :s AND sk > :n", []string{"pk"}, []string{"sk"}, "[pk = 1] [sk > 1]"},
		{":n <= sk AND pk = :s", []string{"pk"}, []string{"sk"}, "[pk = 1] [sk >= 1]"},
		{"pk = :s AND sk BETWEEN :one AND :n", []string{"pk"}, []string{"sk"}, "[pk = 1] [sk BETWEEN 2]"},
		{"pk = :s AND begins_with(sk, :ab)", []string{"pk"}, []string{"sk"}, "[pk = 1] [sk begins_with 1]"},
		{"(pk = :s) AND (sk = :s)", []string{"pk"}, []string{"sk"}, "[pk = 1] [sk = 1]"},
		{"p1 = :s AND p2 = :n AND s1 = :s AND s2 < :n", []string{"p1", "p2"}, []string{"s1", "s2", "s3"}, "[p1 = 1 p2 = 1] [s1 = 1 s2 < 1]"},
		{"sk = :s", []string{"pk"}, []string{"sk"}, "Query condition missed key schema element: pk"},
		{"pk = :s OR sk = :s", []string{"pk"}, []string{"sk"}, "Invalid operator used in KeyConditionExpression: OR"},
		{"NOT pk = :s", []string{"pk"}, nil, "Invalid operator used in KeyConditionExpression: NOT"},
		{"pk IN (:s)", []string{"pk"}, nil, "Invalid operator used in KeyConditionExpression: IN"},
		{"pk = :s AND attribute_exists(sk)", []string{"pk"}, []string{"sk"}, "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"pk = :s AND sk <> :s", []string{"pk"}, []string{"sk"}, "Invalid operator used in KeyConditionExpression: <>"},
		{"pk = :s AND pk = :s", []string{"pk"}, nil, "KeyConditionExpressions must only contain one condition per key"},
		{"pk > :s", []string{"pk"}, nil, "Query key condition not supported"},
		{"pk = :s AND extra = :s", []string{"pk"}, nil, "Query key condition not supported"},
		{"pk = :s AND extra = :s", []string{"pk"}, []string{"sk"}, "Query condition missed key schema element: sk"},
		{"pk = sk", []string{"pk"}, []string{"sk"}, "Query key condition not supported"},
		{"pk.x = :s", []string{"pk"}, nil, "Query key condition not supported"},
		{"p1 = :s AND s2 = :s", []string{"p1"}, []string{"s1", "s2"}, "RANGE key attributes s1 must have equality conditions specified in the query because a condition is present on key attribute s2"},
		{"p1 = :s AND s1 > :s AND s2 = :s", []string{"p1"}, []string{"s1", "s2"}, "RANGE key attributes s1 must have equality conditions specified in the query because a condition is present on key attribute s2"},
		{"p1 = :s AND s1 = :s AND s3 = :s", []string{"p1"}, []string{"s1", "s2", "s3"}, "RANGE key attributes s2 must have equality conditions specified in the query because a condition is present on key attribute s3"},
		{"p1 = :s AND s3 = :s", []string{"p1"}, []string{"s1", "s2", "s3"}, "RANGE key attributes s1, s2 must have equality conditions specified in the query because a condition is present on key attribute s3"},
		{"p1 = :s AND s3 = :s AND extra = :s", []string{"p1"}, []string{"s1", "s2", "s3"}, "RANGE key attributes s1, s2 must have equality conditions specified in the query because a condition is present on key attribute s3"},
		{"p1 = :s AND s1 = :s AND s2 > :s", []string{"p1"}, []string{"s1", "s2", "s3"}, "[p1 = 1] [s1 = 1 s2 > 1]"},
	}
	for _, tt := range tests {
		c, err := compileKind(t, kindKeyCondition, tt.src)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.src, err)
		}
		kc, err := c.KeyCondition.KeyCondition(tt.partition, tt.srt)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprintf("%s %s", terms(kc.Partition), terms(kc.Sort))
		}
		if got != tt.want {
			t.Errorf("KeyCondition(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func terms(ts []KeyTerm) string {
	s := "["
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s %s %d", t.Name, t.Op, len(t.Values))
	}
	return s + "]"
}
