package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// presigningTransport turns every request the SDK signed into a presigned
// one: it drops the Authorization header and signs the request again with
// aws-sdk-go-v2's v4 signer PresignHTTP, X-Amz-Expires set to expires, so
// the signature travels in the query. X-Amz-Target stays a (signed)
// header: DynamoDB reads the operation from there.
type presigningTransport struct {
	creds   aws.Credentials
	expires string
}

func (p presigningTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"} {
		r.Header.Del(h)
	}
	q := r.URL.Query()
	q.Set("X-Amz-Expires", p.expires)
	r.URL.RawQuery = q.Encode()
	sum := sha256.Sum256(body)
	signedURL, _, err := v4.NewSigner().PresignHTTP(r.Context(), p.creds, r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1",
		time.Now(), func(o *v4.SignerOptions) { o.DisableHeaderHoisting = true })
	if err != nil {
		return nil, err
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, signedURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = r.Header
	return http.DefaultTransport.RoundTrip(out)
}

// presignedClient is an SDK client whose every request is presigned with
// c's key, valid for expires seconds.
func presignedClient(url string, c aws.Credentials, expires string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   &http.Client{Transport: presigningTransport{creds: c, expires: expires}},
	}, readOnlyBodies)
}

// TestSigV4Presigned: DynamoDB accepts SigV4 in the query string as well as
// in the Authorization header; a presigned request is good from its
// signing time until X-Amz-Expires seconds later, and a wrong key, token
// or signature is refused as in the header form.
func TestSigV4Presigned(t *testing.T) {
	srv := startAuthServer(t, alice, temp)
	ctx := context.Background()
	aliceCreds := aws.Credentials{AccessKeyID: alice.AccessKey, SecretAccessKey: alice.Secret}
	c := presignedClient(srv.URL, aliceCreds, "300")
	createTable(t, c, "Presigned", false)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Presigned"), Item: rvals("pk", s("a"), "v", s("1"))}); err != nil {
		t.Fatalf("presigned PutItem: %v", err)
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Presigned"), Key: rvals("pk", s("a")), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("presigned GetItem: %v", err)
	}
	if v, ok := got.Item["v"].(*types.AttributeValueMemberS); !ok || v.Value != "1" {
		t.Fatalf("presigned GetItem: got %v, want v=1", got.Item)
	}
	tc := presignedClient(srv.URL, aws.Credentials{AccessKeyID: temp.AccessKey, SecretAccessKey: temp.Secret, SessionToken: temp.Token}, "60")
	if _, err := tc.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("presigned with a session token: %v", err)
	}

	_, err = presignedClient(srv.URL, aws.Credentials{AccessKeyID: alice.AccessKey, SecretAccessKey: "wrong"}, "300").ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIErrorPrefix(t, err, "InvalidSignatureException", msgBadSignature)
	_, err = presignedClient(srv.URL, aws.Credentials{AccessKeyID: "AKIDNOBODY", SecretAccessKey: "x"}, "300").ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")
	_, err = presignedClient(srv.URL, aws.Credentials{AccessKeyID: temp.AccessKey, SecretAccessKey: temp.Secret}, "60").ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")
	_, err = presignedClient(srv.URL, aliceCreds, "604801").ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "IncompleteSignatureException", "X-Amz-Expires must be a whole number of seconds from 1 to 604800, got '604801'.")

	// Expiry: 300 seconds after signing the request is refused, though the
	// header form would still be inside its 15 minutes.
	srv.offset.Store(int64(302 * time.Second))
	defer srv.offset.Store(0)
	_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidSignatureException" {
		t.Fatalf("presigned 302 s ago with X-Amz-Expires=300: got %v, want InvalidSignatureException", err)
	}
	stamp := `\d{8}T\d{6}Z`
	m := regexpMust(`^Signature expired: (` + stamp + `) is now earlier than (` + stamp + `) \((` + stamp + `) - 300 sec\.\)$`).FindStringSubmatch(ae.ErrorMessage())
	if m == nil {
		t.Fatalf("got message %q, want Signature expired: … (… - 300 sec.)", ae.ErrorMessage())
	}
	if limit, now := parseStamp(t, m[2]), parseStamp(t, m[3]); now.Sub(limit) != 300*time.Second {
		t.Errorf("limit %s is not 300 s before the server's time %s", m[2], m[3])
	}
	if _, err := clientAs(srv.URL, alice.AccessKey, alice.Secret, "").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("a fresh header signature at the same server time: %v", err)
	}
}
