package attr

import (
	"bytes"
	"strings"
)

// Equal reports whether a and b are the same value as DynamoDB's "="
// compares them: same type and deeply equal contents; numbers compare
// numerically, sets as sets (member order does not matter), maps by key.
func Equal(a, b Value) bool {
	if a.T != b.T {
		return false
	}
	switch a.T {
	case TypeS:
		return a.S == b.S
	case TypeN:
		return a.S == b.S || CompareNumbers(a.S, b.S) == 0
	case TypeB:
		return bytes.Equal(a.B, b.B)
	case TypeBOOL:
		return a.Bool == b.Bool
	case TypeNULL:
		return true
	case TypeM:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, av := range a.M {
			bv, ok := b.M[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	case TypeL:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !Equal(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case TypeSS:
		return sameStringSet(a.SS, b.SS, func(x, y string) bool { return x == y })
	case TypeNS:
		return sameStringSet(a.SS, b.SS, func(x, y string) bool { return x == y || CompareNumbers(x, y) == 0 })
	case TypeBS:
		return sameBinarySet(a.BS, b.BS)
	}
	return true // two invalid (empty) values
}

// sameStringSet reports whether a and b hold the same members. Sets have no
// duplicates, so equal sizes plus a ⊆ b is enough.
func sameStringSet(a, b []string, eq func(x, y string) bool) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) >= setMapThreshold {
		// Canonical numbers are equal exactly when their strings are, so a
		// string map serves both SS and NS.
		in := make(map[string]struct{}, len(b))
		for _, s := range b {
			in[s] = struct{}{}
		}
		for _, s := range a {
			if _, ok := in[s]; !ok {
				return false
			}
		}
		return true
	}
outer:
	for _, x := range a {
		for _, y := range b {
			if eq(x, y) {
				continue outer
			}
		}
		return false
	}
	return true
}

func sameBinarySet(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) >= setMapThreshold {
		in := make(map[string]struct{}, len(b))
		for _, s := range b {
			in[string(s)] = struct{}{}
		}
		for _, s := range a {
			if _, ok := in[string(s)]; !ok {
				return false
			}
		}
		return true
	}
outer:
	for _, x := range a {
		for _, y := range b {
			if bytes.Equal(x, y) {
				continue outer
			}
		}
		return false
	}
	return true
}

// Compare orders a and b as DynamoDB's <, <=, >, >=, BETWEEN and sort keys
// do: strings by UTF-8 bytes, numbers numerically, binaries by unsigned
// bytes. ok is false when a and b are not both of one of those types, in
// which case DynamoDB's comparison is simply false.
func Compare(a, b Value) (c int, ok bool) {
	if a.T != b.T {
		return 0, false
	}
	switch a.T {
	case TypeS:
		return strings.Compare(a.S, b.S), true
	case TypeN:
		return CompareNumbers(a.S, b.S), true
	case TypeB:
		return bytes.Compare(a.B, b.B), true
	}
	return 0, false
}
