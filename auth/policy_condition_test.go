package auth

import "testing"

// TestEvaluateServicePrincipal: a statement naming the replication service
// principal, with the source context conditions the multi-account global
// tables guide uses, allows that service acting for a listed replica and
// nobody else; the string and ARN operators, IfExists and negation behave
// as IAM's; conditions outside them leave the statement not understood.
func TestEvaluateServicePrincipal(t *testing.T) {
	const (
		a   = "arn:aws:dynamodb:us-east-2:111122223333:table/Music"
		b   = "arn:aws:dynamodb:us-east-1:444455556666:table/Music"
		svc = "replication.dynamodb.amazonaws.com"
	)
	doc := func(principal, cond string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:ReadDataForReplication","dynamodb:WriteDataForReplication"],` +
			`"Resource":"` + a + `","Principal":` + principal + `,"Condition":` + cond + `}]}`
	}
	both := `{"StringEquals":{"aws:SourceAccount":["444455556666","111122223333"],"aws:SourceArn":["` + a + `","` + b + `"]}}`
	fromB := PolicyRequest{Service: svc, Account: "444455556666", SourceArn: b, Action: "dynamodb:ReadDataForReplication", Resource: a}
	other := fromB
	other.Account, other.SourceArn = "999999999999", "arn:aws:dynamodb:us-east-1:999999999999:table/Music"
	user := PolicyRequest{Account: "444455556666", AccessKey: "AKIDB", Action: "dynamodb:ReadDataForReplication", Resource: a}
	otherService := fromB
	otherService.Service = "dynamodb.amazonaws.com"
	settings := fromB
	settings.Action = "dynamodb:ReplicateSettings"
	for _, tc := range []struct {
		name string
		doc  string
		req  PolicyRequest
		want Effect
	}{
		{"listed replica", doc(`{"Service":["`+svc+`"]}`, both), fromB, Allowed},
		{"service as a string", doc(`{"Service":"`+svc+`"}`, both), fromB, Allowed},
		{"unlisted account", doc(`{"Service":["`+svc+`"]}`, both), other, NoStatement},
		{"a credential of a listed account", doc(`{"Service":["`+svc+`"]}`, both), user, NoStatement},
		{"another service", doc(`{"Service":["`+svc+`"]}`, both), otherService, NoStatement},
		{"action not granted", doc(`{"Service":["`+svc+`"]}`, both), settings, NoStatement},
		{"AWS principal does not name a service", doc(`{"AWS":["444455556666"]}`, `{}`), fromB, NoStatement},
		{"AWS star names a service", doc(`{"AWS":"*"}`, `{"StringEquals":{"aws:PrincipalServiceName":"`+svc+`"}}`), fromB, Allowed},
		{"source account only", doc(`{"Service":"`+svc+`"}`, `{"StringEquals":{"aws:SourceAccount":"444455556666"}}`), fromB, Allowed},
		{"arn like", doc(`{"Service":"`+svc+`"}`, `{"ArnLike":{"aws:SourceArn":"arn:aws:dynamodb:*:444455556666:table/*"}}`), fromB, Allowed},
		{"arn like misses", doc(`{"Service":"`+svc+`"}`, `{"ArnLike":{"aws:SourceArn":"arn:aws:dynamodb:*:111122223333:table/*"}}`), fromB, NoStatement},
		{"not equals", doc(`{"Service":"`+svc+`"}`, `{"StringNotEquals":{"aws:SourceAccount":"999999999999"}}`), fromB, Allowed},
		{"not equals excludes", doc(`{"Service":"`+svc+`"}`, `{"StringNotEquals":{"aws:SourceAccount":"999999999999"}}`), other, NoStatement},
		{"ignore case", doc(`{"Service":"`+svc+`"}`, `{"StringEqualsIgnoreCase":{"AWS:SOURCEARN":"`+b+`"}}`), fromB, Allowed},
		{"absent key", doc(`"*"`, `{"StringEquals":{"aws:SourceAccount":"444455556666"}}`), user, NoStatement},
		{"absent key, IfExists", doc(`"*"`, `{"StringEqualsIfExists":{"aws:SourceAccount":"444455556666"}}`), user, Allowed},
		{"principal account", doc(`"*"`, `{"StringEquals":{"aws:PrincipalAccount":"444455556666"}}`), user, Allowed},
		{"unknown key never allows", doc(`{"Service":"`+svc+`"}`, `{"StringEquals":{"aws:RequestedRegion":"us-east-2"}}`), fromB, NoStatement},
		{"unknown operator never allows", doc(`{"Service":"`+svc+`"}`, `{"NumericEquals":{"aws:SourceAccount":"444455556666"}}`), fromB, NoStatement},
	} {
		if got := EvaluatePolicy(tc.doc, tc.req); got != tc.want {
			t.Errorf("%s: got %d, want %d\n%s", tc.name, got, tc.want, tc.doc)
		}
	}
	// A Deny of the replication service (what pausing replication with a
	// policy looks like) denies the service, not the table's users.
	deny := `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"},` +
		`{"Effect":"Deny","Principal":{"AWS":"*"},"Action":"dynamodb:*DataForReplication","Resource":"*",` +
		`"Condition":{"StringEquals":{"aws:PrincipalServiceName":"` + svc + `"}}}]}`
	if got := EvaluatePolicy(deny, fromB); got != Denied {
		t.Errorf("deny of the service: got %d, want Denied", got)
	}
	if got := EvaluatePolicy(deny, user); got != Allowed {
		t.Errorf("deny of the service, judged for a user: got %d, want Allowed", got)
	}
}
