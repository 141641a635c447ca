package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/ddb"
)

// Validator checks decoded requests against their `ddb` struct tags, the
// way Coral checks a request against the API model's member constraints.
//
// Tag grammar: rules separated by ';', each one of
//
//	required         the member must be present (non-nil pointer, slice or map; non-zero value)
//	requiredunless=F required unless the struct's field F (its Go name) is present: the
//	                 model's member is optional, but a request without either is refused as
//	                 though it were required (CreateTable's KeySchema without GlobalTableSourceArn)
//	len=MIN..MAX     string length (UTF-16 units), slice or map length; either bound may be omitted
//	min=N, max=N     numeric bounds
//	pattern=REGEX    the whole string must match REGEX; REGEX runs to the end of the tag (so it may
//	                 hold ';'), so pattern comes last
//	namepattern      pattern=[a-zA-Z0-9_.-]+ (a table, index or backup name), which other rules may
//	                 follow: the service checks some names' pattern before their length
//	enum=A|B|C       the string must be one of the listed values
//	eachenum=A|B, eachlen=MIN..MAX, eachpattern=REGEX
//	                 a list's every element is held to enum, len or pattern; the broken ones
//	                 are reported together, once for the list ("Member must satisfy
//	                 constraint: [...]"); eachpattern, like pattern, runs to the end of the tag
//	tablename        a table's name (len=3..255;pattern=[a-zA-Z0-9_.-]+) or ARN (len=..1024)
//	tablenamekeys    a map's keys are table names or ARNs (BatchGetItem's RequestItems), its
//	                 value shown as JSON in the message
//	writerequestitems BatchWriteItem's RequestItems: 1 to 25 requests a table, then the keys
//	                 as tablenamekeys, checked after every other member's constraint and
//	                 reported alone, the map shown as Java prints it (java_echo.go)
//	checkempty       a table name (tablename) sent as "" is checked by its name rules (see below)
//	emptysays=TEXT   a string sent as "" is refused with TEXT alone (no "N validation errors"
//	                 envelope), when every other constraint holds, instead of by its other rules:
//	                 the service's hand-written answer for some members; it runs to the end of the tag
//
// A member that is absent is only checked by `required`. Non-pointer numbers
// cannot be told apart from absent when zero, so 0 counts as absent; use a
// pointer where the difference matters. A non-pointer string is "" both when
// absent and when sent empty: ValidateBody tells them apart from the
// request's JSON, and a string member sent as "" that its constraints
// refuse is refused by them, quoting the empty value, as the service
// refuses it; otherwise "" still counts as absent.
// Nested structs, and slices and maps of them, are checked recursively.
//
// Parsed rules are cached per type; the zero Validator is ready to use and
// safe for concurrent use.
type Validator struct {
	types sync.Map // reflect.Type → *structRules
}

// structRules is the parsed checking plan for one struct type.
type structRules struct {
	fields []fieldRules
	err    error // a malformed tag: a programming error, reported as internal
}

// fieldRules is the checking plan for one field.
type fieldRules struct {
	index []int  // reflect's index path: an embedded struct's members are the parent's
	name  string // path segment: the JSON member name with its first letter lowered
	json  string // the JSON member name
	// emptyChecked: a string member whose rules refuse "" (see ValidateBody)
	emptyChecked bool
	rules        []rule
	walk         bool // the field's type reaches a struct with ddb tags
	// zeroer marks a struct type with an IsZero method (attr.Encoded),
	// which says when its value counts as not sent.
	zeroer bool
}

// isZeroer is implemented by struct types that know when they are empty.
type isZeroer interface{ IsZero() bool }

// Validate checks v (a pointer to a struct, usually) and returns a
// ValidationException listing every failed constraint, or nil.
func (vd *Validator) Validate(v any) error {
	return vd.ValidateBody(v, nil)
}

// ValidateBody is Validate for v decoded from body, the request's JSON: a
// string member body sends as "" is present, and checked by its
// constraints, rather than absent. Only a body holding "" is read again.
func (vd *Validator) ValidateBody(v any, body []byte) error {
	if validFast(v, body) {
		return nil
	}
	return vd.walk(v, body)
}

// walk is ValidateBody by reflection, for every request: the plain twin of
// validFast.
func (vd *Validator) walk(v any, body []byte) error {
	var c checker
	c.vd = vd
	var raw json.RawMessage
	if bytes.Contains(body, []byte(`""`)) {
		raw = body
	}
	c.value(reflect.ValueOf(v), "", raw)
	if c.err != nil {
		return c.err
	}
	switch n := len(c.msgs); n {
	case 0:
		if c.bare != "" {
			return ddb.Errorf(ddb.ValidationException, "%s", c.bare)
		}
		if c.later != "" {
			return ddb.Errorf(ddb.ValidationException, "1 validation error detected: %s", c.later)
		}
		return nil
	case 1:
		return ddb.Errorf(ddb.ValidationException, "1 validation error detected: %s", c.msgs[0])
	default:
		return ddb.Errorf(ddb.ValidationException, "%d validation errors detected: %s", n, strings.Join(c.msgs, "; "))
	}
}

// checker accumulates the failures of one validate call.
type checker struct {
	vd   *Validator
	msgs []string
	bare string // the first emptysays message met
	// later is the first failure of a constraint the service checks after
	// every other (writerequestitems), reported when nothing else failed.
	later string
	err   error
}

// value walks any value looking for structs to check. raw, when not nil,
// is the JSON v was decoded from (see ValidateBody).
func (c *checker) value(v reflect.Value, path string, raw json.RawMessage) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			c.value(v.Elem(), path, raw)
		}
	case reflect.Struct:
		c.structValue(v, path, raw)
	case reflect.Slice, reflect.Array:
		elems := rawJSON[[]json.RawMessage](raw)
		for i := range v.Len() {
			c.value(v.Index(i), path+"."+strconv.Itoa(i+1)+".member", rawAt(elems, i))
		}
	case reflect.Map:
		members := rawJSON[map[string]json.RawMessage](raw)
		iter := v.MapRange()
		for iter.Next() {
			k := fmt.Sprint(iter.Key().Interface())
			c.value(iter.Value(), path+"."+k+".member", members[k])
		}
	}
}

// rawJSON is raw decoded as a T (a slice or map of its parts), or the
// zero T when raw is nil or is not one. The target lives here, so that a
// request without a raw body (the usual one) does not allocate it.
func rawJSON[T any](raw json.RawMessage) T {
	var zero T
	if raw == nil {
		return zero
	}
	var v T // escapes: allocated here, past the nil check
	if json.Unmarshal(raw, &v) != nil {
		return zero
	}
	return v
}

// rawAt is elems[i], or nil past its end.
func rawAt(elems []json.RawMessage, i int) json.RawMessage {
	if i < len(elems) {
		return elems[i]
	}
	return nil
}

// structValue checks one struct's fields against their rules, then recurses.
func (c *checker) structValue(v reflect.Value, path string, raw json.RawMessage) {
	sr := c.vd.rulesFor(v.Type())
	if sr.err != nil {
		c.err = sr.err
		return
	}
	members := rawJSON[map[string]json.RawMessage](raw)
	for i := range sr.fields {
		f := &sr.fields[i]
		fv := v.FieldByIndex(f.index)
		p := f.name
		if path != "" {
			p = path + "." + f.name
		}
		sentEmpty := f.emptyChecked && fv.Kind() == reflect.String && fv.Len() == 0 && string(members[f.json]) == `""`
		if !sentEmpty && (absent(fv) || (f.zeroer && fv.Interface().(isZeroer).IsZero())) {
			if hasRule(f.rules, ruleRequired) || requiredHere(f.rules, v) {
				c.msgs = append(c.msgs, "Value null at '"+p+"' failed to satisfy constraint: Member must not be null")
			}
			continue
		}
		if says := emptySays(f.rules, fv); says != "" {
			if c.bare == "" {
				c.bare = says
			}
			continue
		}
		for _, r := range f.rules {
			msg := r.check(fv)
			if msg == "" {
				continue
			}
			msg = "Value '" + r.renderFor(fv) + "' at '" + p + "' failed to satisfy constraint: " + msg
			if r.kind != ruleWriteRequestItems {
				c.msgs = append(c.msgs, msg)
			} else if c.later == "" {
				c.later = msg
			}
		}
		if f.walk {
			c.value(fv, p, members[f.json])
		}
	}
}

// emptyChecked reports whether a string member with rules rs, sent as "",
// is refused by them (see ValidateBody). A table name's rules (the
// tablename tag) are left out unless checkempty says so: the service's
// answer to an empty TableName differs by operation (api/tablename.go
// answers PutItem's, UpdateItem's and DeleteItem's), so there it still
// counts as absent.
func emptyChecked(rs []rule) bool {
	empty := reflect.ValueOf("")
	all := hasRule(rs, ruleCheckEmpty)
	for i := range rs {
		if rs[i].kind == ruleEmptySays || ((all || rs[i].arn == anyValue) && rs[i].check(empty) != "") {
			return true
		}
	}
	return false
}

// emptySays is the emptysays message of rs when v, present, is "".
func emptySays(rs []rule, v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.String || v.Len() > 0 {
		return ""
	}
	for _, r := range rs {
		if r.kind == ruleEmptySays {
			return r.text
		}
	}
	return ""
}

// absent reports whether a member counts as not sent.
func absent(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return v.IsNil()
	case reflect.Struct, reflect.Array:
		return false
	}
	return v.IsZero()
}

// requiredHere reports whether a requiredunless rule of rs makes its member
// required in struct v: the field it names is absent there.
func requiredHere(rs []rule, v reflect.Value) bool {
	for _, r := range rs {
		if r.kind == ruleRequiredUnless && absent(v.FieldByName(r.text)) {
			return true
		}
	}
	return false
}

func hasRule(rs []rule, k ruleKind) bool {
	for _, r := range rs {
		if r.kind == k {
			return true
		}
	}
	return false
}

// rulesFor returns the cached plan for struct type t, parsing it on first use.
func (vd *Validator) rulesFor(t reflect.Type) *structRules {
	if sr, ok := vd.types.Load(t); ok {
		return sr.(*structRules)
	}
	sr := parseStruct(t)
	actual, _ := vd.types.LoadOrStore(t, sr)
	return actual.(*structRules)
}

// parseStruct builds the plan for struct type t: its members, an embedded
// struct's among them, in the order the service reports their failures.
func parseStruct(t reflect.Type) *structRules {
	sr := &structRules{}
	members := 0
	if err := sr.collect(t, t, nil, &members); err != nil {
		sr.err = err
		return sr
	}
	order := javaMapOrder(members)
	slices.SortStableFunc(sr.fields, func(a, b fieldRules) int { return order(a.name) - order(b.name) })
	return sr
}

// collect appends the plan of struct type t's fields (t is top, or a
// struct embedded in it at index path at) and counts its JSON members.
func (sr *structRules) collect(top, t reflect.Type, at []int, members *int) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		jsonName, skip := jsonMemberName(sf)
		if skip {
			continue
		}
		index := append(slices.Clip(at), i)
		if sf.Anonymous && jsonName == "" && sf.Type.Kind() == reflect.Struct {
			if err := sr.collect(top, sf.Type, index, members); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		*members++
		if jsonName == "" {
			jsonName = sf.Name
		}
		rules, err := parseRules(sf.Tag.Get("ddb"), sf.Type)
		if err == nil {
			err = unlessFieldsExist(rules, top)
		}
		if err != nil {
			return fmt.Errorf("api: bad ddb tag on %s.%s: %w", t, sf.Name, err)
		}
		f := fieldRules{index: index, name: lowerFirst(jsonName), json: jsonName, rules: rules, walk: reaches(sf.Type),
			emptyChecked: sf.Type.Kind() == reflect.String && emptyChecked(rules),
			zeroer:       sf.Type.Kind() == reflect.Struct && sf.Type.Implements(reflect.TypeFor[isZeroer]())}
		if len(f.rules) > 0 || f.walk {
			sr.fields = append(sr.fields, f)
		}
	}
	return nil
}

// javaMapOrder returns the rank of a member (by its path segment) in the
// order the service lists its members' failures: the iteration order of a
// java.util.HashMap holding the shape's members names, which is the
// bucket of String.hashCode spread by HashMap.hash, in a table of 16
// buckets doubled while members exceed three quarters of it; members
// sharing a bucket keep the struct's order. Every order recorded fits it
// (paritysuite/dynamodb-conformance, us-east-1 and eu-west-2, 2026-10-07 to
// 10-09: UpdateItem's returnConsumedCapacity, tableName, returnValues,
// conditionalOperator, key; PutItem's returnValues before tableName;
// BatchWriteItem's and TransactWriteItems' clientRequestToken,
// returnConsumedCapacity, returnItemCollectionMetrics; BatchGetItem's
// requestItems before returnConsumedCapacity; CreateTable's global indexes
// before its local ones; an attribute definition's type before its name;
// throughput's write before read; Time to Live's attributeName before
// enabled).
func javaMapOrder(members int) func(name string) int {
	buckets := 16
	for members*4 > buckets*3 {
		buckets *= 2
	}
	return func(name string) int {
		var h uint32
		for _, c := range utf16.Encode([]rune(name)) {
			h = 31*h + uint32(c)
		}
		return int((h ^ h>>16) & uint32(buckets-1))
	}
}

// unlessFieldsExist checks that the fields requiredunless rules name are
// fields of struct type t.
func unlessFieldsExist(rules []rule, t reflect.Type) error {
	for _, r := range rules {
		if _, ok := t.FieldByName(r.text); r.kind == ruleRequiredUnless && !ok {
			return fmt.Errorf("requiredunless=%s: %s has no such field", r.text, t)
		}
	}
	return nil
}

// jsonMemberName returns the JSON name from sf's json tag ("" if the tag
// names none) and whether encoding/json ignores the field.
func jsonMemberName(sf reflect.StructField) (string, bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	return name, false
}

// lowerFirst lowers the first letter, as Coral does for member paths
// ("TableName" → "tableName", "SSESpecification" → "sSESpecification").
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToLower(string(r)) + s[n:]
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// reaches reports whether a value of type t can contain a struct with a
// ddb tag, so that walking it could find something to check. Types such as
// attr.Value (recursive, untagged) are thus never walked.
func reaches(t reflect.Type) bool {
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type) bool
	visit = func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return visit(t.Elem())
		case reflect.Map:
			return visit(t.Elem())
		case reflect.Struct:
			if seen[t] {
				return false
			}
			seen[t] = true
			for i := range t.NumField() {
				sf := t.Field(i)
				if sf.Tag.Get("ddb") != "" || visit(sf.Type) {
					return true
				}
			}
		}
		return false
	}
	return visit(t)
}
