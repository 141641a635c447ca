package streams

import (
	"slices"
	"testing"
)

func TestPage(t *testing.T) {
	arn := func(name, label string) string {
		return "arn:aws:dynamodb:us-east-1:000000000000:table/" + name + "/stream/" + label
	}
	sum := func(name, label string) Summary {
		return Summary{StreamArn: arn(name, label), TableName: name, StreamLabel: label}
	}
	all := []Summary{sum("a", "2030-01-01T00:00:00.000"), sum("a", "2030-01-02T00:00:00.000"), sum("c", "2030-01-01T00:00:00.000"),
		sum("gone", "2029-01-01T00:00:00.000")} // a deleted table's, listed last
	tests := []struct {
		name, start string
		limit       int
		want        []int // indexes into all
		last        int   // index of LastEvaluatedStreamArn, -1 for none
	}{
		{"first page", "", 2, []int{0, 1}, 1},
		{"everything", "", 100, []int{0, 1, 2, 3}, -1},
		{"exactly full", "", 4, []int{0, 1, 2, 3}, -1},
		{"after a listed stream", arn("a", "2030-01-02T00:00:00.000"), 100, []int{2, 3}, -1},
		{"after the last", arn("gone", "2029-01-01T00:00:00.000"), 100, nil, -1},
		{"unknown label of a listed table", arn("a", "2030-01-01T12:00:00.000"), 100, []int{1, 2, 3}, -1},
		{"unknown table between two", arn("b", "2030-01-01T00:00:00.000"), 1, []int{2}, 2},
		{"unknown table after every live one", arn("d", "2030-01-01T00:00:00.000"), 100, []int{3}, -1},
		{"not a stream ARN", "arn:aws:dynamodb:us-east-1:000000000000:whatever", 100, []int{0, 1, 2, 3}, -1},
	}
	for _, tt := range tests {
		out := Page(all, tt.start, tt.limit)
		var got []int
		for _, s := range out.Streams {
			got = append(got, slices.Index(all, s))
		}
		last := ""
		if tt.last >= 0 {
			last = all[tt.last].StreamArn
		}
		if !slices.Equal(got, tt.want) || out.LastEvaluatedStreamArn != last {
			t.Errorf("%s: got %v, last %q; want %v, last %q", tt.name, got, out.LastEvaluatedStreamArn, tt.want, last)
		}
	}
}
