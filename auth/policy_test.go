package auth

import (
	"strings"
	"testing"
)

func TestEvaluatePolicy(t *testing.T) {
	const arn = "arn:aws:dynamodb:us-east-1:111111111111:table/Orders"
	bob := PolicyRequest{Account: "222222222222", AccessKey: "AKIDBOB", Action: "dynamodb:GetItem", Resource: arn}
	stmt := func(s ...string) string { return `{"Version":"2012-10-17","Statement":[` + strings.Join(s, ",") + `]}` }
	allow := func(principal, action, resource string) string {
		return `{"Effect":"Allow","Principal":` + principal + `,"Action":` + action + `,"Resource":` + resource + `}`
	}
	deny := func(principal, action, resource string) string {
		return `{"Effect":"Deny","Principal":` + principal + `,"Action":` + action + `,"Resource":` + resource + `}`
	}
	for _, tc := range []struct {
		name string
		doc  string
		want Effect
	}{
		{"account id", stmt(allow(`{"AWS":"222222222222"}`, `"dynamodb:GetItem"`, `"`+arn+`"`)), Allowed},
		{"root arn in a list", stmt(allow(`{"AWS":["arn:aws:iam::333333333333:root","arn:aws:iam::222222222222:root"]}`, `["dynamodb:PutItem","dynamodb:GetItem"]`, `"`+arn+`"`)), Allowed},
		{"user named by access key", stmt(allow(`{"AWS":"arn:aws:iam::222222222222:user/AKIDBOB"}`, `"dynamodb:*"`, `"*"`)), Allowed},
		{"star principal", stmt(allow(`"*"`, `"dynamodb:Get*"`, `"arn:aws:dynamodb:*:111111111111:table/Ord?rs"`)), Allowed},
		{"action case", stmt(allow(`"*"`, `"DynamoDB:getitem"`, `"`+arn+`"`)), Allowed},
		{"other account", stmt(allow(`{"AWS":"333333333333"}`, `"dynamodb:*"`, `"*"`)), NoStatement},
		{"other action", stmt(allow(`"*"`, `"dynamodb:PutItem"`, `"*"`)), NoStatement},
		{"other table", stmt(allow(`"*"`, `"dynamodb:*"`, `"arn:aws:dynamodb:us-east-1:111111111111:table/Other"`)), NoStatement},
		{"index only", stmt(allow(`"*"`, `"dynamodb:*"`, `"`+arn+`/index/*"`)), NoStatement},
		{"explicit deny wins", stmt(allow(`"*"`, `"dynamodb:*"`, `"*"`), deny(`{"AWS":"222222222222"}`, `"dynamodb:GetItem"`, `"`+arn+`"`)), Denied},
		{"deny of others", stmt(allow(`"*"`, `"dynamodb:*"`, `"*"`), deny(`{"AWS":"333333333333"}`, `"*"`, `"*"`)), Allowed},
		{"not action", stmt(`{"Effect":"Allow","Principal":"*","NotAction":"dynamodb:Delete*","Resource":"*"}`), Allowed},
		{"not action excludes", stmt(`{"Effect":"Allow","Principal":"*","NotAction":"dynamodb:Get*","Resource":"*"}`), NoStatement},
		{"condition never allows", stmt(`{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}`), NoStatement},
		{"condition deny denies", stmt(allow(`"*"`, `"*"`, `"*"`), `{"Effect":"Deny","Principal":"*","Action":"*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`), Denied},
		{"single statement object", `{"Statement":` + allow(`"*"`, `"*"`, `"*"`) + `}`, Allowed},
		{"not json", `{"Statement":`, Denied},
	} {
		if got := EvaluatePolicy(tc.doc, bob); got != tc.want {
			t.Errorf("%s: got %d, want %d\n%s", tc.name, got, tc.want, tc.doc)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"a*c", "abbbc", true}, {"a*c", "abbb", false}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"*:table/T*", "arn:x:table/Tab", true}, {"a**", "a", true}, {"*a*b", "xaxxb", true}, {"*a*b", "xaxxbc", false},
	} {
		if got := glob(tc.p, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q): got %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
}

// BenchmarkPolicy compares judging a request by parsing the document each
// time (EvaluatePolicy, what every request did before policies were
// cached) with judging it by a policy parsed once (what the table package
// does now, by revision).
func BenchmarkPolicy(b *testing.B) {
	const arn = "arn:aws:dynamodb:us-east-1:111111111111:table/Orders"
	doc := `{"Version":"2012-10-17","Statement":[
		{"Sid":"Reads","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::222222222222:root","333333333333"]},
		 "Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:Scan"],"Resource":["` + arn + `","` + arn + `/index/*"]},
		{"Sid":"NoDeletes","Effect":"Deny","Principal":"*","Action":"dynamodb:DeleteItem","Resource":"` + arn + `"}]}`
	req := PolicyRequest{Account: "222222222222", AccessKey: "AKIDBOB", Action: "dynamodb:GetItem", Resource: arn}
	b.Run("parse+evaluate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if EvaluatePolicy(doc, req) != Allowed {
				b.Fatal("not allowed")
			}
		}
	})
	b.Run("parsed", func(b *testing.B) {
		p := ParsePolicy(doc)
		b.ReportAllocs()
		for b.Loop() {
			if p.Evaluate(req) != Allowed {
				b.Fatal("not allowed")
			}
		}
	})
}

// TestParsedPolicyMatchesEvaluate: a policy parsed once judges every
// request as parsing the document for each does, whatever was judged
// before (Evaluate keeps no state).
func TestParsedPolicyMatchesEvaluate(t *testing.T) {
	const arn = "arn:aws:dynamodb:us-east-1:111111111111:table/Orders"
	doc := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":["DynamoDB:Get*","dynamodb:Query"],"Resource":["` + arn + `","` + arn + `/index/ByDate"]},
		{"Effect":"Deny","Principal":"*","NotAction":"dynamodb:*Item","Resource":"` + arn + `/stream/*"}]}`
	p := ParsePolicy(doc)
	for range 2 {
		for _, account := range []string{"222222222222", "333333333333"} {
			for _, action := range []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:GetRecords"} {
				for _, res := range []string{arn, arn + "/index/ByDate", arn + "/index/Other", arn + "/stream/2026-01-01T00:00:00.000"} {
					req := PolicyRequest{Account: account, AccessKey: "AKID", Action: action, Resource: res}
					if got, want := p.Evaluate(req), EvaluatePolicy(doc, req); got != want {
						t.Errorf("%+v: parsed once got %d, parsed each time %d", req, got, want)
					}
				}
			}
		}
	}
}
