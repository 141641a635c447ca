package attr

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
)

// setMapThreshold is the set size from which duplicate detection uses a map
// instead of comparing every pair; below it the pairwise loop is faster.
const setMapThreshold = 16

// StringSet returns an SS value holding ss as given. It does not validate;
// DynamoDB forbids empty sets and duplicates (see Value.Validate).
func StringSet(ss ...string) Value { return Value{T: TypeSS, SS: ss} }

// BinarySet returns a BS value holding bs as given. It does not validate;
// DynamoDB forbids empty sets and duplicates (see Value.Validate).
func BinarySet(bs ...[]byte) Value { return Value{T: TypeBS, BS: bs} }

// NumberSet returns an NS value of the numbers ns, each normalised by
// ParseNumber. The error is an *Error: an empty set, a member that is not a
// valid number, or two members that are numerically equal.
func NumberSet(ns ...string) (Value, error) {
	if len(ns) == 0 {
		return Value{}, invalid(ErrEmptySet, msgEmptyNS)
	}
	out := make([]string, len(ns))
	for i, s := range ns {
		c, err := ParseNumber(s)
		if err != nil {
			return Value{}, err
		}
		out[i] = c
	}
	if hasDuplicate(out) {
		return Value{}, numberDuplicatesError()
	}
	v := Value{T: TypeNS, SS: out}
	SortSet(v)
	return v, nil
}

// SortSet puts the members of a set value in DynamoDB Local's order, in
// place: strings and binaries by unsigned bytes, numbers numerically (NS
// members must be canonical). Other values are left alone. Sets decoded
// from JSON are sorted already, so every stored set is, and reads return
// sets in one order whatever order they were written in.
func SortSet(v Value) {
	switch v.T {
	case TypeSS:
		if !slices.IsSorted(v.SS) {
			slices.Sort(v.SS)
		}
	case TypeNS:
		if !slices.IsSortedFunc(v.SS, CompareNumbers) {
			slices.SortFunc(v.SS, CompareNumbers)
		}
	case TypeBS:
		if !slices.IsSortedFunc(v.BS, bytes.Compare) {
			slices.SortFunc(v.BS, bytes.Compare)
		}
	}
}

// hasDuplicate reports whether ss holds the same string twice.
func hasDuplicate(ss []string) bool {
	if len(ss) < setMapThreshold {
		for i := 1; i < len(ss); i++ {
			for j := 0; j < i; j++ {
				if ss[i] == ss[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ss))
	for _, s := range ss {
		if _, ok := seen[s]; ok {
			return true
		}
		seen[s] = struct{}{}
	}
	return false
}

// hasDuplicateBytes reports whether bs holds the same bytes twice.
func hasDuplicateBytes(bs [][]byte) bool {
	if len(bs) < setMapThreshold {
		for i := 1; i < len(bs); i++ {
			for j := 0; j < i; j++ {
				if string(bs[i]) == string(bs[j]) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(bs))
	for _, b := range bs {
		if _, ok := seen[string(b)]; ok {
			return true
		}
		seen[string(b)] = struct{}{}
	}
	return false
}

// The two layers' words for a set holding a member twice (see
// Error.Current). The older layer lists a string or binary set's members as
// sent, unquoted, and words a number set's refusal without the prefix or
// the full stop; the current layer quotes the members in its own order
// (currentOrder) and names no member of a number set. A binary set's list
// is followed, with no space, by "of type BS" in both ("Input collection
// [/w==, AA==, AA==]of type BS contains duplicates.").
const msgNumberDuplicates = "Input collection contains duplicates"

// duplicatesError refuses a string set ss holding a member twice.
func duplicatesError(ss []string) error {
	e := listDuplicates(ss, ", ", "", false)
	e.Current = listDuplicates(currentOrder(ss), ", ", "", true).Msg
	return e
}

// numberDuplicatesError refuses a number set holding a number twice. Neither
// layer names the members: the older one (BatchWriteItem,
// TransactWriteItems, TransactGetItems, Scan, and PartiQL's set literals)
// words it without the prefix or the full stop, the current one with both
// (paritysuite/dynamodb-conformance valueLayers, eu-west-2, us-east-1,
// eu-west-1 and us-west-2, 2026-10-09: NS 2, 1, 2 everywhere).
func numberDuplicatesError() error {
	return &Error{Msg: msgNumberDuplicates, Kind: ErrDuplicates,
		Current: "One or more parameter values were invalid: " + msgNumberDuplicates + "."}
}

// listDuplicates lists members, joined by sep and quoted when quote is
// set, in DynamoDB's duplicates message with qualifier written between the
// list and the suffix.
func listDuplicates(members []string, sep, qualifier string, quote bool) *Error {
	var b strings.Builder
	b.WriteString(msgDuplicatesPrefix)
	b.WriteByte('[')
	for i, m := range members {
		if i > 0 {
			b.WriteString(sep)
		}
		if quote {
			b.WriteByte('"')
		}
		b.WriteString(m)
		if quote {
			b.WriteByte('"')
		}
	}
	b.WriteByte(']')
	b.WriteString(qualifier)
	b.WriteString(msgDuplicatesSuffix)
	return invalid(ErrDuplicates, b.String())
}

// currentOrder is the order the current layer lists a set's members in:
// the members before the first repeat in byte order, then the repeat, then
// the rest as sent (SS b, a, b is ["a", "b", "b"]).
func currentOrder(members []string) []string {
	for i, m := range members {
		if j := slices.Index(members[:i], m); j >= 0 {
			out := slices.Sorted(slices.Values(members[:i]))
			return append(append(out, m), members[i+1:]...)
		}
	}
	return members
}

// binaryDuplicatesError refuses a binary set bs holding a member twice,
// listing its members by their base64 text.
func binaryDuplicatesError(bs [][]byte) error {
	ss := make([]string, len(bs))
	for i, b := range bs {
		ss[i] = base64.StdEncoding.EncodeToString(b)
	}
	e := listDuplicates(ss, ", ", "of type BS", false)
	sorted := make([]string, 0, len(bs))
	for i, b := range bs {
		if slices.ContainsFunc(bs[:i], func(o []byte) bool { return bytes.Equal(o, b) }) {
			first := slices.Clone(bs[:i])
			slices.SortFunc(first, bytes.Compare)
			for _, f := range first {
				sorted = append(sorted, base64.StdEncoding.EncodeToString(f))
			}
			sorted = append(append(sorted, ss[i]), ss[i+1:]...)
			break
		}
	}
	e.Current = listDuplicates(sorted, ",", "of type BS", true).Msg
	return e
}

// checkSet validates a set value's members: non-empty and without
// duplicates (NS members must already be canonical, so equal numbers are
// equal strings).
func checkSet(v Value) error {
	switch v.T {
	case TypeSS:
		if len(v.SS) == 0 {
			return invalid(ErrEmptySet, msgEmptySS)
		}
		if hasDuplicate(v.SS) {
			return duplicatesError(v.SS)
		}
	case TypeNS:
		if len(v.SS) == 0 {
			return invalid(ErrEmptySet, msgEmptyNS)
		}
		if hasDuplicate(v.SS) {
			return numberDuplicatesError()
		}
	case TypeBS:
		if len(v.BS) == 0 {
			return invalid(ErrEmptySet, msgEmptyBS)
		}
		if hasDuplicateBytes(v.BS) {
			return binaryDuplicatesError(v.BS)
		}
	}
	return nil
}
