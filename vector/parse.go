package vector

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
)

// MaxDimensions is the largest number of dimensions a vector index may have
// (the developer guide: "DynamoDB supports up to 4,096 dimensions").
const MaxDimensions = 4096

// Reason says why a value is not a valid vector.
type Reason uint8

// The ways a value can fail to be a vector of a given length.
const (
	NotList   Reason = iota + 1 // the value is not a list (L)
	Length                      // the list has the wrong number of elements
	NotNumber                   // an element is not a number (N)
	Range                       // an element's magnitude does not fit a float32
)

// ParseError is returned when a value is not a valid vector. Index is the
// offending element for NotNumber and Range; Expected and Actual are the
// lengths for Length. Its text is this package's, not DynamoDB's: the caller
// chooses the message the wire carries.
type ParseError struct {
	Reason           Reason
	Index            int
	Expected, Actual int
}

func (e *ParseError) Error() string {
	switch e.Reason {
	case NotList:
		return "vector: not a list"
	case Length:
		return fmt.Sprintf("vector: %d elements, want %d", e.Actual, e.Expected)
	case NotNumber:
		return fmt.Sprintf("vector: element %d is not a number", e.Index)
	default:
		return fmt.Sprintf("vector: element %d does not fit a 32-bit float", e.Index)
	}
}

// Parse reads v, which must be a list of exactly dims numbers, as float32
// values appended to dst[:0]. Each number is rounded to the nearest float32;
// one whose magnitude rounds past the largest finite float32 is a Range error
// (DynamoDB: "Vector values must fit in 32-bit IEEE-754 floating point
// format"), while one too small for a float32 rounds to zero or a subnormal,
// as the service's "lose precision" describes. On error the returned slice is
// nil and err is a *ParseError.
func Parse(v attr.Value, dims int, dst []float32) ([]float32, error) {
	if v.T != attr.TypeL {
		return nil, &ParseError{Reason: NotList}
	}
	return ParseList(v.L, dims, dst)
}

// ParseList is Parse for the elements of a list, as SearchVectors' SearchVector
// carries them.
func ParseList(l []attr.Value, dims int, dst []float32) ([]float32, error) {
	if len(l) != dims {
		return nil, &ParseError{Reason: Length, Expected: dims, Actual: len(l)}
	}
	out := dst[:0]
	for i, e := range l {
		if e.T != attr.TypeN {
			return nil, &ParseError{Reason: NotNumber, Index: i}
		}
		f, bad := parseFloat32(e.S)
		if bad != 0 {
			return nil, &ParseError{Reason: bad, Index: i}
		}
		out = append(out, f)
	}
	return out, nil
}

// parseFloat32 reads DynamoDB number text as the nearest float32, or says why
// it cannot: Range when it rounds to an infinity, NotNumber when the text is
// not a number at all (never for a value the request decoder accepted).
func parseFloat32(s string) (float32, Reason) {
	f, err := strconv.ParseFloat(s, 32)
	var ne *strconv.NumError
	switch {
	case err == nil && !math.IsInf(f, 0) && !math.IsNaN(f):
		return float32(f), 0
	case err == nil, errors.As(err, &ne) && ne.Err == strconv.ErrRange:
		return 0, Range
	default:
		return 0, NotNumber
	}
}
