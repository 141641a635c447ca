package validate

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/ddb"
)

type eInner struct {
	Kind string `ddb:"required;enum=A|B"`
}

type eIn struct {
	Name    string   `ddb:"required;namepattern;len=3..255"`
	Start   string   `json:",omitempty" ddb:"len=3..255"`
	Free    string   `json:",omitempty" ddb:"len=0..10"`
	Only    string   `json:",omitempty" ddb:"required"`
	Table   string   `json:",omitempty" ddb:"tablename"`
	Named   string   `json:",omitempty" ddb:"tablename;checkempty"`
	Arn     string   `json:",omitempty" ddb:"len=37..1024;emptysays=Invalid ARN"`
	Index   *string  `json:",omitempty" ddb:"len=3..255;namepattern;emptysays=Index too short"`
	Inner   *eInner  `json:",omitempty"`
	List    []eInner `json:",omitempty"`
	Ignored string   `json:"-" ddb:"len=1.."`
}

// TestValidateBodyEmptyStrings: a string member sent as "" is checked by
// the constraints that refuse "" (in tag order, nested and in lists too);
// one whose constraints take "" (or that has only required, or is a table
// name) counts as absent, as Validate counts every ""; emptysays answers
// alone, bare, once the member constraints hold, for a pointer too.
func TestValidateBodyEmptyStrings(t *testing.T) {
	const one, two = "1 validation error detected: ", "2 validation errors detected: "
	const pat = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	tests := []struct{ name, body, want string }{
		{"absent", `{"Only":"x"}`, one + "Value null at 'name' failed to satisfy constraint: Member must not be null"},
		{"sent empty", `{"Name":"","Only":"x"}`,
			two + "Value '' at 'name' failed to satisfy constraint: " + pat + "; Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"optional sent empty", `{"Name":"abc","Start":"","Only":"x"}`,
			one + "Value '' at 'start' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"empty allowed by the length", `{"Name":"abc","Free":"","Only":"x"}`, ""},
		{"required only: empty counts as absent", `{"Name":"abc","Only":""}`,
			one + "Value null at 'only' failed to satisfy constraint: Member must not be null"},
		{"table name: empty counts as absent", `{"Name":"abc","Only":"x","Table":""}`, ""},
		{"table name with checkempty", `{"Name":"abc","Only":"x","Named":""}`,
			two + "Value '' at 'named' failed to satisfy constraint: Member must have length greater than or equal to 3; Value '' at 'named' failed to satisfy constraint: " + pat},
		{"nested enum", `{"Name":"abc","Only":"x","Inner":{"Kind":""}}`,
			one + "Value '' at 'inner.kind' failed to satisfy constraint: Member must satisfy enum value set: [A, B]"},
		{"list element", `{"Name":"abc","Only":"x","List":[{"Kind":"A"},{"Kind":""}]}`,
			one + "Value '' at 'list.2.member.kind' failed to satisfy constraint: Member must satisfy enum value set: [A, B]"},
		{"list element absent", `{"Name":"abc","Only":"x","List":[{}]}`,
			one + "Value null at 'list.1.member.kind' failed to satisfy constraint: Member must not be null"},
		{"emptysays", `{"Name":"abc","Only":"x","Arn":""}`, "Invalid ARN"},
		{"emptysays after the member constraints", `{"Name":"","Only":"x","Arn":""}`,
			two + "Value '' at 'name' failed to satisfy constraint: " + pat + "; Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"emptysays on a pointer", `{"Name":"abc","Only":"x","Index":""}`, "Index too short"},
		{"a short value keeps its constraints", `{"Name":"abc","Only":"x","Index":"a","Arn":"b"}`,
			// in the service's member order (javaMapOrder), not the struct's
			two + "Value 'a' at 'index' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value 'b' at 'arn' failed to satisfy constraint: Member must have length greater than or equal to 37"},
		{"an empty string elsewhere changes nothing", `{"Name":"abc","Only":"x","Bogus":{"Start":""}}`, ""},
	}
	vd := new(Validator)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in eIn
			if err := codec.Unmarshal([]byte(tt.body), &in); err != nil {
				t.Fatal(err)
			}
			err := vd.ValidateBody(&in, []byte(tt.body))
			if got := errText(err); got != tt.want {
				t.Errorf("ValidateBody(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
			var te *ddb.Error
			if err != nil && (!errors.As(err, &te) || te.Code != ddb.ValidationException) {
				t.Errorf("ValidateBody(%s) error %#v, want a ValidationException", tt.body, err)
			}
		})
	}
	// Without the body, "" is absent.
	var in eIn
	in.Only = "x"
	if got, want := errText(vd.Validate(&in)), one+"Value null at 'name' failed to satisfy constraint: Member must not be null"; got != want {
		t.Errorf("Validate of Name \"\": %s, want %s", got, want)
	}
}
