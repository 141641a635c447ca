package attr

// Size returns v's size in bytes as DynamoDB counts it for the item size
// limit and capacity units (developer guide, "DynamoDB item sizes and
// formats"), not counting the name of the attribute holding it:
//
//	S: UTF-8 bytes; B: raw bytes; BOOL, NULL: 1
//	N: see numberSize
//	M, L: 3 + per element 1 + element size (+ key length for M)
//	SS, NS, BS: sum of member sizes
func (v Value) Size() int {
	switch v.T {
	case TypeS:
		return len(v.S)
	case TypeN:
		return numberSize(v.S)
	case TypeB:
		return len(v.B)
	case TypeBOOL, TypeNULL:
		return 1
	case TypeM:
		n := 3
		for k, e := range v.M {
			n += 1 + len(k) + e.Size()
		}
		return n
	case TypeL:
		n := 3
		for _, e := range v.L {
			n += 1 + e.Size()
		}
		return n
	case TypeSS:
		n := 0
		for _, s := range v.SS {
			n += len(s)
		}
		return n
	case TypeNS:
		n := 0
		for _, s := range v.SS {
			n += numberSize(s)
		}
		return n
	case TypeBS:
		n := 0
		for _, b := range v.BS {
			n += len(b)
		}
		return n
	}
	return 0
}

// Size returns the item's size as DynamoDB counts it: for each attribute,
// the UTF-8 length of its name plus the size of its value.
func (it Item) Size() int {
	n := 0
	for k, v := range it {
		n += len(k) + v.Size()
	}
	return n
}

// numberSize is the stored size of a number. The guide says "1 byte per two
// significant digits, plus 1 byte"; measurements against DynamoDB refine it:
// the significant digits (leading and trailing zeros trimmed) left of the
// point and right of it are paired separately, and a negative number costs
// one byte more. So 1.5 is 3 bytes, 15 is 2, -15 is 3, 100 is 2, 0 is 1.
func numberSize(s string) int {
	var buf [48]byte
	d, err := parseDecimal(s, buf[:0])
	if err != nil {
		return 1
	}
	return d.size()
}

// size is numberSize for a parsed number.
func (d decimal) size() int {
	if len(d.digits) == 0 {
		return 1
	}
	intDigits := 0
	if d.exp >= 0 {
		intDigits = min(len(d.digits), d.exp+1)
	}
	fracDigits := len(d.digits) - intDigits
	n := 1 + (intDigits+1)/2 + (fracDigits+1)/2
	if d.neg {
		n++
	}
	return n
}
