package partiql

import (
	"errors"
	"testing"
)

func TestLocate(t *testing.T) {
	src := "SELECT *\nFROM \"Ta b\" WHERE é = fn(x)"
	tests := []struct {
		err  error
		want string
	}{
		{locErr(0, 6, "m"), "m at 1:1:6"},
		{locErr(9, -1, "m"), "m at 2:1:4"},    // FROM: a bare word
		{locErr(14, -1, "m"), "m at 2:6:6"},   // "Ta b": quoted, quotes counted
		{locErr(32, -1, "m"), "m at 2:23:2"},  // fn, after a two-byte é counted once
		{semErr(14, "plain"), "plain"},        // not located
		{locErr(-1, 3, "nowhere"), "nowhere"}, // no position
		{errors.New("other"), "other"},        // not a statement error
	}
	for _, tt := range tests {
		if got := locate(tt.err, src).Error(); got != tt.want {
			t.Errorf("locate(%v): got %q, want %q", tt.err, got, tt.want)
		}
	}
	if locate(nil, src) != nil {
		t.Error("locate(nil) is not nil")
	}
}
