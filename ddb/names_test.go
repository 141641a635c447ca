package ddb

import (
	"strings"
	"testing"
)

func TestTableNameOrARN(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"abc", true},
		{"A.b-c_9", true},
		{"ab", false},
		{"", false},
		{strings.Repeat("a", 255), true},
		{strings.Repeat("a", 256), false},
		{"bad!name", false},
		{"has space", false},
		{"arn:aws:dynamodb:us-east-1:000000000000:table/T", true},
	}
	for _, tt := range tests {
		if got := TableNameOrARN(tt.in); got != tt.want {
			t.Errorf("TableNameOrARN(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
