package attr

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// randomNumber returns a random valid number in a random (often
// non-canonical) spelling, biased towards edge cases.
func randomNumber(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return []string{"0", "-0", "1", "-1", "0.1", "-0.1", "10", "9.9", "1E125", "-1E125",
			"9.9999999999999999999999999999999999999E125", "-9.9999999999999999999999999999999999999E125",
			"1E-130", "-1E-130", "0.5", "-0.5", "99", "100", "101"}[r.IntN(19)]
	case 1:
		return strconv.Itoa(r.IntN(2000) - 1000)
	}
	n := 1 + r.IntN(38)
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	b.WriteByte(byte('1' + r.IntN(9)))
	for i := 1; i < n; i++ {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	// Scientific exponent of the result: (n-1) + e must stay in -130..125.
	lo, hi := -130-(n-1), 125-(n-1)
	e := lo + r.IntN(hi-lo+1)
	if r.IntN(3) == 0 {
		e = r.IntN(10) - 5 // cluster near 1 so that pairs often share exponents
	}
	b.WriteString("e" + strconv.Itoa(e))
	return b.String()
}

func randomBytes(r *rand.Rand) []byte {
	n := r.IntN(8)
	if r.IntN(20) == 0 {
		n = 1000 + r.IntN(1000)
	}
	b := make([]byte, n)
	for i := range b {
		switch r.IntN(4) {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xFF
		default:
			b[i] = byte(r.IntN(256))
		}
	}
	return b
}

func TestKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var a, b Value
		switch i % 3 {
		case 0:
			a, b = num(randomNumber(r)), num(randomNumber(r))
		case 1:
			a, b = String(string(randomBytes(r))), String(string(randomBytes(r)))
		case 2:
			a, b = Binary(randomBytes(r)), Binary(randomBytes(r))
		}
		checkKeyPair(t, a, b)
	}
}

func TestKeyEdgeCases(t *testing.T) {
	nums := []string{"0", "1", "-1", "0.1", "-0.1", "0.01", "1.01", "1.1", "10", "11", "100", "101",
		"-10", "-11", "-1.01", "-1.1", "99.99", "-99.99", "1E125", "-1E125", "1E-130", "-1E-130",
		strings.Repeat("9", 38), "-" + strings.Repeat("9", 38), "0.12345678901234567890123456789012345678"}
	for _, a := range nums {
		for _, b := range nums {
			checkKeyPair(t, num(a), num(b))
		}
	}
	strs := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x01", "a", "a\x00", "a\x00b", "ab", "\xff", "\xff\xff", strings.Repeat("z", 2048)}
	for _, a := range strs {
		for _, b := range strs {
			checkKeyPair(t, String(a), String(b))
			checkKeyPair(t, Binary([]byte(a)), Binary([]byte(b)))
		}
	}
}

// checkKeyPair checks order preservation and that a ‖ b splits back.
func checkKeyPair(t *testing.T, a, b Value) {
	t.Helper()
	ka, kb := AppendKey(nil, a), AppendKey(nil, b)
	want, _ := Compare(a, b)
	if got := bytes.Compare(ka, kb); got != want {
		t.Fatalf("order of %+v vs %+v: bytes %d, Compare %d (%x vs %x)", a, b, got, want, ka, kb)
	}
	cat := AppendKey(AppendKey([]byte("prefix"), a), b)[len("prefix"):]
	da, rest, err := DecodeKey(cat, a.T)
	if err != nil || !Equal(da, a) || da.S != a.S {
		t.Fatalf("DecodeKey first of %+v: %+v, %v", a, da, err)
	}
	db, rest, err := DecodeKey(rest, b.T)
	if err != nil || !Equal(db, b) || db.S != b.S || len(rest) != 0 {
		t.Fatalf("DecodeKey second of %+v: %+v, rest %x, %v", b, db, rest, err)
	}
}

func TestAppendKeyNonKeyTypes(t *testing.T) {
	for _, v := range []Value{Bool(true), Null(), Map(nil), List(nil), StringSet("a"), {T: TypeN, S: "x"}, {}} {
		if got := AppendKey([]byte("k"), v); string(got) != "k" {
			t.Errorf("AppendKey(%+v) = %q, want dst unchanged", v, got)
		}
	}
	if _, _, err := DecodeKey([]byte{0x80}, TypeBOOL); err == nil {
		t.Errorf("DecodeKey(BOOL) = nil error, want error")
	}
}

func TestDecodeKeyCorrupt(t *testing.T) {
	tests := []struct {
		b []byte
		t Type
	}{
		{nil, TypeN},
		{[]byte{0x11}, TypeN},
		{[]byte{keyTagPos}, TypeN},
		{[]byte{keyTagPos, 130}, TypeN},
		{[]byte{keyTagPos, 130, 11}, TypeN},
		{[]byte{keyTagPos, 130, 101, 0}, TypeN},
		{[]byte{keyTagPos, 130, 1, 0}, TypeN},   // leading zero digit
		{[]byte{keyTagPos, 130, 0}, TypeN},      // no digits
		{[]byte{keyTagPos, 0xFF, 11, 0}, TypeN}, // exponent 125 is fine, see below
		{[]byte{keyTagNeg, 130, 100, 0xFF}, TypeN},
		{[]byte("abc"), TypeS},
		{[]byte("abc\x00"), TypeS},
		{[]byte("abc\x00\x02"), TypeB},
	}
	for i, tt := range tests {
		_, _, err := DecodeKey(tt.b, tt.t)
		if i == 8 {
			if err != nil {
				t.Errorf("DecodeKey(%x) = %v, want ok", tt.b, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("DecodeKey(%x, %v) = nil error, want error", tt.b, tt.t)
		}
	}
}

func TestPartitionHash(t *testing.T) {
	if PartitionHash(num("1.0")) != PartitionHash(num("1")) {
		t.Errorf("equal numbers hash differently")
	}
	if PartitionHash(Value{T: TypeN, S: "1E2"}) != PartitionHash(num("100")) {
		t.Errorf("non-canonical number hashes differently from its canonical form")
	}
	if PartitionHash(String("1")) == PartitionHash(num("1")) {
		t.Errorf("S 1 and N 1 hash equally")
	}
	if PartitionHash(String("ab")) == PartitionHash(Binary([]byte("ab"))) {
		t.Errorf("S and B of the same bytes hash equally")
	}
	// Spread: sequential keys must fill all 16 top-nibble buckets evenly and
	// flip about half the bits between neighbours.
	var buckets [16]int
	flips := 0
	const n = 16000
	prev := PartitionHash(String("user#0"))
	for i := 0; i < n; i++ {
		h := PartitionHash(String("user#" + strconv.Itoa(i)))
		buckets[h>>60]++
		flips += bits.OnesCount64(h ^ prev)
		prev = h
	}
	for i, c := range buckets {
		if c < n/16*8/10 || c > n/16*12/10 {
			t.Errorf("bucket %d has %d of %d hashes, want about %d", i, c, n, n/16)
		}
	}
	if avg := float64(flips) / n; avg < 28 || avg > 36 {
		t.Errorf("average bit flips between neighbours = %.1f, want about 32", avg)
	}
}

func TestPartitionHashGolden(t *testing.T) {
	// Computed once by this implementation; a change here would reorder and
	// orphan every stored item.
	tests := []struct {
		v    Value
		want uint64
	}{
		{String(""), 0xaa1093e3c79ab7f9},
		{String("a"), 0x250633f150197690},
		{num("1"), 0x33d244c7d6429473},
		{Binary([]byte{0}), 0x2acde0d999705877},
	}
	for _, tt := range tests {
		got := PartitionHash(tt.v)
		if got != tt.want {
			t.Errorf("PartitionHash(%+v) = %#x, want %#x", tt.v, got, tt.want)
		}
	}
}
