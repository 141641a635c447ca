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
		if got := glob(tc.p, tc.s, false); got != tc.want {
			t.Errorf("glob(%q, %q): got %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
}
