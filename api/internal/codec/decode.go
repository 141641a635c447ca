package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// Unmarshal decodes a request body into v, turning JSON syntax and member
// type errors into SerializationException in Coral's words. Errors returned
// by a member's own UnmarshalJSON (attr's) pass through unchanged. An empty
// body reads as {} (DynamoDB Local accepts it, and no member is then set);
// a JSON null does not (see nullBody).
func Unmarshal(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := nullBody(body); err != nil {
		return err
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return ddb.Errorf(ddb.SerializationException, "%s", fmt.Sprintf("Malformed JSON at offset %d: %s", syn.Offset, syn.Error()))
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return &ddb.Error{Code: ddb.SerializationException, Message: typeMismatch(ute)}
	}
	if isJSONPackageError(err) {
		return &ddb.Error{Code: ddb.SerializationException, Message: err.Error()}
	}
	return err
}

// nullBody refuses a body that is JSON null: a request is a JSON object, and
// encoding/json would otherwise read null as an object with no members and
// run the operation. Other non-objects already fail as type mismatches. No
// source gives DynamoDB's message for it, so the error carries none.
func nullBody(body []byte) error {
	if bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
		return &ddb.Error{Code: ddb.SerializationException}
	}
	return nil
}

// isJSONPackageError reports whether err was made by encoding/json itself
// rather than returned by a member's UnmarshalJSON.
func isJSONPackageError(err error) bool {
	var ive *json.InvalidUnmarshalError
	var b64 base64.CorruptInputError
	return errors.As(err, &ive) || errors.As(err, &b64) || strings.HasPrefix(err.Error(), "json: ")
}

// typeMismatch renders a JSON member of the wrong type the way Coral does:
// containers found where a scalar belongs are "Start of … found where not
// expected", scalars of the wrong kind "X_VALUE cannot be converted to Y".
func typeMismatch(e *json.UnmarshalTypeError) string {
	switch {
	case e.Value == "object":
		return "Start of structure or map found where not expected."
	case e.Value == "array":
		return "Start of list found where not expected"
	}
	return tokenName(e.Value) + " cannot be converted to " + javaTypeName(e.Type)
}

// tokenName maps encoding/json's description of a JSON value to Coral's token name.
func tokenName(v string) string {
	switch {
	case strings.HasPrefix(v, "number"):
		return "NUMBER_VALUE"
	case v == "string":
		return "STRING_VALUE"
	case v == "bool":
		return "BOOLEAN_VALUE"
	}
	return strings.ToUpper(v) + "_VALUE"
}

// javaTypeName names a Go member type as Coral's Java model would.
func javaTypeName(t reflect.Type) string {
	if t == nil {
		return "Structure"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Boolean"
	case reflect.Int, reflect.Int32, reflect.Int16, reflect.Int8,
		reflect.Uint32, reflect.Uint16, reflect.Uint8:
		return "Integer"
	case reflect.Int64, reflect.Uint, reflect.Uint64:
		return "Long"
	case reflect.Float32, reflect.Float64:
		return "Double"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "Blob"
		}
		return "List"
	case reflect.Map:
		return "Map"
	}
	return "Structure"
}
