package integration

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// expiredRE is DynamoDB's answer to a signature more than 15 minutes old.
const expiredRE = `^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 15 min\.\)$`

// TestSigV4ExpiredBeforeScope: DynamoDB judges the signing time before the
// credential scope and the access key (issue 32), so an old signature is
// "Signature expired" whatever else is wrong with it, and the scope's own
// complaint comes only with a current signature.
func TestSigV4ExpiredBeforeScope(t *testing.T) {
	srv := startAuthServer(t, alice)
	creds := aws.Credentials{AccessKeyID: alice.AccessKey, SecretAccessKey: alice.Secret}
	const body = `{}`
	send := func(at time.Time, old, repl string) rawAnswer {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		signRawWith(t, req, body, at, creds)
		req.Header.Set("Authorization", strings.Replace(req.Header.Get("Authorization"), old, repl, 1))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return readAnswer(t, resp)
	}
	old := time.Now().Add(-16 * time.Minute)
	yesterday := old.AddDate(0, 0, -1).UTC().Format("20060102")
	for _, tc := range []struct {
		name      string
		at        time.Time
		old, repl string
		want      string // a regular expression
	}{
		{"expired, wrong service", old, "/dynamodb/", "/s3/", expiredRE},
		{"expired, wrong scope date", old, "/" + old.UTC().Format("20060102") + "/", "/" + yesterday + "/", expiredRE},
		{"expired, wrong terminator", old, "aws4_request", "aws5_request", expiredRE},
		{"current, wrong service", time.Now(), "/dynamodb/", "/s3/", `^Credential should be scoped to correct service: 'dynamodb'\. $`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := send(tc.at, tc.old, tc.repl)
			if a.status != 400 || !strings.HasSuffix(a.typ, "InvalidSignatureException") || !regexpMust(tc.want).MatchString(a.message) {
				t.Fatalf("got %d %s %q, want 400 InvalidSignatureException matching %s", a.status, a.typ, a.message, tc.want)
			}
		})
	}

	// Through the SDK: with the server's clock 16 minutes ahead, an unknown
	// key's signature is expired before its key is looked up.
	srv.offset.Store(int64(16 * time.Minute))
	defer srv.offset.Store(0)
	_, err := clientAs(srv.URL, "AKIDNOBODY", "nobody's secret", "").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidSignatureException" || !regexpMust(expiredRE).MatchString(ae.ErrorMessage()) {
		t.Fatalf("unknown key, expired: got %v, want InvalidSignatureException matching %s", err, expiredRE)
	}
	srv.offset.Store(0)
	_, err = clientAs(srv.URL, "AKIDNOBODY", "nobody's secret", "").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")
}
