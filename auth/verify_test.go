package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

var testNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

var testCreds = []Credential{
	{AccessKey: "AKIDALPHA", Secret: "alpha/secret+x", Account: "111111111111"},
	{AccessKey: "ASIATEMP", Secret: "temp-secret", Account: "222222222222", Token: "tok/en+="},
}

// signed returns a request the way the server sees it, signed by
// aws-sdk-go-v2's signer at t with key/secret/token; edit runs before
// signing.
func signed(t testing.TB, key, secret, token string, at time.Time, body string, edit func(*http.Request)) *http.Request {
	t.Helper()
	r := httptest.NewRequest("POST", "http://localhost:8000/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	if edit != nil {
		edit(r)
	}
	hash := sha256.Sum256([]byte(body))
	ph := hex.EncodeToString(hash[:])
	if r.Header.Get("X-Amz-Content-Sha256") == unsignedPayload {
		ph = unsignedPayload
	}
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: token}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, ph, "dynamodb", "eu-west-2", at); err != nil {
		t.Fatal(err)
	}
	return r
}

func verify(v *Verifier, r *http.Request, body string) (Identity, error) {
	return v.Verify(r, []byte(body))
}

func TestVerifyAcceptsWhatTheSDKSigns(t *testing.T) {
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	const body = `{"TableName":"T","Key":{"pk":{"S":"a"}}}`
	for _, tc := range []struct {
		name  string
		key   string
		edit  func(*http.Request)
		token string
	}{
		{"plain", "AKIDALPHA", nil, ""},
		{"session token", "ASIATEMP", nil, "tok/en+="},
		{"unsigned payload", "AKIDALPHA", func(r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", unsignedPayload) }, ""},
		{"payload hash header", "AKIDALPHA", func(r *http.Request) {
			s := sha256.Sum256([]byte(body))
			r.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(s[:]))
		}, ""},
		{"spaces to trim and fold", "AKIDALPHA", func(r *http.Request) {
			r.Header.Set("X-Amz-Meta-Note", "  a   b \t c  ")
		}, ""},
		{"repeated header", "AKIDALPHA", func(r *http.Request) {
			r.Header.Add("X-Amz-Meta-List", "one")
			r.Header.Add("X-Amz-Meta-List", " two  2 ")
		}, ""},
		{"query and odd path", "AKIDALPHA", func(r *http.Request) {
			r.URL.Path = "/a b/ü"
			r.URL.RawQuery = "z=1&a=x y&a=%2F&b="
		}, ""},
		{"host with port", "AKIDALPHA", func(r *http.Request) { r.Host = "db.example:8443" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := signed(t, tc.key, secretOf(tc.key), tc.token, testNow.Add(-time.Minute), body, tc.edit)
			id, err := verify(v, r, body)
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			want := Identity{AccessKey: tc.key, Account: accountOf(tc.key), Region: "eu-west-2"}
			if id != want {
				t.Fatalf("got %+v, want %+v", id, want)
			}
		})
	}
}

func secretOf(key string) string {
	for _, c := range testCreds {
		if c.AccessKey == key {
			return c.Secret
		}
	}
	return "unknown"
}

func accountOf(key string) string {
	for _, c := range testCreds {
		if c.AccessKey == key {
			return c.Account
		}
	}
	return ""
}

// rejectBody is the body of the requests in the reject cases.
const rejectBody = `{"TableName":"T"}`

// okRequest is a correctly signed request for rejectBody.
func okRequest(t *testing.T) *http.Request {
	return signed(t, "AKIDALPHA", "alpha/secret+x", "", testNow, rejectBody, nil)
}

// replaceAuth replaces old with new once in r's Authorization header.
func replaceAuth(r *http.Request, old, new string) {
	r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), old, new, 1))
}

// rejectSignatureCases are requests whose key, secret, token, body or time
// is wrong.
func rejectSignatureCases() []rejectCase {
	const body = rejectBody
	ok := okRequest
	return []rejectCase{
		{"no authorization", func(t *testing.T) *http.Request {
			r := ok(t)
			r.Header.Del("Authorization")
			return r
		}, body, MissingAuthenticationToken, "Request is missing Authentication Token"},
		{"unknown key", func(t *testing.T) *http.Request {
			return signed(t, "AKIDNOBODY", "x", "", testNow, body, nil)
		}, body, UnrecognizedClient, "The security token included in the request is invalid."},
		{"wrong secret", func(t *testing.T) *http.Request {
			return signed(t, "AKIDALPHA", "not-the-secret", "", testNow, body, nil)
		}, body, InvalidSignature, msgSignatureDiffer + "\n\nThe Canonical String for this request should have been\n'POST\n/\n\n…"},
		{"body changed", func(t *testing.T) *http.Request { return ok(t) }, body + " ", InvalidSignature, msgSignatureDiffer + "…"},
		{"signed header changed", func(t *testing.T) *http.Request {
			r := ok(t)
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DeleteTable")
			return r
		}, body, InvalidSignature, msgSignatureDiffer + "…"},
		{"missing session token", func(t *testing.T) *http.Request {
			return signed(t, "ASIATEMP", "temp-secret", "", testNow, body, nil)
		}, body, UnrecognizedClient, msgInvalidToken},
		{"wrong session token", func(t *testing.T) *http.Request {
			return signed(t, "ASIATEMP", "temp-secret", "other", testNow, body, nil)
		}, body, UnrecognizedClient, msgInvalidToken},
		{"token for a long-term key", func(t *testing.T) *http.Request {
			return signed(t, "AKIDALPHA", "alpha/secret+x", "tok", testNow, body, nil)
		}, body, UnrecognizedClient, msgInvalidToken},
		{"expired", func(t *testing.T) *http.Request {
			return signed(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(-16*time.Minute), body, nil)
		}, body, InvalidSignature, "Signature expired: 20260304T045007Z is now earlier than 20260304T045107Z (20260304T050607Z - 15 min.)"},
		{"expired beside a wrong scope date", func(t *testing.T) *http.Request {
			r := signed(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(-16*time.Minute), body, nil)
			replaceAuth(r, "/20260304/", "/20260305/")
			return r
		}, body, InvalidSignature, "Signature expired: 20260304T045007Z is now earlier than 20260304T045107Z (20260304T050607Z - 15 min.)"},
		{"expired beside a wrong scope service", func(t *testing.T) *http.Request {
			r := signed(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(-16*time.Minute), body, nil)
			replaceAuth(r, "/dynamodb/", "/s3/")
			return r
		}, body, InvalidSignature, "Signature expired: 20260304T045007Z is now earlier than 20260304T045107Z (20260304T050607Z - 15 min.)"},
		{"expired with an unknown key", func(t *testing.T) *http.Request {
			return signed(t, "AKIDNOBODY", "whatever", "", testNow.Add(-16*time.Minute), body, nil)
		}, body, InvalidSignature, "Signature expired: 20260304T045007Z is now earlier than 20260304T045107Z (20260304T050607Z - 15 min.)"},
		{"future beside a wrong scope region", func(t *testing.T) *http.Request {
			r := signed(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(15*time.Minute+time.Second), body, nil)
			replaceAuth(r, "/eu-west-2/", "//")
			return r
		}, body, InvalidSignature, "Signature not yet current: 20260304T052108Z is still later than 20260304T052107Z (20260304T050607Z + 15 min.)"},
		{"future", func(t *testing.T) *http.Request {
			return signed(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(15*time.Minute+time.Second), body, nil)
		}, body, InvalidSignature, "Signature not yet current: 20260304T052108Z is still later than 20260304T052107Z (20260304T050607Z + 15 min.)"},
	}
}

// rejectHeaderCases are requests whose date or Authorization header is
// malformed.
func rejectHeaderCases() []rejectCase {
	const body = rejectBody
	ok, setAuth := okRequest, replaceAuth
	return []rejectCase{
		{"no date", func(t *testing.T) *http.Request {
			r := ok(t)
			r.Header.Del("X-Amz-Date")
			return r
		}, body, IncompleteSignature, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 Credential=AKIDALPHA/20260304/eu-west-2/dynamodb/aws4_request, …"},
		{"bad date", func(t *testing.T) *http.Request {
			r := ok(t)
			r.Header.Set("X-Amz-Date", "2026-03-04T05:06:07Z")
			return r
		}, body, IncompleteSignature, "Date must be in ISO-8601 'basic format'. Got '2026-03-04T05:06:07Z'. See http://en.wikipedia.org/wiki/ISO_8601"},
		{"scope date", func(t *testing.T) *http.Request {
			r := ok(t)
			setAuth(r, "/20260304/", "/20260305/")
			return r
		}, body, InvalidSignature, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20260305' != '20260304', from '20260304T050607Z'."},
		{"scope service", func(t *testing.T) *http.Request {
			r := ok(t)
			setAuth(r, "/dynamodb/", "/s3/")
			return r
		}, body, InvalidSignature, "Credential should be scoped to correct service: 'dynamodb'. "},
		{"scope terminator", func(t *testing.T) *http.Request {
			r := ok(t)
			setAuth(r, "aws4_request", "aws5_request")
			return r
		}, body, InvalidSignature, "Credential should be scoped with a valid terminator: 'aws4_request', not 'aws5_request'. "},
		{"algorithm", func(t *testing.T) *http.Request {
			r := ok(t)
			setAuth(r, "AWS4-HMAC-SHA256", "AWS4-HMAC-SHA512")
			return r
		}, body, IncompleteSignature, "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA512'"},
		{"missing parameters and date", func(t *testing.T) *http.Request {
			r := ok(t)
			r.Header.Del("X-Amz-Date")
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDALPHA/20260304/eu-west-2/dynamodb/aws4_request")
			return r
		}, body, IncompleteSignature, "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. " +
			"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. " +
			"Authorization=AWS4-HMAC-SHA256 Credential=AKIDALPHA/20260304/eu-west-2/dynamodb/aws4_request"},
		{"missing parameters with a date", func(t *testing.T) *http.Request {
			r := ok(t)
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDALPHA/20260304/eu-west-2/dynamodb/aws4_request")
			return r
		}, body, IncompleteSignature, "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. " +
			"Authorization=AWS4-HMAC-SHA256 Credential=AKIDALPHA/20260304/eu-west-2/dynamodb/aws4_request"},
		{"empty region", func(t *testing.T) *http.Request {
			r := ok(t)
			setAuth(r, "/eu-west-2/", "//")
			return r
		}, body, InvalidSignature, "Credential should be scoped to a valid region, not ''. "},
		{"host not signed", func(t *testing.T) *http.Request {
			r := ok(t)
			setAuth(r, "host;", "")
			return r
		}, body, InvalidSignature, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."},
	}
}

func TestVerifyRejects(t *testing.T) {
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	for _, tc := range append(rejectSignatureCases(), rejectHeaderCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := verify(v, tc.req(t), tc.body)
			wantAuthError(t, err, tc.code, tc.msg)
		})
	}
}

// rejectCase is a request Verify must refuse, and how.
type rejectCase struct {
	name string
	req  func(t *testing.T) *http.Request
	body string
	code Code
	msg  string // the whole message, or its prefix when it ends in "…"
}

// wantAuthError fails t unless err is an *Error of code whose message is
// msg, or starts with msg's text before a final "…".
func wantAuthError(t *testing.T, err error, code Code, msg string) {
	t.Helper()
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want %s", err, code)
	}
	prefix, partial := strings.CutSuffix(msg, "…")
	if ae.Code != code || (partial && !strings.HasPrefix(ae.Message, prefix)) || (!partial && ae.Message != msg) {
		t.Fatalf("got %s: %q, want %s: %q", ae.Code, ae.Message, code, msg)
	}
}

// TestVerifyEdgeOfSkew: exactly 15 minutes either way is still accepted.
func TestVerifyEdgeOfSkew(t *testing.T) {
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	for _, at := range []time.Time{testNow.Add(-MaxSkew), testNow.Add(MaxSkew)} {
		r := signed(t, "AKIDALPHA", "alpha/secret+x", "", at, "{}", nil)
		if _, err := verify(v, r, "{}"); err != nil {
			t.Errorf("signed at %s: got %v, want nil", at, err)
		}
	}
}

// TestDeriveKeyDocumentedExample checks the signing key derivation against
// the example in AWS's SigV4 documentation.
func TestDeriveKeyDocumentedExample(t *testing.T) {
	k := deriveKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1", "iam")
	got, want := hex.EncodeToString(k[:]), "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9"
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestKeyCacheMatchesDerivation: a cached key is the derived one, for
// each scope.
func TestKeyCacheMatchesDerivation(t *testing.T) {
	var kc keyCache
	for i := range 3 {
		for _, s := range []Scope{{AccessKey: "A", Date: "20260101", Region: "r1", Service: "dynamodb"},
			{AccessKey: "A", Date: "20260102", Region: "r1", Service: "dynamodb"},
			{AccessKey: "A", Date: "20260101", Region: "r2", Service: "dynamodb"}} {
			if got, want := kc.get(s, "sec").key, deriveKey("sec", s.Date, s.Region, s.Service); got != want {
				t.Fatalf("round %d scope %+v: got %x, want %x", i, s, got, want)
			}
		}
	}
}

func TestParseBasic(t *testing.T) {
	for _, d := range []string{"20260304T050607Z", "20240229T235959Z", "00010101T000000Z", "99991231T235959Z"} {
		got, ok := parseBasic(d)
		want, err := time.Parse(basicFormat, d)
		if !ok || err != nil || !got.Equal(want) {
			t.Errorf("parseBasic(%q): got %v, %v, want %v, %v", d, got, ok, want, err)
		}
	}
	for _, d := range []string{"", "20260304T050607", "2026030405060Z7", "20261304T050607Z", "20260230T050607Z",
		"20260304T250607Z", "2026-3-4T050607Z", "20260304t050607Z", "20260304T056007Z", "+0260304T050607Z", "20240229T235960Z"} {
		if _, ok := parseBasic(d); ok {
			t.Errorf("parseBasic(%q): got ok, want a failure", d)
		}
		if _, err := time.Parse(basicFormat, d); err == nil {
			t.Errorf("time.Parse(%q) accepts what parseBasic refuses", d)
		}
	}
}

func TestAppendTrimmed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"a", "a"}, {"  a  ", "a"}, {"a   b", "a b"}, {"\ta \t  b\n", "a \t b"}, {" a  b  c ", "a b c"},
	} {
		if got := string(appendTrimmed(nil, tc.in)); got != tc.want {
			t.Errorf("appendTrimmed(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	body := []byte(`{"TableName":"T","Key":{"pk":{"S":"a"}}}`)
	r := signed(b, "AKIDALPHA", "alpha/secret+x", "", testNow, string(body), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(r, body); err != nil {
			b.Fatal(err)
		}
	}
}
