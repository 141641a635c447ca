package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// presignedReq returns a request the way the server sees it, presigned by
// aws-sdk-go-v2's v4 signer (PresignHTTP) at t with key/secret/token;
// expires, when not "", is set as X-Amz-Expires before signing (the signer
// signs whatever query the request has).
func presignedReq(t testing.TB, key, secret, token string, at time.Time, expires, body string) *http.Request {
	t.Helper()
	u := "http://localhost:8000/"
	if expires != "" {
		u += "?X-Amz-Expires=" + expires
	}
	r := httptest.NewRequest("POST", u, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	sum := sha256.Sum256([]byte(body))
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: token}
	signedURL, hdr, err := v4.NewSigner().PresignHTTP(context.Background(), creds, r, hex.EncodeToString(sum[:]), "dynamodb", "eu-west-2", at)
	if err != nil {
		t.Fatal(err)
	}
	out := httptest.NewRequest("POST", signedURL, strings.NewReader(body))
	out.Header = hdr.Clone()
	out.Host = "localhost:8000"
	if out.Header.Get("Authorization") != "" {
		t.Fatal("PresignHTTP left an Authorization header")
	}
	return out
}

func TestVerifyPresigned(t *testing.T) {
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	const body = `{"TableName":"T","Key":{"pk":{"S":"a"}}}`
	for _, tc := range []struct {
		name    string
		key     string
		token   string
		at      time.Time
		expires string
	}{
		{"expires in 5 minutes", "AKIDALPHA", "", testNow.Add(-time.Minute), "300"},
		{"last second of its life", "AKIDALPHA", "", testNow.Add(-300 * time.Second), "300"},
		{"a week", "AKIDALPHA", "", testNow.Add(-6 * 24 * time.Hour), "604800"},
		{"no X-Amz-Expires: 15 minutes", "AKIDALPHA", "", testNow.Add(-14 * time.Minute), ""},
		{"session token", "ASIATEMP", "tok/en+=", testNow, "60"},
		{"ahead by 15 minutes", "AKIDALPHA", "", testNow.Add(MaxSkew), "60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := presignedReq(t, tc.key, secretOf(tc.key), tc.token, tc.at, tc.expires, body)
			id, err := v.Verify(r, []byte(body))
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if want := (Identity{AccessKey: tc.key, Account: accountOf(tc.key), Region: "eu-west-2"}); id != want {
				t.Fatalf("got %+v, want %+v", id, want)
			}
		})
	}
}

func TestVerifyPresignedRejects(t *testing.T) {
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	const body = `{"TableName":"T"}`
	ok := func(t *testing.T) *http.Request {
		return presignedReq(t, "AKIDALPHA", "alpha/secret+x", "", testNow, "300", body)
	}
	editQuery := func(r *http.Request, edit func(url.Values)) *http.Request {
		q := r.URL.Query()
		edit(q)
		r.URL.RawQuery = q.Encode()
		return r
	}
	for _, tc := range []rejectCase{
		{"expired", func(t *testing.T) *http.Request {
			return presignedReq(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(-301*time.Second), "300", body)
		}, body, InvalidSignature, "Signature expired: 20260304T050106Z is now earlier than 20260304T050107Z (20260304T050607Z - 300 sec.)"},
		{"expired without X-Amz-Expires", func(t *testing.T) *http.Request {
			return presignedReq(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(-16*time.Minute), "", body)
		}, body, InvalidSignature, "Signature expired: 20260304T045007Z is now earlier than 20260304T045107Z (20260304T050607Z - 15 min.)"},
		{"future", func(t *testing.T) *http.Request {
			return presignedReq(t, "AKIDALPHA", "alpha/secret+x", "", testNow.Add(MaxSkew+time.Second), "300", body)
		}, body, InvalidSignature, "Signature not yet current: 20260304T052108Z is still later than 20260304T052107Z (20260304T050607Z + 15 min.)"},
		{"wrong secret", func(t *testing.T) *http.Request {
			return presignedReq(t, "AKIDALPHA", "nope", "", testNow, "300", body)
		}, body, InvalidSignature, msgSignatureDiffer + "\n\nThe Canonical String for this request should have been\n'POST\n/\nX-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDALPHA%2F20260304%2Feu-west-2%2Fdynamodb%2Faws4_request&X-Amz-Date=20260304T050607Z&X-Amz-Expires=300&X-Amz-SignedHeaders=…"},
		{"body changed", ok, body + " ", InvalidSignature, msgSignatureDiffer + "…"},
		{"expiry stretched", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) { q.Set("X-Amz-Expires", "3600") })
		}, body, InvalidSignature, msgSignatureDiffer + "…"},
		{"unknown key", func(t *testing.T) *http.Request {
			return presignedReq(t, "AKIDNOBODY", "x", "", testNow, "300", body)
		}, body, UnrecognizedClient, msgInvalidToken},
		{"missing token", func(t *testing.T) *http.Request {
			return presignedReq(t, "ASIATEMP", "temp-secret", "", testNow, "300", body)
		}, body, UnrecognizedClient, msgInvalidToken},
		{"no signature", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) { q.Del("X-Amz-Signature") })
		}, body, IncompleteSignature, "AWS query-string parameters must include 'X-Amz-Signature'. Re-examine the query-string parameters."},
		{"no date", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) { q.Del("X-Amz-Date") })
		}, body, IncompleteSignature, "AWS query-string parameters must include 'X-Amz-Date'. Re-examine the query-string parameters."},
		{"expires too long", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) { q.Set("X-Amz-Expires", "604801") })
		}, body, IncompleteSignature, "X-Amz-Expires must be a whole number of seconds from 1 to 604800, got '604801'."},
		{"algorithm", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) { q.Set("X-Amz-Algorithm", "AWS4-HMAC-SHA512") })
		}, body, IncompleteSignature, "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA512'"},
		{"scope date", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) {
				q.Set("X-Amz-Credential", strings.Replace(q.Get("X-Amz-Credential"), "/20260304/", "/20260305/", 1))
			})
		}, body, InvalidSignature, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20260305' != '20260304', from '20260304T050607Z'."},
		{"host not signed", func(t *testing.T) *http.Request {
			return editQuery(ok(t), func(q url.Values) { q.Set("X-Amz-SignedHeaders", "content-type") })
		}, body, InvalidSignature, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(tc.req(t), []byte(tc.body))
			wantAuthError(t, err, tc.code, tc.msg)
		})
	}
}

// FuzzVerifyPresigned feeds arbitrary query strings to the presigned path:
// Verify never panics, only ever answers with an *Error, and accepts no
// query without the signature the SDK computed for this request.
func FuzzVerifyPresigned(f *testing.F) {
	r := presignedReq(f, "AKIDALPHA", "alpha/secret+x", "", testNow, "300", "{}")
	for _, q := range []string{r.URL.RawQuery, "", "X-Amz-Algorithm=", "X-Amz-Signature=00&X-Amz-Credential=a/b/c/d/e",
		"X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDALPHA%2F20260304%2Feu-west-2%2Fdynamodb%2Faws4_request&X-Amz-Date=20260304T050607Z&X-Amz-Expires=-1&X-Amz-SignedHeaders=host&X-Amz-Signature=ff",
		"X-Amz-Credential=%zz&X-Amz-Date=99999999T999999Z", "X-Amz-Signature=a;b&X-Amz-Expires=9223372036854775807"} {
		f.Add(q)
	}
	v := NewVerifier(testCreds, func() time.Time { return testNow })
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest("POST", "http://localhost:8000/", strings.NewReader("{}"))
		req.URL.RawQuery = q
		_, err := v.Verify(req, []byte("{}"))
		var ae *Error
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("query %q: got %T %v, want an *Error", q, err, err)
		}
		if err == nil {
			// Nothing passes without the real signature over this request:
			// at most the query is spelt differently.
			got, _ := url.ParseQuery(q)
			if got.Get("X-Amz-Signature") != r.URL.Query().Get("X-Amz-Signature") {
				t.Fatalf("query %q accepted without the request's signature", q)
			}
		}
	})
}
