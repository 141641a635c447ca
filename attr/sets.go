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
		return Value{}, duplicatesError(ns)
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

// duplicatesError lists the whole collection as DynamoDB does (Java's list
// format, members as the client sent them).
func duplicatesError(members []string) error {
	return listDuplicates(members, "")
}

// listDuplicates is duplicatesError with qualifier written between the
// list and the suffix.
func listDuplicates(members []string, qualifier string) error {
	var b strings.Builder
	b.WriteString(msgDuplicatesPrefix)
	b.WriteByte('[')
	for i, m := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m)
	}
	b.WriteByte(']')
	b.WriteString(qualifier)
	b.WriteString(msgDuplicatesSuffix)
	return invalid(ErrDuplicates, b.String())
}

// binaryDuplicatesError lists a binary set by the base64 text of its
// members and names its type, with no space after the list, as DynamoDB
// words it ("Input collection [Yg==, Yg==]of type BS contains duplicates.":
// architect/dynalite's suite, written against the service, and ExtendDB's
// parity tests).
func binaryDuplicatesError(bs [][]byte) error {
	ss := make([]string, len(bs))
	for i, b := range bs {
		ss[i] = base64.StdEncoding.EncodeToString(b)
	}
	return listDuplicates(ss, "of type BS")
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
			return duplicatesError(v.SS)
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
