package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// ruleKind names one constraint of the ddb tag grammar (see Validator).
type ruleKind uint8

const (
	ruleRequired ruleKind = iota + 1
	ruleRequiredUnless
	ruleLen
	ruleMin
	ruleMax
	rulePattern
	ruleEnum
	ruleTableNameKeys
	ruleWriteRequestItems
	ruleEmptySays
	ruleCheckEmpty
	ruleEach
)

// rule is one parsed constraint.
type rule struct {
	kind         ruleKind
	lo, hi       int64 // ruleLen bounds; -1 when open
	num          float64
	text         string // the bound or pattern as written, for messages
	re           *regexp.Regexp
	set          []string
	enumRendered string
	arn          arnScope
	each         []rule // ruleEach: the rules every element of a list is held to
}

// arnScope limits a rule to values that are, or are not, ARNs.
type arnScope uint8

const (
	anyValue arnScope = iota
	namesOnly
	arnsOnly
)

// applies reports whether r constrains the string s.
func (r *rule) applies(s string) bool {
	switch r.arn {
	case namesOnly:
		return !strings.HasPrefix(s, "arn:")
	case arnsOnly:
		return strings.HasPrefix(s, "arn:")
	}
	return true
}

// namePattern is the pattern of table, index and backup names.
const namePattern = "[a-zA-Z0-9_.-]+"

// matches reports whether s matches r's pattern. namePattern, which every
// request naming a table checks, is matched by isName, not the regexp: its
// plain twin, which TestIsNameMatchesPattern holds it to.
func (r *rule) matches(s string) bool {
	if r.text == namePattern {
		return isName(s)
	}
	return r.re.MatchString(s)
}

// isName reports whether s matches namePattern: one or more of
// [a-zA-Z0-9_.-]. Every byte of a multi-byte character is >= 0x80, so
// checking bytes refuses what the regexp refuses rune by rune.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// tableNameRules are the rules of the "tablename" tag: the members that name
// an existing table take its name (3 to 255 of [a-zA-Z0-9_.-]) or its ARN (up
// to 1024 characters), and a bad name is a ValidationException before any
// lookup, the length reported before the pattern.
func tableNameRules() []rule {
	return []rule{
		{kind: ruleLen, lo: 3, hi: 255, arn: namesOnly},
		{kind: rulePattern, text: namePattern, re: regexp.MustCompile("^(?:" + namePattern + ")$"), arn: namesOnly},
		{kind: ruleLen, lo: -1, hi: 1024, arn: arnsOnly},
	}
}

// parseRules parses a ddb tag for a field of type t.
func parseRules(tag string, t reflect.Type) ([]rule, error) {
	if tag == "" {
		return nil, nil
	}
	var rules []rule
	for rest := tag; rest != ""; {
		part, after, _ := strings.Cut(rest, ";")
		if p := strings.TrimSpace(part); strings.HasPrefix(p, "pattern=") || strings.HasPrefix(p, "eachpattern=") || strings.HasPrefix(p, "emptysays=") {
			part, after = rest, "" // a pattern or a message runs to the end of the tag: it may hold ';'
		}
		rest = after
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, arg, hasArg := strings.Cut(part, "=")
		var r rule
		var err error
		switch key {
		case "required":
			if hasArg {
				return nil, errors.New("required takes no argument")
			}
			r.kind = ruleRequired
		case "requiredunless":
			r.kind, r.text = ruleRequiredUnless, arg
			if arg == "" {
				err = errors.New("want requiredunless=FIELD")
			}
		case "tablenamekeys":
			r.kind = ruleTableNameKeys
		case "writerequestitems":
			r.kind = ruleWriteRequestItems
		case "eachenum", "eachlen", "eachpattern":
			if rules, err = addEach(rules, strings.TrimPrefix(part, "each"), derefType(t)); err != nil {
				return nil, fmt.Errorf("rule %q: %w", part, err)
			}
			continue
		case "tablename":
			if derefType(t).Kind() != reflect.String {
				return nil, fmt.Errorf("rule %q: does not apply to %s", part, t)
			}
			rules = append(rules, tableNameRules()...)
			continue
		case "len":
			r, err = parseLen(arg)
		case "min", "max":
			r, err = parseBound(key, arg)
		case "pattern":
			r.kind, r.text = rulePattern, arg
			r.re, err = regexp.Compile("^(?:" + arg + ")$")
		case "namepattern":
			// A name's pattern where a later rule follows it.
			r.kind, r.text = rulePattern, namePattern
			r.re = regexp.MustCompile("^(?:" + namePattern + ")$")
		case "checkempty":
			r.kind = ruleCheckEmpty
		case "emptysays":
			r.kind, r.text = ruleEmptySays, arg
			if arg == "" || derefType(t).Kind() != reflect.String {
				err = errors.New("want emptysays=MESSAGE on a string")
			}
		case "enum":
			r.kind = ruleEnum
			r.set = strings.Split(arg, "|")
			r.enumRendered = "[" + strings.Join(r.set, ", ") + "]"
			if arg == "" {
				err = errors.New("empty enum")
			}
		default:
			return nil, fmt.Errorf("unknown rule %q", key)
		}
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", part, err)
		}
		if err := applicable(r.kind, derefType(t)); err != nil {
			return nil, fmt.Errorf("rule %q: %w", part, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// addEach parses rule, one of an element's rules (enum, len or pattern), into
// the one ruleEach of rules (appended when there is none yet): a list's
// element rules fail together, in one message (rule.check).
func addEach(rules []rule, elemRule string, t reflect.Type) ([]rule, error) {
	if t.Kind() != reflect.Slice {
		return nil, fmt.Errorf("does not apply to %s", t)
	}
	sub, err := parseRules(elemRule, t.Elem())
	if err != nil {
		return nil, err
	}
	for i := range rules {
		if rules[i].kind == ruleEach {
			rules[i].each = append(rules[i].each, sub...)
			return rules, nil
		}
	}
	return append(rules, rule{kind: ruleEach, each: sub}), nil
}

// parseBound parses a "min=N" or "max=N" rule.
func parseBound(key, arg string) (rule, error) {
	r := rule{kind: ruleMin, text: arg}
	if key == "max" {
		r.kind = ruleMax
	}
	var err error
	r.num, err = strconv.ParseFloat(arg, 64)
	return r, err
}

// parseLen parses "MIN..MAX", "MIN.." or "..MAX".
func parseLen(arg string) (rule, error) {
	r := rule{kind: ruleLen, lo: -1, hi: -1}
	loS, hiS, ok := strings.Cut(arg, "..")
	if !ok {
		return r, errors.New("want len=MIN..MAX")
	}
	var err error
	if loS != "" {
		if r.lo, err = strconv.ParseInt(loS, 10, 64); err != nil {
			return r, err
		}
	}
	if hiS != "" {
		if r.hi, err = strconv.ParseInt(hiS, 10, 64); err != nil {
			return r, err
		}
	}
	return r, nil
}

// applicable rejects rules that cannot apply to a field's (dereferenced) type.
func applicable(k ruleKind, t reflect.Type) error {
	switch k {
	case ruleLen:
		switch t.Kind() {
		case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
			return nil
		}
	case ruleMin, ruleMax:
		if isNumber(t.Kind()) {
			return nil
		}
	case rulePattern, ruleEnum:
		if t.Kind() == reflect.String {
			return nil
		}
	case ruleTableNameKeys:
		if t.Kind() == reflect.Map && t.Key().Kind() == reflect.String {
			return nil
		}
	case ruleWriteRequestItems:
		if t == reflect.TypeFor[map[string][]ddb.WriteRequest]() {
			return nil
		}
	default:
		return nil
	}
	return fmt.Errorf("does not apply to %s", t)
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// check returns Coral's constraint text if the (present) value v breaks r, else "".
func (r *rule) check(v reflect.Value) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() == reflect.String && !r.applies(v.String()) {
		return ""
	}
	switch r.kind {
	case ruleLen:
		n := int64(v.Len())
		if v.Kind() == reflect.String {
			n = javaLength(v.String())
		}
		if r.lo >= 0 && n < r.lo {
			return "Member must have length greater than or equal to " + strconv.FormatInt(r.lo, 10)
		}
		if r.hi >= 0 && n > r.hi {
			return "Member must have length less than or equal to " + strconv.FormatInt(r.hi, 10)
		}
	case ruleMin:
		if cmpNumber(v, r.num) < 0 {
			return "Member must have value greater than or equal to " + r.text
		}
	case ruleMax:
		if cmpNumber(v, r.num) > 0 {
			return "Member must have value less than or equal to " + r.text
		}
	case rulePattern:
		if !r.matches(v.String()) {
			return "Member must satisfy regular expression pattern: " + r.text
		}
	case ruleEnum:
		if !slices.Contains(r.set, v.String()) {
			return "Member must satisfy enum value set: " + r.enumRendered
		}
	case ruleTableNameKeys:
		return tableNameKeys(v)
	case ruleWriteRequestItems:
		return writeRequestItems(v) // java_echo.go
	case ruleEach:
		return r.checkEach(v)
	}
	return ""
}

// checkEach returns, if an element of the list v breaks one of r's element
// rules, the service's message for a list member's constraint: every
// element constraint broken, each once, in brackets.
func (r *rule) checkEach(v reflect.Value) string {
	var broken []string
	for i := range v.Len() {
		for j := range r.each {
			if msg := r.each[j].check(v.Index(i)); msg != "" && !slices.Contains(broken, msg) {
				broken = append(broken, msg)
			}
		}
	}
	if broken == nil {
		return ""
	}
	return "Member must satisfy constraint: [" + strings.Join(broken, ", ") + "]"
}

// tableNameKeys is msgTableNameKeys if a key of the map v is neither a
// table name nor an ARN, else "".
func tableNameKeys(v reflect.Value) string {
	for _, k := range v.MapKeys() {
		if !ddb.TableNameOrARN(k.String()) {
			return msgTableNameKeys
		}
	}
	return ""
}

// msgTableNameKeys is the service's refusal of a map keyed by table names
// (BatchGetItem's and BatchWriteItem's RequestItems) holding a key that is
// no table name: every constraint of the key listed, whichever failed
// (paritysuite/dynamodb-conformance validation-ordering/batchOperations and
// batchWriteItem error messages, us-east-1 and eu-west-2, 2026-10-09).
const msgTableNameKeys = "Map keys must satisfy constraint: [Member must have length less than or equal to 255, " +
	"Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"

// renderFor prints v, which breaks r, as the service's message shows it:
// a map keyed by table names as the request's JSON (the recorded echo of
// BatchGetItem's RequestItems, '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}'),
// BatchWriteItem's RequestItems as Java prints it (java_echo.go), anything
// else as render does.
func (r *rule) renderFor(v reflect.Value) string {
	switch r.kind {
	case ruleTableNameKeys:
		if b, err := json.Marshal(v.Interface()); err == nil {
			return string(b)
		}
	case ruleWriteRequestItems:
		if m, ok := v.Interface().(map[string][]ddb.WriteRequest); ok {
			return javaRequestItems(m)
		}
	}
	return render(v)
}

// javaLength counts UTF-16 code units, as Java's String.length does.
func javaLength(s string) int64 {
	var n int64
	for _, c := range s {
		n++
		if c > 0xFFFF {
			n++
		}
	}
	return n
}

// cmpNumber compares a numeric value with bound b, exactly for integers.
func cmpNumber(v reflect.Value, b float64) int {
	switch {
	case v.CanInt():
		x := v.Int()
		if b == math.Trunc(b) && math.Abs(b) < 1<<62 {
			return cmpOrdered(x, int64(b))
		}
		return cmpOrdered(float64(x), b)
	case v.CanUint():
		x := v.Uint()
		if b < 0 {
			return 1
		}
		if b == math.Trunc(b) && b < 1<<62 {
			return cmpOrdered(x, uint64(b))
		}
		return cmpOrdered(float64(x), b)
	case v.CanFloat():
		return cmpOrdered(v.Float(), b)
	}
	return 0
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// render prints a member value the way Coral's messages show it (Java's
// toString): strings bare, lists "[a, b]", maps "{k=v}", structures
// "{Name: v, …}".
func render(v reflect.Value) string {
	var b strings.Builder
	renderTo(&b, v, 0)
	return b.String()
}

func renderTo(b *strings.Builder, v reflect.Value, depth int) {
	if depth > 8 {
		b.WriteString("...")
		return
	}
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("null")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		renderTo(b, v.Elem(), depth)
	case reflect.String:
		b.WriteString(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(b, "java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]", v.Len(), v.Len())
			return
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			renderTo(b, v.Index(i), depth+1)
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			renderTo(b, k, depth+1)
			b.WriteByte('=')
			renderTo(b, v.MapIndex(k), depth+1)
		}
		b.WriteByte('}')
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			name, skip := jsonMemberName(sf)
			if skip || !sf.IsExported() || absent(v.Field(i)) {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			b.WriteString(name + ": ")
			renderTo(b, v.Field(i), depth+1)
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, v.Interface())
	}
}
