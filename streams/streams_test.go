package streams

import (
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
)

func TestIteratorRoundTrip(t *testing.T) {
	tests := []iterator{
		{arn: "arn:aws:dynamodb:us-east-1:000000000000:table/T/stream/2030-01-01T00:00:00.000", shard: 0, next: 1, issued: 5},
		{arn: "a|1|b", shard: 7, next: 1 << 40, issued: -3},
	}
	for _, want := range tests {
		got, ok := parseIterator(want.String())
		if !ok || got != want {
			t.Errorf("parseIterator(%q): got %+v, %v, want %+v", want.String(), got, ok, want)
		}
	}
	for _, bad := range []string{"", "x", "arn|1|", "arn|1|!!", "arn|1|AQ"} {
		if got, ok := parseIterator(bad); ok {
			t.Errorf("parseIterator(%q): got %+v, want failure", bad, got)
		}
	}
}

func FuzzParseIterator(f *testing.F) {
	f.Add(iterator{arn: "arn", shard: 2, next: 9, issued: 100}.String())
	f.Add("arn|1|AQIJyAE")
	f.Fuzz(func(t *testing.T, s string) {
		it, ok := parseIterator(s)
		if !ok {
			return
		}
		if again, ok := parseIterator(it.String()); !ok || again != it {
			t.Fatalf("re-encode of %+v: got %+v, %v", it, again, ok)
		}
	})
}

func TestSequenceNumber(t *testing.T) {
	for _, seq := range []uint64{0, 1, 42, 1<<63 - 1} {
		s := SequenceNumber(seq)
		got, ok := parseSequence(s)
		if len(s) != 21 || !ok || got != seq {
			t.Errorf("SequenceNumber(%d) = %q parses to %d, %v", seq, s, got, ok)
		}
	}
	if SequenceNumber(9) >= SequenceNumber(10) {
		t.Errorf("string order: got %q >= %q", SequenceNumber(9), SequenceNumber(10))
	}
}

func TestRollEnd(t *testing.T) {
	hour := int64(time.Hour)
	tests := []struct {
		p        Policy
		sh       Shard
		last     uint64
		now      int64
		end      uint64
		due      bool
		describe string
	}{
		{Policy{Records: 4}, Shard{After: 10, Created: 0}, 13, 0, 0, false, "three of four"},
		{Policy{Records: 4}, Shard{After: 10, Created: 0}, 20, 0, 14, true, "full: closes at exactly four"},
		{Policy{}, Shard{After: 10, Created: 0}, 20, 4*hour - 1, 0, false, "younger than four hours"},
		{Policy{}, Shard{After: 10, Created: 0}, 20, 4 * hour, 20, true, "four hours old: closes at the last"},
		{Policy{Duration: time.Hour}, Shard{After: 10, Created: 0}, 12, hour, 12, true, "custom duration"},
	}
	for _, tc := range tests {
		end, due := tc.p.rollEnd(tc.sh, tc.last, tc.now)
		if end != tc.end || due != tc.due {
			t.Errorf("%s: got %d, %v, want %d, %v", tc.describe, end, due, tc.end, tc.due)
		}
	}
}

func TestRenderSkipsNoChange(t *testing.T) {
	enc := func(it attr.Item) []byte { return attr.AppendBinarySized(nil, it, it.Size()) }
	a := enc(attr.Item{"pk": {T: attr.TypeS, S: "k"}, "n": {T: attr.TypeN, S: "1"}})
	b := enc(attr.Item{"pk": {T: attr.TypeS, S: "k"}, "n": {T: attr.TypeN, S: "1.0"}})
	c := enc(attr.Item{"pk": {T: attr.TypeS, S: "k"}, "n": {T: attr.TypeN, S: "2"}})
	s := &Stream{Label: "L", ViewType: "NEW_AND_OLD_IMAGES"}
	tests := []struct {
		old, new []byte
		expired  bool
		want     string // "" for no record
	}{
		{nil, a, false, "INSERT"},
		{a, a, false, ""},
		{a, b, false, ""},
		{a, c, false, "MODIFY"},
		{a, nil, false, "REMOVE"},
		{a, nil, true, "REMOVE"},
	}
	for i, tc := range tests {
		raw := changelog.Append(nil, changelog.Record{Time: 1, Key: []byte("k"), Old: tc.old, New: tc.new, Expired: tc.expired})
		r, ok, err := s.Render(uint64(i+1), raw, "us-east-1", []string{"pk"})
		if err != nil || ok != (tc.want != "") || r.EventName != tc.want || (r.UserIdentity != nil) != tc.expired {
			t.Errorf("case %d: got %q, %v, %v, identity %v; want %q", i, r.EventName, ok, err, r.UserIdentity, tc.want)
		}
		if ok && (len(r.Dynamodb.Keys) != 1 || r.Dynamodb.SequenceNumber != SequenceNumber(uint64(i+1))) {
			t.Errorf("case %d: keys %v, sequence %s", i, r.Dynamodb.Keys, r.Dynamodb.SequenceNumber)
		}
	}
}

func TestLambdaEventShape(t *testing.T) {
	recs := []Record{{EventID: "e", EventName: "REMOVE", EventVersion: "1.1", EventSource: "aws:dynamodb", AwsRegion: "us-east-1",
		Dynamodb: StreamRecord{ApproximateCreationDateTime: 1893456000, Keys: attr.Item{"pk": {T: attr.TypeS, S: "k"}},
			SequenceNumber: SequenceNumber(3), SizeBytes: 3, StreamViewType: "KEYS_ONLY"},
		UserIdentity: &UserIdentity{PrincipalID: "dynamodb.amazonaws.com", Type: "Service"}}}
	got, err := LambdaEvent("arn:s", recs)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Records":[{"eventID":"e","eventName":"REMOVE","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",` +
		`"dynamodb":{"ApproximateCreationDateTime":1893456000,"Keys":{"pk":{"S":"k"}},"SequenceNumber":"100000000000000000003","SizeBytes":3,"StreamViewType":"KEYS_ONLY"},` +
		`"eventSourceARN":"arn:s","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}}]}`
	if string(got) != want {
		t.Errorf("LambdaEvent:\n got %s\nwant %s", got, want)
	}
}
