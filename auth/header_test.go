package auth

import (
	"errors"
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

func isSep(r rune) bool { return r == ',' || unicode.IsSpace(r) }

func TestNextFieldMatchesFieldsFunc(t *testing.T) {
	for _, s := range []string{
		"", " ", ",,", "a", " a,b  c ", "a\tb\nc\vd\fe\rf", "a\u00a0b\u0085c\u2003d", "é,ü ,", "x=1,\xffy=2",
		testAuthHeader,
	} {
		if got, want := fieldsOf(s), strings.FieldsFunc(s, isSep); !slices.Equal(got, want) {
			t.Errorf("fields of %q: got %q, want %q", s, got, want)
		}
	}
}

func TestParseAuthorization(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want Authorization
		err  string
	}{
		{h: testAuthHeader, want: Authorization{Algorithm: Algorithm, Credential: "AKID/20240101/us-east-1/dynamodb/aws4_request",
			SignedHeaders: "accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target",
			Signature:     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}},
		{h: "AWS4-HMAC-SHA256 Credential=a/b/c/d/e,SignedHeaders=host,Signature=ff", want: Authorization{Algorithm: Algorithm,
			Credential: "a/b/c/d/e", SignedHeaders: "host", Signature: "ff"}},
		{h: "AWS4-HMAC-SHA256",
			err: "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4-HMAC-SHA256"},
		{h: "AWS4-HMAC-SHA256 Credential=AKID /2025/r/s/t, Signature=x",
			err: "'/2025/r/s/t' not a valid key=value pair (missing equal-sign) in Authorization header: 'AWS4-HMAC-SHA256 Credential=AKID /2025/r/s/t, Signature=x'."},
	} {
		got, err := ParseAuthorization(tc.h)
		if tc.err != "" {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != IncompleteSignature || ae.Message != tc.err {
				t.Errorf("ParseAuthorization(%q): got %v, want IncompleteSignature %q", tc.h, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseAuthorization(%q): got %+v, %v, want %+v", tc.h, got, err, tc.want)
		}
	}
}

func TestParseCredential(t *testing.T) {
	for _, tc := range []struct {
		cred string
		want Scope
		ok   bool
	}{
		{"AKID/20240101/us-east-1/dynamodb/aws4_request", Scope{"AKID", "20240101", "us-east-1", "dynamodb", "aws4_request"}, true},
		{"AKID/20240101//dynamodb/aws4_request", Scope{"AKID", "20240101", "", "dynamodb", "aws4_request"}, true},
		{"AKID/20240101/us-east-1/dynamodb", Scope{}, false},
		{"AKID/20240101/us-east-1/dynamodb/aws4_request/x", Scope{}, false},
	} {
		got, err := ParseCredential(tc.cred)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseCredential(%q) = %+v, %v; want %+v, ok=%v", tc.cred, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseAuthorization checks ParseAuthorization against a plain
// reference (split with strings.FieldsFunc, then cut at '='): the same
// values or the same failure, never a panic, and only IncompleteSignature.
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{testAuthHeader, "", "AWS4-HMAC-SHA256", "x Credential=a,Signature==,SignedHeaders=",
		"A Credential=a\u00a0Signature=b SignedHeaders=c", "A Credential=1 Credential=2 Signature=s SignedHeaders=h", "\xff Signature"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got, err := ParseAuthorization(h)
		var want Authorization
		want.Algorithm, _, _ = strings.Cut(strings.TrimSpace(h), " ")
		_, params, _ := strings.Cut(strings.TrimSpace(h), " ")
		seen := map[string]bool{}
		wantErr := false
		for _, p := range strings.FieldsFunc(params, isSep) {
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				wantErr = true
				break
			}
			seen[k] = true
			switch k {
			case "Credential":
				want.Credential = v
			case "SignedHeaders":
				want.SignedHeaders = v
			case "Signature":
				want.Signature = v
			}
		}
		wantErr = wantErr || !seen["Credential"] || !seen["SignedHeaders"] || !seen["Signature"]
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != IncompleteSignature {
				t.Fatalf("ParseAuthorization(%q): got %v, want an IncompleteSignature", h, err)
			}
			if !wantErr {
				t.Fatalf("ParseAuthorization(%q): got %v, want %+v", h, err, want)
			}
			return
		}
		if wantErr || got != want {
			t.Fatalf("ParseAuthorization(%q): got %+v, want %+v (error expected: %v)", h, got, want, wantErr)
		}
	})
}

func BenchmarkParseAuthorization(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAuthorization(testAuthHeader); err != nil {
			b.Fatal(err)
		}
	}
}
