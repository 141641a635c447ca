package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestManualMoves(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Manual(start)
	var seen []time.Time
	c.OnMove(func(_ context.Context, now time.Time) error { seen = append(seen, now); return nil })
	ctx := context.Background()
	tests := []struct {
		name    string
		move    func() (time.Time, error)
		want    time.Time
		wantErr error
	}{
		{"advance", func() (time.Time, error) { return c.Advance(ctx, 49*time.Hour) }, start.Add(49 * time.Hour), nil},
		{"advance zero", func() (time.Time, error) { return c.Advance(ctx, 0) }, start.Add(49 * time.Hour), nil},
		{"negative", func() (time.Time, error) { return c.Advance(ctx, -time.Second) }, start.Add(49 * time.Hour), ErrBackward},
		{"set later", func() (time.Time, error) { return c.Set(ctx, start.Add(50*time.Hour)) }, start.Add(50 * time.Hour), nil},
		{"set earlier", func() (time.Time, error) { return c.Set(ctx, start) }, start.Add(50 * time.Hour), ErrBackward},
	}
	for _, tc := range tests {
		got, err := tc.move()
		if !errors.Is(err, tc.wantErr) || !got.Equal(tc.want) || !c.Now().Equal(tc.want) {
			t.Errorf("%s: got %v, %v (Now %v), want %v, %v", tc.name, got, err, c.Now(), tc.want, tc.wantErr)
		}
		if got, want := c.Offset(), tc.want.Sub(start); got != want {
			t.Errorf("%s: Offset got %v, want %v", tc.name, got, want)
		}
	}
	if len(seen) != 3 || !seen[2].Equal(start.Add(50*time.Hour)) {
		t.Errorf("hooks saw %v, want three moves ending at +50h", seen)
	}
}

func TestWallClockKeepsOffset(t *testing.T) {
	c := New()
	before := time.Now()
	if _, err := c.Advance(context.Background(), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := c.Now(); got.Before(before.Add(24 * time.Hour)) {
		t.Errorf("Now after advancing 24h: got %v, want at least %v", got, before.Add(24*time.Hour))
	}
}

func TestHookErrorStillMoves(t *testing.T) {
	c := Manual(time.Unix(0, 0))
	boom := errors.New("boom")
	ran := false
	c.OnMove(func(context.Context, time.Time) error { return boom })
	c.OnMove(func(context.Context, time.Time) error { ran = true; return nil })
	got, err := c.Advance(context.Background(), time.Hour)
	if !errors.Is(err, boom) || !ran || !got.Equal(time.Unix(3600, 0)) {
		t.Errorf("got %v, %v, ran=%v; want +1h, boom, true", got, err, ran)
	}
}
