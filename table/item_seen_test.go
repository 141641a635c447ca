package table

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// TestDecideReusesAdmission checks that decide takes the old and new items
// admission computed (mu.seen) only while the stored item is the one
// admission read, and reads and computes them afresh otherwise.
func TestDecideReusesAdmission(t *testing.T) {
	stored := attr.Item{"pk": attr.String("k"), "v": attr.String("1")}
	changed := attr.Item{"pk": attr.String("k"), "v": attr.String("2")}
	raw := attr.AppendBinary(nil, stored)
	fresh := func(old attr.Item) (attr.Item, error) {
		return attr.Item{"pk": attr.String("k"), "v": attr.String("fresh from " + old["v"].S)}, nil
	}
	admitted := attr.Item{"pk": attr.String("k"), "v": attr.String("as admitted")}
	for _, tc := range []struct {
		name    string
		now     []byte // the stored bytes when the commit runs
		seen    *seenItem
		wantOld string
		wantNew string
		wantErr bool
	}{
		{"unchanged: reused", raw, &seenItem{raw: raw, old: stored, next: admitted}, "1", "as admitted", false},
		{"changed: afresh", attr.AppendBinary(nil, changed), &seenItem{raw: raw, old: stored, next: admitted}, "2", "fresh from 2", false},
		{"created since: afresh", raw, &seenItem{raw: nil, next: admitted}, "1", "fresh from 1", false},
		{"no admission", raw, nil, "1", "fresh from 1", false},
		{"admission's error kept", raw, &seenItem{raw: raw, old: stored, nextErr: errors.New("bad update")}, "1", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu := &mutation{meta: &tableMeta{}, key: []byte("k"), next: fresh, seen: tc.seen}
			w := written{collection: -1}
			err := mu.decide(tc.now, &w)
			if (err != nil) != tc.wantErr {
				t.Fatalf("decide: got error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got := w.old["v"].S; got != tc.wantOld {
				t.Errorf("old v: got %q, want %q", got, tc.wantOld)
			}
			if got := w.new["v"].S; got != tc.wantNew {
				t.Errorf("new v: got %q, want %q", got, tc.wantNew)
			}
		})
	}
}
