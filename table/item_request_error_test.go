package table

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// TestRequestError: a single-item write's request refusal goes inside the
// validation envelope once; one already enveloped, another code, or an
// error that is no DynamoDB error is left as it is.
func TestRequestError(t *testing.T) {
	plain := errors.New("internal")
	tests := []struct {
		name string
		in   error
		want string
	}{
		{"bare", ddb.Errorf(ddb.ValidationException, "Invalid ConditionExpression: The expression can not be empty;"),
			"ValidationException: 1 validation error detected: Invalid ConditionExpression: The expression can not be empty;"},
		{"enveloped", ddb.Errorf(ddb.ValidationException, "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed"),
			"ValidationException: 1 validation error detected: Value 'XOR' at 'conditionalOperator' failed"},
		{"several", ddb.Errorf(ddb.ValidationException, "12 validation errors detected: a; b"),
			"ValidationException: 12 validation errors detected: a; b"},
		{"number first", ddb.Errorf(ddb.ValidationException, "1 validation is not an envelope"),
			"ValidationException: 1 validation error detected: 1 validation is not an envelope"},
		{"other code", ddb.Errorf(ddb.ResourceNotFoundException, "Requested resource not found"),
			"ResourceNotFoundException: Requested resource not found"},
		{"not ddb", plain, "internal"},
	}
	for _, tt := range tests {
		if got := requestError(tt.in).Error(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
