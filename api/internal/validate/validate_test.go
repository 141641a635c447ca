package validate

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/ddb"
)

type vKey struct {
	AttributeName string `ddb:"required;len=1..255"`
	KeyType       string `ddb:"required;enum=HASH|RANGE"`
}

type vThroughput struct {
	Read  *int64 `json:"ReadCapacityUnits" ddb:"required;min=1"`
	Write int64  `json:"WriteCapacityUnits" ddb:"max=10"`
}

type vCommon struct {
	ClientToken *string `ddb:"len=1..36"`
}

type vIn struct {
	TableName  string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	KeySchema  []vKey `ddb:"required;len=1..2"`
	Limit      *int32 `ddb:"min=1;max=100"`
	Ratio      *float64
	Throughput *vThroughput
	Byname     map[string]vKey `json:"ByName"`
	Names      []string        `ddb:"len=..2"`
	Backup     string          `ddb:"namepattern;len=3..255"`
	Ignored    string          `json:"-" ddb:"required"`
	vCommon
}

const okKeys = `"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]`

func TestValidate(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"valid", `{"TableName":"abc",` + okKeys + `}`, ""},
		{"null table name", `{` + okKeys + `}`,
			"1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{"empty body, in the service's order", ``,
			"2 validation errors detected: Value null at 'keySchema' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{"short", `{"TableName":"ab",` + okKeys + `}`,
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"long", `{"TableName":"` + string(make256('a')) + `",` + okKeys + `}`,
			"1 validation error detected: Value '" + string(make256('a')) + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"pattern", `{"TableName":"a b c",` + okKeys + `}`,
			"1 validation error detected: Value 'a b c' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"short and pattern in tag order", `{"TableName":"a!",` + okKeys + `}`,
			"2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"enum in list element", `{"TableName":"abc","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"SORT"}]}`,
			"1 validation error detected: Value 'SORT' at 'keySchema.2.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{"null in list element", `{"TableName":"abc","KeySchema":[{"KeyType":"HASH"}]}`,
			"1 validation error detected: Value null at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must not be null"},
		{"empty list", `{"TableName":"abc","KeySchema":[]}`,
			"1 validation error detected: Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"list too long renders structs", `{"TableName":"abc","KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"RANGE"},{"AttributeName":"c","KeyType":"RANGE"}]}`,
			"1 validation error detected: Value '[{AttributeName: a,KeyType: HASH}, {AttributeName: b,KeyType: RANGE}, {AttributeName: c,KeyType: RANGE}]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{"min on pointer", `{"TableName":"abc",` + okKeys + `,"Limit":0}`,
			"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"max on pointer", `{"TableName":"abc",` + okKeys + `,"Limit":101}`,
			"1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"},
		{"nested struct", `{"TableName":"abc",` + okKeys + `,"Throughput":{"WriteCapacityUnits":11}}`,
			"2 validation errors detected: Value '11' at 'throughput.writeCapacityUnits' failed to satisfy constraint: Member must have value less than or equal to 10; " +
				"Value null at 'throughput.readCapacityUnits' failed to satisfy constraint: Member must not be null"},
		{"value number zero counts as absent", `{"TableName":"abc",` + okKeys + `,"Throughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":0}}`, ""},
		{"map of structs", `{"TableName":"abc",` + okKeys + `,"ByName":{"x":{"AttributeName":"a","KeyType":"bad"}}}`,
			"1 validation error detected: Value 'bad' at 'byName.x.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"},
		{"open lower bound", `{"TableName":"abc",` + okKeys + `,"Names":["a","b","c"]}`,
			"1 validation error detected: Value '[a, b, c]' at 'names' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{"embedded struct flattens", `{"TableName":"abc",` + okKeys + `,"ClientToken":""}`,
			"1 validation error detected: Value '' at 'clientToken' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"utf-16 length", `{"TableName":"abc",` + okKeys + `,"ClientToken":"` + repeat("😀", 18) + `x"}`,
			"1 validation error detected: Value '" + repeat("😀", 18) + "x' at 'clientToken' failed to satisfy constraint: Member must have length less than or equal to 36"},
		{"namepattern before the length", `{"TableName":"abc",` + okKeys + `,"Backup":"x!"}`,
			"2 validation errors detected: Value 'x!' at 'backup' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value 'x!' at 'backup' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"unknown members ignored", `{"TableName":"abc",` + okKeys + `,"Bogus":{"a":[1,2]}}`, ""},
	}
	vd := new(Validator)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in vIn
			err := decode(vd, []byte(tt.body), &in)
			if got := errText(err); got != tt.want {
				t.Errorf("Decode(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
			var te *ddb.Error
			if err != nil && (!errors.As(err, &te) || te.Code != ddb.ValidationException) {
				t.Errorf("Decode(%s) error %#v, want a ValidationException", tt.body, err)
			}
		})
	}
}

func TestDecodeSerialization(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"number for string", `{"TableName":5}`, "NUMBER_VALUE cannot be converted to String"},
		{"string for integer", `{"Limit":"x"}`, "STRING_VALUE cannot be converted to Integer"},
		{"fraction for integer", `{"Limit":1.5}`, "NUMBER_VALUE cannot be converted to Integer"},
		{"string for long", `{"Throughput":{"ReadCapacityUnits":"1"}}`, "STRING_VALUE cannot be converted to Long"},
		{"bool for double", `{"Ratio":true}`, "BOOLEAN_VALUE cannot be converted to Double"},
		{"object for string", `{"TableName":{}}`, "Start of structure or map found where not expected."},
		{"array for string", `{"TableName":["a"]}`, "Start of list found where not expected"},
		{"string for list", `{"KeySchema":"x"}`, "STRING_VALUE cannot be converted to List"},
		{"top-level array", `[]`, "Start of list found where not expected"},
		{"truncated", `{"TableName":`, "Malformed JSON at offset 13: unexpected end of JSON input"},
		{"garbage", `{"TableName" "x"}`, "Malformed JSON at offset 14: invalid character '\"' after object key"},
		{"trailing data", `{}{}`, "Malformed JSON at offset 3: invalid character '{' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in vIn
			err := decode(new(Validator), []byte(tt.body), &in)
			var te *ddb.Error
			if !errors.As(err, &te) || te.Code != ddb.SerializationException {
				t.Fatalf("Decode(%s) = %v, want a SerializationException", tt.body, err)
			}
			if got := te.Message; got != tt.want {
				t.Errorf("Decode(%s) message\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
		})
	}
}

// vSourced is a request whose Keys may be left out when Source is given,
// as CreateTable's KeySchema when GlobalTableSourceArn is.
type vSourced struct {
	Name   string `ddb:"required"`
	Keys   []vKey `ddb:"requiredunless=Source;len=1..2"`
	Source string
}

func TestValidateRequiredUnless(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"neither", `{"Name":"a"}`,
			"1 validation error detected: Value null at 'keys' failed to satisfy constraint: Member must not be null"},
		{"neither, with another error in the service's order", `{}`,
			"2 validation errors detected: Value null at 'keys' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'name' failed to satisfy constraint: Member must not be null"},
		{"the named member instead", `{"Name":"a","Source":"s"}`, ""},
		{"both", `{"Name":"a","Source":"s","Keys":[{"AttributeName":"pk","KeyType":"HASH"}]}`, ""},
		{"present is still checked", `{"Name":"a","Source":"s","Keys":[]}`,
			"1 validation error detected: Value '[]' at 'keys' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"an empty named member counts as absent", `{"Name":"a","Source":""}`,
			"1 validation error detected: Value null at 'keys' failed to satisfy constraint: Member must not be null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in vSourced
			if got := errText(decode(new(Validator), []byte(tt.body), &in)); got != tt.want {
				t.Errorf("Decode(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
		})
	}
}

func TestBadTagIsInternal(t *testing.T) {
	type bad struct {
		N int `ddb:"len=1..2"`
	}
	type unknown struct {
		S string `ddb:"frob"`
	}
	type badRegex struct {
		S string `ddb:"pattern=("`
	}
	for _, v := range []any{&bad{N: 1}, &unknown{S: "x"}, &badRegex{S: "x"}} {
		err := decode(new(Validator), []byte(`{}`), v)
		var te *ddb.Error
		if err == nil || errors.As(err, &te) {
			t.Errorf("Decode(%T) = %v, want an internal (non-DynamoDB) error", v, err)
		}
	}
}

func TestReachesSkipsUntaggedRecursiveTypes(t *testing.T) {
	type node struct {
		M map[string]node
		L []node
	}
	type tagged struct {
		Kids []tagged
		Name string `ddb:"required"`
	}
	if got := reaches(typeOf[node]()); got {
		t.Errorf("reaches(node) = true, want false")
	}
	if got := reaches(typeOf[[]tagged]()); !got {
		t.Errorf("reaches([]tagged) = false, want true")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	var te *ddb.Error
	if errors.As(err, &te) {
		return te.Message
	}
	return err.Error()
}

func make256(c byte) []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = c
	}
	return b
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestValidateTableNameOrARN: a member naming an existing table takes a
// table name, checked as CreateTable checks it, or a table ARN.
func TestValidateTableNameOrARN(t *testing.T) {
	type in struct {
		TableName string `ddb:"required;tablename"`
	}
	long := string(make256('a'))
	tests := []struct{ name, body, want string }{
		{"name", `{"TableName":"Orders-2.v_1"}`, ""},
		{"arn", `{"TableName":"arn:aws:dynamodb:us-east-1:123456789012:table/Orders"}`, ""},
		{"short", `{"TableName":"ab"}`,
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"pattern", `{"TableName":"a;b"}`,
			"1 validation error detected: Value 'a;b' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"short and pattern", `{"TableName":"x!"}`,
			"2 validation errors detected: Value 'x!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value 'x!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"long", `{"TableName":"` + long + `"}`,
			"1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"long arn", `{"TableName":"arn:` + repeat("a", 1021) + `"}`,
			"1 validation error detected: Value 'arn:" + repeat("a", 1021) + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 1024"},
		{"missing", `{}`, "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
	}
	vd := new(Validator)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v in
			err := decode(vd, []byte(tt.body), &v)
			if got := errText(err); got != tt.want {
				t.Errorf("Decode(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
		})
	}
}

// decode is what api's Request.Decode does with a body: unmarshal, then
// validate.
func decode(vd *Validator, body []byte, v any) error {
	if err := codec.Unmarshal(body, v); err != nil {
		return err
	}
	return vd.Validate(v)
}

// TestPatternHoldsSemicolon checks that a pattern, the tag's last rule, may
// hold ';': it runs to the end of the tag, and the rules before it apply.
func TestPatternHoldsSemicolon(t *testing.T) {
	type in struct {
		S string `ddb:"len=..4;pattern=[a-c;]+(;x)?"`
	}
	for _, tc := range []struct{ body, want string }{
		{`{"S":"a;b"}`, ""},
		{`{"S":"c;x"}`, ""},
		{`{"S":"a!"}`, "1 validation error detected: Value 'a!' at 's' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-c;]+(;x)?"},
		{`{"S":"a;b;c"}`, "1 validation error detected: Value 'a;b;c' at 's' failed to satisfy constraint: Member must have length less than or equal to 4"},
	} {
		err := decode(new(Validator), []byte(tc.body), &in{})
		got := ""
		if err != nil {
			got = err.Error()
			var e *ddb.Error
			if errors.As(err, &e) {
				got = e.Message
			}
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.body, got, tc.want)
		}
	}
}

// TestValidateTableNameKeys: a map keyed by table names (BatchGetItem's
// RequestItems) fails its key constraint when a key is neither a table
// name nor an ARN, every constraint listed, the map shown as JSON.
func TestValidateTableNameKeys(t *testing.T) {
	type entry struct {
		Keys []string `json:",omitempty"`
	}
	type in struct {
		Items map[string]entry `ddb:"tablenamekeys"`
	}
	const keys = "failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, " +
		"Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"
	tests := []struct{ name, body, want string }{
		{"names", `{"Items":{"Orders":{},"a.b-c_1":{}}}`, ""},
		{"arn", `{"Items":{"arn:aws:dynamodb:us-east-1:123456789012:table/x":{}}}`, ""},
		{"pattern", `{"Items":{"bad!name":{"Keys":["a"]}}}`, `1 validation error detected: Value '{"bad!name":{"Keys":["a"]}}' at 'items' ` + keys},
		{"short", `{"Items":{"ab":{},"Orders":{}}}`, `1 validation error detected: Value '{"Orders":{},"ab":{}}' at 'items' ` + keys},
		{"long", `{"Items":{"` + repeat("a", 256) + `":{}}}`, `1 validation error detected: Value '{"` + repeat("a", 256) + `":{}}' at 'items' ` + keys},
	}
	vd := new(Validator)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v in
			err := decode(vd, []byte(tt.body), &v)
			if got := errText(err); got != tt.want {
				t.Errorf("Decode(%s)\n got: %s\nwant: %s", tt.body, got, tt.want)
			}
		})
	}
}

// TestJavaMapOrder: the service lists its members' failures in the order
// of a Java HashMap of the shape's member names; every recorded order of
// several failures is that order (see javaMapOrder).
func TestJavaMapOrder(t *testing.T) {
	const (
		null = "failed to satisfy constraint: Member must not be null"
		rcc  = "Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
		rv   = "Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
		ricm = "Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"
		xor  = "Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"
	)
	enums := `"ReturnConsumedCapacity":"INVALID","ReturnValues":"INVALID","ReturnItemCollectionMetrics":"INVALID"`
	tests := []struct {
		name string
		body string
		in   any
		want string
	}{
		{"UpdateItem", `{` + enums + `,"ConditionalOperator":"XOR"}`, new(ddb.UpdateItemInput),
			"6 validation errors detected: " + rcc + "; Value null at 'tableName' " + null + "; " + rv + "; " + xor + "; " + ricm +
				"; Value null at 'key' " + null},
		{"PutItem", `{"ReturnValues":"INVALID"}`, new(ddb.PutItemInput),
			"3 validation errors detected: " + rv + "; Value null at 'item' " + null + "; Value null at 'tableName' " + null},
		{"BatchWriteItem", `{"RequestItems":{"T_1":[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]},` + enums + `}`, new(ddb.BatchWriteItemInput),
			"2 validation errors detected: " + rcc + "; " + ricm},
		{"TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"abc","Key":{"pk":{"S":"a"}},"ConditionExpression":"a"}}],"ClientRequestToken":"` + repeat("x", 37) + `",` + enums + `}`, new(ddb.TransactWriteItemsInput),
			"3 validation errors detected: Value '" + repeat("x", 37) + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36; " +
				rcc + "; " + ricm},
		{"attribute definition", `{"TableName":"abc","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{}],"BillingMode":"PAY_PER_REQUEST"}`,
			new(ddb.CreateTableInput),
			"2 validation errors detected: Value null at 'attributeDefinitions.1.member.attributeType' " + null +
				"; Value null at 'attributeDefinitions.1.member.attributeName' " + null},
	}
	vd := new(Validator)
	for _, tt := range tests {
		if got := errText(decode(vd, []byte(tt.body), tt.in)); got != tt.want {
			t.Errorf("%s:\n got: %s\nwant: %s", tt.name, got, tt.want)
		}
	}
}
