package changelog

import (
	"bytes"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := []Record{
		{Time: 1, Key: []byte("k"), New: []byte("new")},
		{Time: -5, Key: []byte("k"), Old: []byte("old")},
		{Time: 1 << 60, Key: []byte{}, Old: []byte{}, New: []byte("x")},
		{Time: 7, Key: []byte("k"), Old: []byte("old"), Expired: true},
		{Time: 9, Key: []byte("k"), New: []byte("n"), Origin: "us-east-1", OriginTime: 8},
		{Time: 9, Key: []byte("k"), Old: []byte("o"), Origin: "eu-west-1", OriginTime: -1, Expired: true},
	}
	for _, want := range tests {
		got, err := Decode(Append(nil, want))
		if err != nil {
			t.Fatalf("Decode(%+v): %v", want, err)
		}
		if got.Time != want.Time || got.Expired != want.Expired || got.Origin != want.Origin || got.OriginTime != want.OriginTime || !bytes.Equal(got.Key, want.Key) || !bytes.Equal(got.Old, want.Old) || !bytes.Equal(got.New, want.New) ||
			(got.Old == nil) != (want.Old == nil) || (got.New == nil) != (want.New == nil) {
			t.Errorf("round trip: got %+v, want %+v", got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, Record{Time: 3, Key: []byte("a"), New: []byte("b")}))
	f.Add([]byte{1, 0, 5})
	f.Add(Append(nil, Record{Time: 3, Key: []byte("a"), Old: []byte("b"), Origin: "r", OriginTime: 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		// Overlong varints decode too, so compare records, not bytes.
		again, err := Decode(Append(nil, r))
		if err != nil || again.Time != r.Time || again.Expired != r.Expired || again.Origin != r.Origin || again.OriginTime != r.OriginTime || !bytes.Equal(again.Key, r.Key) || !bytes.Equal(again.Old, r.Old) || !bytes.Equal(again.New, r.New) {
			t.Fatalf("re-encode of %+v: got %+v, %v", r, again, err)
		}
	})
}

func TestPlainRecordKeepsVersionOne(t *testing.T) {
	got := Append(nil, Record{Time: 1, Key: []byte("k")})
	if got[0] != version {
		t.Errorf("first byte of a record without flags: got %d, want %d", got[0], version)
	}
	got = Append(nil, Record{Time: 1, Key: []byte("k"), Expired: true})
	if got[0] != versionFlags || got[1] != flagExpired {
		t.Errorf("first bytes of an expired record: got %v, want [%d %d]", got[:2], versionFlags, flagExpired)
	}
}

func TestDecodeRejectsBadOrigin(t *testing.T) {
	good := Append(nil, Record{Time: 1, Key: []byte("k"), Origin: "r", OriginTime: 5})
	// good is: version, flags, time, key, old, new, origin length, origin, origin time.
	want := []byte{versionFlags, flagReplicated, 2, 2, 'k', 0, 0, 1, 'r', 10}
	if !bytes.Equal(good, want) {
		t.Fatalf("encoding: got %v, want %v", good, want)
	}
	tests := map[string][]byte{
		"empty origin":     {versionFlags, flagReplicated, 2, 2, 'k', 0, 0, 0, 10},
		"missing time":     {versionFlags, flagReplicated, 2, 2, 'k', 0, 0, 1, 'r'},
		"unknown flag":     {versionFlags, flagReplicated | 4, 2, 2, 'k', 0, 0, 1, 'r', 10},
		"origin too long":  {versionFlags, flagReplicated, 2, 2, 'k', 0, 0, 9, 'r', 10},
		"trailing garbage": {versionFlags, flagReplicated, 2, 2, 'k', 0, 0, 1, 'r', 10, 0},
	}
	for name, b := range tests {
		if r, err := Decode(b); err == nil {
			t.Errorf("%s: Decode(%v) = %+v, want an error", name, b, r)
		}
	}
}
