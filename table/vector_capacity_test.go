package table

import "testing"

func TestVectorCapacityMinimum(t *testing.T) {
	cases := []struct {
		in   map[string]float64
		want map[string]float64
	}{
		{nil, nil},
		{map[string]float64{"b": 100, "a": 200}, map[string]float64{"a": 924, "b": 100}}, // shortfall on the first by name
		{map[string]float64{"a": 2000}, map[string]float64{"a": 2000}},
		{map[string]float64{"b": 600, "a": 600}, map[string]float64{"a": 600, "b": 600}},
	}
	for _, c := range cases {
		got := vectorCapacity(c.in)
		if len(got) != len(c.want) {
			t.Fatalf("vectorCapacity(%v) = %v, want %v", c.in, got, c.want)
		}
		for name, b := range c.want {
			if g := got[name].VectorWriteRequestBytes; g == nil || *g != b {
				t.Fatalf("vectorCapacity(%v)[%s] = %v, want %v", c.in, name, g, b)
			}
		}
	}
}
