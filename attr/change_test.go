package attr

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecodeChange(t *testing.T) {
	a := Item{"pk": String("a"), "n": num("1")}
	a2 := Item{"pk": String("a"), "n": num("1.0")} // equal as DynamoDB compares numbers
	b := Item{"pk": String("a"), "n": num("2")}
	enc := func(it Item) []byte { return AppendBinary(nil, it) }
	tests := []struct {
		name     string
		old, new []byte
		changed  bool
		event    string
		keys     Item
	}{
		{"insert", nil, enc(a), true, "INSERT", Item{"pk": String("a")}},
		{"remove", enc(a), nil, true, "REMOVE", Item{"pk": String("a")}},
		{"modify", enc(a), enc(b), true, "MODIFY", Item{"pk": String("a")}},
		{"same bytes", enc(a), enc(a), false, "", nil},
		{"same values", enc(a), enc(a2), false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, changed, err := DecodeChange(tt.old, tt.new)
			if err != nil || changed != tt.changed {
				t.Fatalf("DecodeChange: changed %v, %v; want %v", changed, err, tt.changed)
			}
			if !changed {
				if c.Old != nil || c.New != nil {
					t.Errorf("no change: got images %v, %v", c.Old, c.New)
				}
				return
			}
			if got := c.EventName(); got != tt.event {
				t.Errorf("EventName = %s, want %s", got, tt.event)
			}
			if got := c.Keys([]string{"pk", "sk"}); !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("Keys = %v, want %v", got, tt.keys)
			}
			if (tt.old == nil) != (c.Old == nil) || (tt.new == nil) != (c.New == nil) {
				t.Errorf("images: got old %v new %v", c.Old, c.New)
			}
		})
	}
	if _, _, err := DecodeChange([]byte{0xff}, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt old image: got %v, want %v", err, ErrCorrupt)
	}
	if _, _, err := DecodeChange(nil, []byte{0xff}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt new image: got %v, want %v", err, ErrCorrupt)
	}
}
