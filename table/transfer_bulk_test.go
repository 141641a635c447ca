package table

import "testing"

// TestTierWorkers: an ACCELERATED load decodes on every core (0), a
// STANDARD one, and one that named no tier (recorded STANDARD), on one
// goroutine.
func TestTierWorkers(t *testing.T) {
	for _, c := range []struct {
		tier string
		want int
	}{{"ACCELERATED", 0}, {"STANDARD", 1}, {"", 1}} {
		if got := tierWorkers(c.tier); got != c.want {
			t.Errorf("tierWorkers(%q) = %d, want %d", c.tier, got, c.want)
		}
	}
}
