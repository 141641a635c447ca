package validate

import (
	"reflect"
	"testing"
)

// vLists holds lists whose elements have rules of their own, as
// OutputS3Configuration's OutputType (an enum) and CsvOptions' HeaderList
// (a length and a pattern, the list's own length before them).
type vLists struct {
	Types   []string `ddb:"required;eachenum=ERROR|CONDITION_CHECK_FAILURE"`
	Headers []string `ddb:"len=1..2;eachlen=1..3;eachpattern=[a-z;]*"`
	Other   string   `ddb:"enum=A|B"`
}

// TestValidateEach: a list whose element breaks an element rule is
// reported once, the whole list as its value, every broken element rule
// once in the brackets of "Member must satisfy constraint", and combines
// with the request's other failures in one message.
func TestValidateEach(t *testing.T) {
	const at = "' at 'types' failed to satisfy constraint: "
	enum := "Member must satisfy constraint: [Member must satisfy enum value set: [ERROR, CONDITION_CHECK_FAILURE]]"
	tests := []struct{ name, body, want string }{
		{"valid", `{"Types":["ERROR","CONDITION_CHECK_FAILURE"],"Headers":["a;b"]}`, ""},
		{"empty list: no element breaks a rule", `{"Types":[]}`, ""},
		{"absent list: only required", `{}`,
			"1 validation error detected: Value null at 'types' failed to satisfy constraint: Member must not be null"},
		{"one bad element", `{"Types":["ERROR","BOGUS"]}`, "1 validation error detected: Value '[ERROR, BOGUS]" + at + enum},
		{"two bad elements, one message", `{"Types":["X","Y"]}`, "1 validation error detected: Value '[X, Y]" + at + enum},
		{"empty element", `{"Types":[""]}`, "1 validation error detected: Value '[]" + at + enum},
		{"length and pattern of elements, each once, in tag order", `{"Types":["ERROR"],"Headers":["abcd","ab!"]}`,
			"1 validation error detected: Value '[abcd, ab!]' at 'headers' failed to satisfy constraint: Member must satisfy constraint: " +
				"[Member must have length less than or equal to 3, Member must satisfy regular expression pattern: [a-z;]*]"},
		{"the list's own length beside its elements'", `{"Types":["ERROR"],"Headers":["a","b","abcd"]}`,
			"2 validation errors detected: Value '[a, b, abcd]' at 'headers' failed to satisfy constraint: Member must have length less than or equal to 2; " +
				"Value '[a, b, abcd]' at 'headers' failed to satisfy constraint: Member must satisfy constraint: [Member must have length less than or equal to 3]"},
		{"with another member's failure", `{"Types":["NO"],"Other":"C"}`,
			"2 validation errors detected: Value '[NO]" + at + enum + "; " +
				"Value 'C' at 'other' failed to satisfy constraint: Member must satisfy enum value set: [A, B]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in vLists
			if got := errText(decode(new(Validator), []byte(tt.body), &in)); got != tt.want {
				t.Errorf("Decode(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
		})
	}
}

// TestEachTagErrors: element rules on what is no list, or of a kind the
// element cannot take, are refused when the tag is parsed.
func TestEachTagErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  reflect.Type
	}{
		{"eachenum on a string", reflect.TypeFor[struct {
			A string `ddb:"eachenum=X|Y"`
		}]()},
		{"eachpattern on a list of numbers", reflect.TypeFor[struct {
			A []int `ddb:"eachpattern=[0-9]+"`
		}]()},
		{"bad element pattern", reflect.TypeFor[struct {
			A []string `ddb:"eachpattern=[a-"`
		}]()},
	} {
		if err := parseStruct(c.typ).err; err == nil {
			t.Errorf("%s: parseStruct accepted it", c.name)
		}
	}
}
