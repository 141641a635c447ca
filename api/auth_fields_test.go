package api

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// testAuthHeader is what aws-sdk-go-v2 sends.
const testAuthHeader = "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, " +
	"SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target, " +
	"Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func fieldsOf(s string) []string {
	var got []string
	for p := nextField(&s); p != ""; p = nextField(&s) {
		got = append(got, p)
	}
	return got
}

func TestNextFieldMatchesFieldsFunc(t *testing.T) {
	for _, s := range []string{
		"", " ", ",,", "a", " a,b  c ", "a\tb\nc\vd\fe\rf", "a\u00a0b\u0085c\u2003d", "é,ü ,", "x=1,\xffy=2",
		testAuthHeader,
	} {
		want := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		if got := fieldsOf(s); !slices.Equal(got, want) {
			t.Errorf("fields of %q: got %q, want %q", s, got, want)
		}
	}
}

func FuzzNextField(f *testing.F) {
	f.Add(testAuthHeader)
	f.Add("a\u00a0b,\xff c")
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		if got := fieldsOf(s); !slices.Equal(got, want) {
			t.Fatalf("fields of %q: got %q, want %q", s, got, want)
		}
	})
}

func TestCredentialRegion(t *testing.T) {
	for _, tc := range []struct {
		cred, want string
		ok         bool
	}{
		{"AKID/20240101/us-east-1/dynamodb/aws4_request", "us-east-1", true},
		{"AKID/20240101//dynamodb/aws4_request", "", true},
		{"AKID/20240101/us-east-1/dynamodb", "", false},
		{"AKID/20240101/us-east-1/dynamodb/aws4_request/x", "", false},
	} {
		got, err := credentialRegion(tc.cred)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("credentialRegion(%q) = %q, %v; want %q, ok=%v", tc.cred, got, err, tc.want, tc.ok)
		}
	}
}

func BenchmarkAuthorizationRegion(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if r, err := authorizationRegion(testAuthHeader); err != nil || r != "us-east-1" {
			b.Fatal(r, err)
		}
	}
}
