package integration

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/ddblocal/ddblocal/partiql"
	"github.com/ddblocal/ddblocal/table"
)

// requestShape returns the type of the request ddblocal decodes for
// operation op: the pointer-to-struct argument of the table or PartiQL
// service method of that name (every one takes a context, the Region and
// its request). ok is false for an operation neither serves (DescribeEndpoints,
// answered by the protocol layer, takes no members).
func requestShape(op string) (reflect.Type, bool) {
	for _, recv := range []reflect.Type{reflect.TypeOf(&table.Service{}), reflect.TypeOf(&partiql.Service{})} {
		m, ok := recv.MethodByName(op)
		if !ok {
			continue
		}
		for i := range m.Type.NumIn() {
			if in := m.Type.In(i); in.Kind() == reflect.Pointer && in.Elem().Kind() == reflect.Struct && in.Elem().Name() != "Service" {
				return in.Elem(), true
			}
		}
	}
	return nil, false
}

// wireFields returns t's members by their JSON names, as encoding/json
// (and ddblocal's decoder, which reads the same tags) sees them: embedded
// structs' members promoted, "-" left out.
func wireFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range wireFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// shapeElem strips pointers, slices and map values down to the type a
// member's elements have.
func shapeElem(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
}

// decodesItself reports whether ddblocal's type t reads its JSON by its own
// code (an attribute value, an item, an expression member), so that its
// fields say nothing about the members it reads.
func decodesItself(t reflect.Type) bool {
	u := reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	return t.Implements(u) || reflect.PointerTo(t).Implements(u)
}

// unreadMembers appends to out the path of every member of the SDK's shape
// sdk (at path) that ddblocal's shape ours has no field for, descending
// into nested structures both sides model.
func unreadMembers(path string, sdk, ours reflect.Type, seen map[[2]reflect.Type]bool, out *[]string) {
	if seen[[2]reflect.Type{sdk, ours}] {
		return
	}
	seen[[2]reflect.Type{sdk, ours}] = true
	have := wireFields(ours)
	for i := range sdk.NumField() {
		f := sdk.Field(i)
		if !f.IsExported() || f.Name == "ResultMetadata" {
			continue
		}
		mine, ok := have[f.Name]
		if !ok {
			*out = append(*out, path+"."+f.Name)
			continue
		}
		s, o := shapeElem(f.Type), shapeElem(mine)
		if s.Kind() == reflect.Struct && o.Kind() == reflect.Struct && s.PkgPath() != "time" && !decodesItself(o) {
			unreadMembers(path+"."+f.Name, s, o, seen, out)
		}
	}
}

// sdkUnreadMembers lists every request member of the linked SDK's
// operations that ddblocal's request shapes do not read, sorted.
func sdkUnreadMembers(t *testing.T) []string {
	t.Helper()
	var out []string
	ct := reflect.TypeOf(&dynamodb.Client{})
	for _, op := range sdkOperations() {
		m, _ := ct.MethodByName(op)
		sdkIn := m.Type.In(2).Elem()
		ours, ok := requestShape(op)
		if !ok {
			if sdkIn.NumField() > 1 { // noSmithyDocumentSerde only
				t.Errorf("%s: no request shape found for an operation with members", op)
			}
			continue
		}
		unreadMembers(op, sdkIn, ours, map[[2]reflect.Type]bool{}, &out)
	}
	slices.Sort(out)
	return out
}

// documentedUnread reads the members the differences page lists as not
// read: the first column of the table under its "Request members
// ddblocal does not read" heading, one `Operation.Member.Path` a row.
func documentedUnread(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/differences-from-dynamodb.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Request members ddblocal does not read\n")
	if !ok {
		t.Fatal(`docs/differences-from-dynamodb.md has no "## Request members ddblocal does not read" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var out []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, m := range strings.Split(strings.TrimSpace(cells[1]), ",") {
			out = append(out, strings.Trim(strings.TrimSpace(m), "`"))
		}
	}
	slices.Sort(out)
	return out
}

// TestEveryRequestMemberRead: every member of every operation's request in
// aws-sdk-go-v2 service/dynamodb (v1.74), at every depth ddblocal models,
// is read by ddblocal's request shapes, except exactly those the
// differences page lists (each with how the request is answered): a member
// the SDK adds, or one ddblocal stops reading, fails here until the page
// says so, and a listed member ddblocal comes to read fails until the row
// goes.
func TestEveryRequestMemberRead(t *testing.T) {
	got, doc := sdkUnreadMembers(t), documentedUnread(t)
	for _, m := range got {
		if !slices.Contains(doc, m) {
			t.Errorf("%s is not read and not listed on the differences page", m)
		}
	}
	for _, m := range doc {
		if !slices.Contains(got, m) {
			t.Errorf("%s is listed on the differences page as not read, but ddblocal reads it", m)
		}
	}
}
