package api

import (
	"strings"
	"testing"
)

func TestJSONDepth(t *testing.T) {
	for _, tc := range []struct {
		body string
		want int
	}{
		{``, 0},
		{`{}`, 1},
		{`{"a":[{"b":{}}]}`, 4},
		{`{"a":"{[{[", "b":{}}`, 2},
		{`{"a":"\"{{{\\", "b":[]}`, 2},
		{`{"a":` + strings.Repeat(`{"M":{"n":`, 62) + `{"S":"x"}` + strings.Repeat(`}}`, 62) + `}`, 126},
		{`{"a":` + strings.Repeat(`{"L":[`, 63) + `{"S":"x"}` + strings.Repeat(`]}`, 63) + `}`, 128},
	} {
		if got := jsonDepth([]byte(tc.body)); got != tc.want {
			t.Errorf("%.40s: depth %d, want %d", tc.body, got, tc.want)
		}
	}
}
