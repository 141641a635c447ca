package attr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// nested returns n M containers, one inside the other, around {"S":"x"}.
func nested(n int, open, close string) string {
	return strings.Repeat(open, n) + `{"S":"x"}` + strings.Repeat(close, n)
}

func TestUnmarshalValueErrors(t *testing.T) {
	const validation, serialization = "V", "S"
	tests := []struct {
		in   string
		kind string
		msg  string
	}{
		{`{}`, validation, msgEmptyValue},
		{`null`, validation, msgEmptyValue},
		{`{"S":null}`, validation, msgEmptyValue},
		{`{"X":"a"}`, validation, msgEmptyValue},
		{`{"S":"a","S":null}`, validation, msgEmptyValue},
		{`{"S":"a","N":"1"}`, validation, msgManyTypes},
		{`{"BOOL":true,"NULL":true}`, validation, msgManyTypes},
		{`{"M":{},"L":[]}`, validation, msgManyTypes},
		{`{"NULL":false}`, validation, msgNullFalse},
		{`{"N":"abc"}`, validation, msgUnconvertible + ": abc"},
		{`{"N":""}`, validation, msgUnconvertible + ": "},
		{`{"N":"1234567890123456789012345678901234567890"}`, validation, msgPrecision},
		{`{"N":"1E126"}`, validation, msgOverflow},
		{`{"N":"1E-131"}`, validation, msgUnderflow},
		{`{"SS":[]}`, validation, msgEmptySS},
		{`{"NS":[]}`, validation, msgEmptyNS},
		{`{"BS":[]}`, validation, msgEmptyBS},
		{`{"SS":["a","a"]}`, validation, "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{`{"SS":["a","b","a"]}`, validation, "One or more parameter values were invalid: Input collection [a, b, a] contains duplicates."},
		{`{"NS":["1","1.0"]}`, validation, "Input collection contains duplicates"},
		{`{"NS":["1","x"]}`, validation, msgUnconvertible + ": x"},
		{`{"BS":["AQ==","AQ=="]}`, validation, "One or more parameter values were invalid: Input collection [AQ==, AQ==]of type BS contains duplicates."},
		{`{"M":{"a":{}}}`, validation, msgEmptyValue},
		{`{"L":[{"N":"x"}]}`, validation, msgUnconvertible + ": x"},
		{`{"M":{"a":{"L":[{"SS":[]}]}}}`, validation, msgEmptySS},
		{nested(MaxNestingDepth+1, `{"M":{"a":`, `}}`), validation, msgNesting},
		{nested(MaxNestingDepth+1, `{"L":[`, `]}`), validation, msgNesting},
		{`{"S":1}`, serialization, "NUMBER_VALUE cannot be converted to String"},
		{`{"S":true}`, serialization, "TRUE_VALUE cannot be converted to String"},
		{`{"N":1}`, serialization, "NUMBER_VALUE cannot be converted to String"},
		{`{"S":{}}`, serialization, msgStartStructure},
		{`{"S":[]}`, serialization, msgStartList},
		{`{"BOOL":"x"}`, serialization, "STRING_VALUE can not be converted to a Boolean"},
		{`{"NULL":1}`, serialization, "NUMBER_VALUE can not be converted to a Boolean"},
		{`{"BOOL":[]}`, serialization, msgStartList},
		{`{"L":{}}`, serialization, msgStartStructure},
		{`{"SS":{}}`, serialization, msgStartStructure},
		{`{"M":[]}`, serialization, msgStartList},
		{`{"M":"x"}`, serialization, msgUnexpectedValue},
		{`{"SS":[1]}`, serialization, "NUMBER_VALUE cannot be converted to String"},
		{`{"SS":["a",null]}`, serialization, msgNullInSet},
		{`[]`, serialization, msgStartList},
		{`"S"`, serialization, msgUnexpectedValue},
		{`{"B":"abc"}`, serialization, msgBase64Length + "3"},
		{`{"B":"ab!="}`, serialization, msgBase64Invalid},
		{`{"BS":["AQ==","A"]}`, serialization, msgBase64Length + "1"},
		{`{"S":"a"`, serialization, msgJSONEnd},
		{`{"S":"a"}x`, serialization, msgJSONSyntax + "9"},
		{`{"S":"a\x"}`, serialization, msgJSONSyntax + "8"},
		{`{"X":[1,2,{"y":tru}]}`, serialization, msgJSONSyntax + "15"},
	}
	for _, tt := range tests {
		var v Value
		err := v.UnmarshalJSON([]byte(tt.in))
		var ve *Error
		var se *SerializationError
		switch {
		case tt.kind == validation && errors.As(err, &ve):
			if ve.Msg != tt.msg {
				t.Errorf("%s: got %q, want %q", tt.in, ve.Msg, tt.msg)
			}
		case tt.kind == serialization && errors.As(err, &se):
			if se.Msg != tt.msg {
				t.Errorf("%s: got %q, want %q", tt.in, se.Msg, tt.msg)
			}
		default:
			t.Errorf("%s: got %T %v, want %s error %q", tt.in, err, err, tt.kind, tt.msg)
		}
		if v.T != 0 {
			t.Errorf("%s: value changed on error: %+v", tt.in, v)
		}
	}
}

func TestUnmarshalValue(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{`{"S":"x"}`, String("x")},
		{`{"S":""}`, String("")},
		{` { "S" : "a\"b\\c\/\n\u00e9\ud83d\ude00" } `, String("a\"b\\c/\né😀")},
		{`{"S":"\ud800"}`, String("\uFFFD")},
		{"{\"S\":\"\xff\"}", String("\uFFFD")},
		{`{"N":"+1.50"}`, Value{T: TypeN, S: "1.5"}},
		{`{"B":"AAEC"}`, Binary([]byte{0, 1, 2})},
		{`{"B":""}`, Binary([]byte{})},
		{`{"BOOL":true}`, Bool(true)},
		{`{"BOOL":false}`, Bool(false)},
		{`{"NULL":true}`, Null()},
		{`{"M":{}}`, Map(map[string]Value{})},
		{`{"L":[]}`, List([]Value{})},
		{`{"M":{"a":{"N":"1e2"},"b":{"L":[{"S":"x"},{"NULL":true}]}}}`, Map(map[string]Value{
			"a": {T: TypeN, S: "100"},
			"b": List([]Value{String("x"), Null()}),
		})},
		{`{"SS":["b","a"]}`, StringSet("b", "a")},
		{`{"NS":["2","1.0"]}`, Value{T: TypeNS, SS: []string{"2", "1"}}},
		{`{"BS":["AQ==","Ag=="]}`, BinarySet([]byte{1}, []byte{2})},
		// Unknown members are ignored; null members are absent.
		{`{"Extra":{"deep":[1,2.5e3,true,null,"s"]},"S":"x"}`, String("x")},
		{`{"N":null,"S":"x","BOOL":null}`, String("x")},
		{`{"S":"a","S":"b"}`, String("b")},
		{`{"S":"a","N":"1","N":null}`, String("a")},
		{`{"N":"1","S":"a","S":null}`, Value{T: TypeN, S: "1"}},
		{`{"SS":["a"],"NS":["1"],"NS":null}`, StringSet("a")},
		{nested(MaxNestingDepth, `{"M":{"a":`, `}}`), mustValue(nested(MaxNestingDepth, `{"M":{"a":`, `}}`))},
	}
	for _, tt := range tests {
		var got Value
		if err := got.UnmarshalJSON([]byte(tt.in)); err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if !Equal(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func mustValue(s string) Value {
	var v Value
	if err := v.UnmarshalJSON([]byte(s)); err != nil {
		panic(err)
	}
	return v
}

func TestItemJSONViaEncodingJSON(t *testing.T) {
	type request struct {
		Item      Item
		Key       map[string]Value
		Missing   Item
		NullValue Item
	}
	in := `{"Item":{"id":{"S":"a"},"n":{"N":"007"}},"Key":{"id":{"S":"a"}},"NullValue":null}`
	var r request
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Item["n"].S, "7"; got != want {
		t.Errorf("Item n = %q, want %q", got, want)
	}
	if got, want := r.Key["id"].S, "a"; got != want {
		t.Errorf("Key id = %q, want %q", got, want)
	}
	if r.Missing != nil || r.NullValue != nil {
		t.Errorf("Missing, NullValue = %v, %v; want nil", r.Missing, r.NullValue)
	}
	// Errors pass through encoding/json unchanged, so api can errors.As them.
	err := json.Unmarshal([]byte(`{"Item":{"a":{"S":"x","N":"1"}}}`), &r)
	var ve *Error
	if !errors.As(err, &ve) || ve.Msg != msgManyTypes {
		t.Errorf("got %T %v, want *Error %q", err, err, msgManyTypes)
	}
	err = json.Unmarshal([]byte(`{"Key":{"a":{"S":5}}}`), &r)
	var se *SerializationError
	if !errors.As(err, &se) {
		t.Errorf("got %T %v, want *SerializationError", err, err)
	}

	out, err := json.Marshal(struct{ Item, Empty Item }{Item: r.Item})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `{"Item":{"id":{"S":"a"},"n":{"N":"7"}},"Empty":{}}`; got != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{String("x"), `{"S":"x"}`},
		{String("a\"\\\n\r\t\x01</>&\u2028é"), `{"S":"a\"\\\n\r\t\u0001</>&\u2028é"}`},
		{String("bad\xffutf8"), `{"S":"bad\ufffdutf8"}`},
		{Value{T: TypeN, S: "-1.5"}, `{"N":"-1.5"}`},
		{Binary([]byte{0, 1, 2}), `{"B":"AAEC"}`},
		{Binary(nil), `{"B":""}`},
		{Bool(true), `{"BOOL":true}`},
		{Bool(false), `{"BOOL":false}`},
		{Null(), `{"NULL":true}`},
		{Map(nil), `{"M":{}}`},
		{List(nil), `{"L":[]}`},
		{Map(map[string]Value{"b": Null(), "a": List([]Value{String("x"), Bool(true)})}),
			`{"M":{"a":{"L":[{"S":"x"},{"BOOL":true}]},"b":{"NULL":true}}}`},
		{StringSet("b", "a"), `{"SS":["b","a"]}`},
		{Value{T: TypeNS, SS: []string{"1", "2"}}, `{"NS":["1","2"]}`},
		{BinarySet([]byte{1}, []byte{2}), `{"BS":["AQ==","Ag=="]}`},
		{Value{}, `{}`},
	}
	for _, tt := range tests {
		if got := string(AppendJSON(nil, tt.v)); got != tt.want {
			t.Errorf("AppendJSON(%+v) = %s, want %s", tt.v, got, tt.want)
		}
		// Whatever we write must be valid JSON.
		if !json.Valid(AppendJSON(nil, tt.v)) {
			t.Errorf("AppendJSON(%+v) is not valid JSON", tt.v)
		}
	}
	if got, want := string(AppendItemJSON(nil, nil)), `{}`; got != want {
		t.Errorf("AppendItemJSON(nil) = %s, want %s", got, want)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := `{"a":{"S":"x"},"b":{"N":"-0.125"},"c":{"B":"AAEC"},"d":{"BOOL":true},"e":{"NULL":true},` +
		`"f":{"M":{"g":{"L":[{"SS":["p","q"]},{"NS":["1","2"]},{"BS":["AQ=="]}]}}}}`
	var it Item
	if err := it.UnmarshalJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if got := string(AppendItemJSON(nil, it)); got != in {
		t.Errorf("round trip:\n got %s\nwant %s", got, in)
	}
}

// TestNestingBoundary pins DynamoDB's boundary in numbers, not in terms of
// MaxNestingDepth: a leaf inside 31 maps or lists is accepted, inside 32 it is
// refused with DynamoDB's whole message.
func TestNestingBoundary(t *testing.T) {
	const want = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	for _, wrap := range [][2]string{{`{"M":{"a":`, `}}`}, {`{"L":[`, `]}`}} {
		var v Value
		if err := v.UnmarshalJSON([]byte(nested(31, wrap[0], wrap[1]))); err != nil {
			t.Errorf("31 levels of %s: got %v, want accepted", wrap[0], err)
		}
		if err := v.Validate(); err != nil {
			t.Errorf("Validate 31 levels of %s: got %v, want nil", wrap[0], err)
		}
		err := v.UnmarshalJSON([]byte(nested(32, wrap[0], wrap[1])))
		var e *Error
		if !errors.As(err, &e) || e.Msg != want {
			t.Errorf("32 levels of %s: got %v, want %q", wrap[0], err, want)
		}
	}
	if err := mustDeep(32).Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate 32 lists: got %v, want %q", err, want)
	}
}
