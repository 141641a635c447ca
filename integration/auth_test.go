package integration

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"

	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// childTimeoutAt is the -test.timeout for a child test process: what is
// left of this test binary's own deadline (ok false: none), less a margin to
// report the child's output, so a loaded machine hits the package's limit
// (the README's command) rather than a tighter one of the child's own.
func childTimeoutAt(d time.Time, ok bool) string {
	if !ok {
		return "-test.timeout=0"
	}
	left := time.Until(d) - 30*time.Second
	if left < time.Minute {
		left = time.Minute
	}
	return "-test.timeout=" + left.Round(time.Second).String()
}

// TestSuiteWithCredentials runs this package's whole suite a second time,
// in a child test process with DDBLOCAL_TEST_SIGNED=1: every server then
// verifies SigV4 signatures and every client signs with a configured key,
// so nothing in the suite depends on signatures being ignored. The cross
// compilation check has nothing to do with signing and is not repeated.
// TestMain starts the child as the run begins (passes_test.go).
func TestSuiteWithCredentials(t *testing.T) {
	if signedPass() {
		t.Skip("this is the signed pass")
	}
	t.Parallel()
	out, took, err := childPasses.signed.wait(t)
	if err != nil {
		t.Fatalf("the suite with --credentials failed (%v):\n%s", err, out)
	}
	t.Logf("the suite with --credentials passed in %s", took.Round(time.Millisecond))
}

// signRaw signs req (whose body is body) for us-east-1 with the suite's
// key at time at, as aws-sdk-go-v2 does.
func signRaw(t testing.TB, req *http.Request, body string, at time.Time) {
	t.Helper()
	signRawWith(t, req, body, at, aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret})
}

func signRawWith(t testing.TB, req *http.Request, body string, at time.Time, c aws.Credentials) {
	t.Helper()
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), c, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at); err != nil {
		t.Fatal(err)
	}
}

// authServer is an in-process ddblocal verifying signatures against creds,
// with a clock tests can move.
type authServer struct {
	URL    string
	offset atomic.Int64 // nanoseconds added to the wall clock
}

func startAuthServer(t *testing.T, creds ...auth.Credential) *authServer {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	as := &authServer{}
	now := func() time.Time { return time.Now().Add(time.Duration(as.offset.Load())) }
	svc := table.New(db, table.Options{Policies: auth.TablePolicy})
	cfg := api.Config{Addr: "localhost:8000", Verifier: auth.NewVerifier(creds, now)}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	as.URL = ts.URL
	return as
}

// clientAs returns an SDK client signing with key, secret and token.
func clientAs(url, key, secret, token string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, token),
		Retryer:      aws.NopRetryer{},
	}, readOnlyBodies)
}

var (
	alice = auth.Credential{AccessKey: "AKIDALICE", Secret: "alice/secret+1", Account: "111111111111"}
	temp  = auth.Credential{AccessKey: "ASIATEMP", Secret: "temp-secret", Account: "111111111111", Token: "FQoGZXIvYXdzEJr//session=="}
)

const msgBadSignature = "The request signature we calculated does not match the signature you provided. " +
	"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

func TestSigV4WithTheSDK(t *testing.T) {
	srv := startAuthServer(t, alice, temp)
	ctx := context.Background()
	good := clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	createTable(t, good, "Signed", false)
	if _, err := good.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Signed"), Item: rvals("pk", s("a"))}); err != nil {
		t.Fatalf("PutItem signed with the right key: %v", err)
	}
	for _, tc := range []struct {
		name               string
		key, secret, token string
		code, msg          string
	}{
		{"wrong secret", alice.AccessKey, "not-alice", "", "InvalidSignatureException",
			msgBadSignature + "\n\nThe Canonical String for this request should have been\n'POST\n/\n\n"},
		{"unknown key", "AKIDMALLORY", alice.Secret, "", "UnrecognizedClientException", "The security token included in the request is invalid."},
		{"session token", temp.AccessKey, temp.Secret, temp.Token, "", ""},
		{"missing session token", temp.AccessKey, temp.Secret, "", "UnrecognizedClientException", "The security token included in the request is invalid."},
		{"wrong session token", temp.AccessKey, temp.Secret, "FQoGZXIvYXdzEJr//other==", "UnrecognizedClientException", "The security token included in the request is invalid."},
		{"token with a long-term key", alice.AccessKey, alice.Secret, temp.Token, "UnrecognizedClientException", "The security token included in the request is invalid."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clientAs(srv.URL, tc.key, tc.secret, tc.token)
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Signed"), Key: rvals("pk", s("a"))})
			if tc.code == "" {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			wantAPIErrorPrefix(t, err, tc.code, tc.msg)
		})
	}
}

// TestSigV4ClockSkew moves the server's clock so that the SDK's fresh
// signature is 15 minutes and a second old, or as far in the future.
func TestSigV4ClockSkew(t *testing.T) {
	srv := startAuthServer(t, alice)
	c := clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	ctx := context.Background()
	stamp := `\d{8}T\d{6}Z`
	for _, tc := range []struct {
		name   string
		offset time.Duration
		re     string
	}{
		{"expired", 15*time.Minute + 2*time.Second, `^Signature expired: (` + stamp + `) is now earlier than (` + stamp + `) \((` + stamp + `) - 15 min\.\)$`},
		{"future", -15*time.Minute - 2*time.Second, `^Signature not yet current: (` + stamp + `) is still later than (` + stamp + `) \((` + stamp + `) \+ 15 min\.\)$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.offset.Store(int64(tc.offset))
			defer srv.offset.Store(0)
			_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
			var ae smithy.APIError
			if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidSignatureException" {
				t.Fatalf("got %v, want InvalidSignatureException", err)
			}
			m := regexpMust(tc.re).FindStringSubmatch(ae.ErrorMessage())
			if m == nil {
				t.Fatalf("got message %q, want one matching %s", ae.ErrorMessage(), tc.re)
			}
			signed, limit, now := parseStamp(t, m[1]), parseStamp(t, m[2]), parseStamp(t, m[3])
			if d := limit.Sub(now); d.Abs() != 15*time.Minute {
				t.Errorf("limit %s is %s from the server's time %s, want 15m", m[2], d, m[3])
			}
			if d := now.Sub(signed); (d - tc.offset).Abs() > 5*time.Second {
				t.Errorf("server time %s is %s from the signing time %s, want about %s", m[3], d, m[1], tc.offset)
			}
		})
	}
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("with the clock back: %v", err)
	}
}

func parseStamp(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse("20060102T150405Z", s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// rawAnswer is the status and error of one raw response.
type rawAnswer struct {
	status          int
	typ, message    string
	successfulReply bool
}

func readAnswer(t *testing.T, resp *http.Response) rawAnswer {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(b, &e)
	return rawAnswer{status: resp.StatusCode, typ: e.Type, message: e.Message, successfulReply: resp.StatusCode == 200}
}

// TestSigV4HeaderCanonicalisation sends requests by hand whose headers
// need SigV4's canonicalisation (case, white space, repeats, folding) and
// checks that a signature computed as the SDKs compute it is accepted, and
// that the server's answers to missing signatures are DynamoDB's.
func TestSigV4HeaderCanonicalisation(t *testing.T) {
	srv := startAuthServer(t, auth.Credential{AccessKey: testKey, Secret: testSecret, Account: auth.DefaultAccount})
	const body = `{}`
	newReq := func() *http.Request {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		return req
	}
	for _, tc := range []struct {
		name string
		edit func(*http.Request) // before signing
		want string              // "" is success, else the __type suffix
	}{
		{"plain", nil, ""},
		{"spaces inside and around a value", func(r *http.Request) { r.Header.Set("X-Amz-Meta-Note", "   a    b  c   ") }, ""},
		{"tab and spaces", func(r *http.Request) { r.Header.Set("X-Amz-Meta-Note", "\ta  \t b\t") }, ""},
		{"repeated header", func(r *http.Request) {
			r.Header.Add("X-Amz-Meta-Multi", "first")
			r.Header.Add("X-Amz-Meta-Multi", "  second   value ")
		}, ""},
		{"unsigned payload", func(r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD") }, ""},
		{"query string", func(r *http.Request) { r.URL.RawQuery = "b=2&a=x%20y&a=%2F" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := newReq()
			if tc.edit != nil {
				tc.edit(req)
			}
			sum := sha256.Sum256([]byte(body))
			ph := hex.EncodeToString(sum[:])
			if req.Header.Get("X-Amz-Content-Sha256") == "UNSIGNED-PAYLOAD" {
				ph = "UNSIGNED-PAYLOAD"
			}
			if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret},
				req, ph, "dynamodb", "us-east-1", time.Now()); err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if a := readAnswer(t, resp); !a.successfulReply {
				t.Fatalf("got %d %s: %q, want 200", a.status, a.typ, a.message)
			}
		})
	}

	// On the wire, header names in any case, values padded and a value
	// folded over two lines (obs-fold) canonicalise to what was signed.
	t.Run("raw wire", func(t *testing.T) { sigV4RawWire(t, srv.URL, newReq(), body) })

	for _, tc := range []struct {
		name      string
		edit      func(*http.Request) // after signing
		typ, msg  string
		msgPrefix bool
	}{
		{"no signature", func(r *http.Request) { r.Header.Del("Authorization") },
			"com.amazon.coral.service#MissingAuthenticationTokenException", "Request is missing Authentication Token", false},
		{"value changed after signing", func(r *http.Request) { r.Header.Set("Content-Type", "application/json") },
			"com.amazon.coral.service#InvalidSignatureException", msgBadSignature, true},
		{"signed header dropped", func(r *http.Request) { r.Header.Del("Content-Type") },
			"com.amazon.coral.service#InvalidSignatureException", msgBadSignature, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := newReq()
			signRaw(t, req, body, time.Now())
			tc.edit(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			a := readAnswer(t, resp)
			if a.status != 400 || a.typ != tc.typ || (tc.msgPrefix && !strings.HasPrefix(a.message, tc.msg)) || (!tc.msgPrefix && a.message != tc.msg) {
				t.Fatalf("got %d %s: %q, want 400 %s: %q", a.status, a.typ, a.message, tc.typ, tc.msg)
			}
		})
	}
}

// sigV4RawWire signs req, then sends it with header names in mixed case,
// padded values and a folded value, and expects success.
func sigV4RawWire(t *testing.T, url string, req *http.Request, body string) {
	t.Helper()
	req.Header.Set("X-Amz-Meta-Folded", "part one part two")
	signRaw(t, req, body, time.Now())
	host := strings.TrimPrefix(url, "http://")
	var wire strings.Builder
	fmt.Fprintf(&wire, "POST / HTTP/1.1\r\nhOsT: %s\r\n", host)
	fmt.Fprintf(&wire, "x-amz-target:   %s  \r\n", req.Header.Get("X-Amz-Target"))
	fmt.Fprintf(&wire, "CONTENT-TYPE: %s\r\n", req.Header.Get("Content-Type"))
	fmt.Fprintf(&wire, "X-AMZ-DATE: %s\r\n", req.Header.Get("X-Amz-Date"))
	fmt.Fprintf(&wire, "x-amz-meta-folded: part   one\r\n   part two\r\n")
	fmt.Fprintf(&wire, "authorization: %s\r\n", req.Header.Get("Authorization"))
	fmt.Fprintf(&wire, "Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, wire.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := readAnswer(t, resp); !a.successfulReply {
		t.Fatalf("got %d %s: %q, want 200", a.status, a.typ, a.message)
	}
}

func regexpMust(re string) *regexp.Regexp { return regexp.MustCompile(re) }

// TestBinaryCredentials starts the binary with --credentials @FILE and
// with DDBLOCAL_CREDENTIALS, and with a malformed list.
func TestBinaryCredentials(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/creds"
	if err := os.WriteFile(file, []byte("# keys\nAKIDALICE alice/secret+1 111111111111\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, start := range []func() *proc{
		func() *proc { return startBinary(t, dir, nil, "--in-memory", "--port", "0", "--credentials", "@"+file) },
		func() *proc {
			return startBinary(t, dir, testEnv(t, "DDBLOCAL_CREDENTIALS=AKIDALICE:alice/secret+1:111111111111"),
				"--in-memory", "--port", "0")
		},
	} {
		p := start()
		if _, err := clientAs(p.URL, "AKIDALICE", "alice/secret+1", "").ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("signed with the configured key: %v", err)
		}
		_, err := clientAs(p.URL, "AKIDALICE", "wrong", "").ListTables(ctx, &dynamodb.ListTablesInput{})
		wantAPIErrorPrefix(t, err, "InvalidSignatureException", msgBadSignature)
		p.stopOK()
	}
	code, stderr := runBinary(t, dir, "--in-memory", "--port", "0", "--credentials", "AKIDALICE:s:123")
	if want := `account "123" is not 12 digits`; code == 0 || !strings.Contains(stderr, want) {
		t.Fatalf("malformed --credentials: got exit %d, stderr %q; want failure naming %q", code, stderr, want)
	}
}

// TestHarnessVerifiesInSignedPass: in the signed pass the suite's servers
// reject a wrong secret; otherwise they accept any, as DynamoDB Local does.
func TestHarnessVerifiesInSignedPass(t *testing.T) {
	srv := startServer(t, table.Options{})
	_, err := clientAs(srv.URL, testKey, "not-"+testSecret, "").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if signedPass() {
		wantAPIErrorPrefix(t, err, "InvalidSignatureException", msgBadSignature)
	} else if err != nil {
		t.Fatalf("without --credentials: got %v, want any signature accepted", err)
	}
}

// TestAccountIsolation: two credentials in two accounts (and one in the
// default account) each see only their own tables and items, and ARNs name
// the caller's account.
func TestAccountIsolation(t *testing.T) {
	dflt := auth.Credential{AccessKey: testKey, Secret: testSecret, Account: auth.DefaultAccount}
	srv := startAuthServer(t, alice, bob, dflt)
	ctx := context.Background()
	a := clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	b := clientAs(srv.URL, bob.AccessKey, bob.Secret, "")
	d := clientAs(srv.URL, dflt.AccessKey, dflt.Secret, "")

	createTable(t, a, "Shared", false)
	createTable(t, a, "AliceOnly", false)
	createTable(t, b, "Shared", false)
	put := func(c *dynamodb.Client, v string) {
		t.Helper()
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Shared"), Item: rvals("pk", s("k"), "v", s(v))}); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "alice")
	put(b, "bob")

	for _, tc := range []struct {
		name    string
		c       *dynamodb.Client
		account string
		tables  []string
		v       string
	}{
		{"alice", a, alice.Account, []string{"AliceOnly", "Shared"}, "alice"},
		{"bob", b, bob.Account, []string{"Shared"}, "bob"},
		{"default", d, auth.DefaultAccount, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lt, err := tc.c.ListTables(ctx, &dynamodb.ListTablesInput{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(lt.TableNames, tc.tables) {
				t.Errorf("ListTables: got %v, want %v", lt.TableNames, tc.tables)
			}
			if tc.v == "" {
				_, err := tc.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
				wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Shared not found")
				return
			}
			dt, err := tc.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := aws.ToString(dt.Table.TableArn), "arn:aws:dynamodb:us-east-1:"+tc.account+":table/Shared"; got != want {
				t.Errorf("TableArn: got %s, want %s", got, want)
			}
			gi, err := tc.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: rvals("pk", s("k")), ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			if got := gi.Item["v"]; got == nil || got.(*types.AttributeValueMemberS).Value != tc.v {
				t.Errorf("GetItem: got %v, want v=%s", gi.Item, tc.v)
			}
		})
	}

	// Another account's ARN is refused without a resource-based policy
	// allowing it, and never reaches the caller's own table of that name.
	aliceArn := "arn:aws:dynamodb:us-east-1:" + alice.Account + ":table/Shared"
	_, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(aliceArn), Key: rvals("pk", s("k"))})
	wantAPIError(t, err, "AccessDeniedException", "User: arn:aws:iam::222222222222:root is not authorized to perform: "+
		"dynamodb:GetItem on resource: "+aliceArn+" because no resource-based policy allows the dynamodb:GetItem action")
	_, err = b.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(aliceArn), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "TagResource", aliceArn))
	// Its own ARN works.
	if _, err := a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(aliceArn), Key: rvals("pk", s("k"))}); err != nil {
		t.Fatalf("GetItem by its own ARN: %v", err)
	}
}

// TestResourcePolicies: a table's resource-based policy lets another
// account use it by ARN for the actions it allows, and an explicit Deny
// refuses even the owner.
func TestResourcePolicies(t *testing.T) {
	ctx := context.Background()
	a, b, arn := aliceTableForBob(t, "Orders")
	if _, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: rvals("pk", s("o1"), "by", s("alice"))}); err != nil {
		t.Fatal(err)
	}
	denied := func(who, action, why string) string {
		return "User: arn:aws:iam::" + who + ":root is not authorized to perform: dynamodb:" + action + " on resource: " + arn + why
	}
	noAllow := func(action string) string {
		return " because no resource-based policy allows the dynamodb:" + action + " action"
	}
	const explicit = " with an explicit deny in a resource-based policy"
	getByARN := func(c *dynamodb.Client) error {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(arn), Key: rvals("pk", s("o1")), ConsistentRead: aws.Bool(true)})
		if err == nil && out.Item["by"].(*types.AttributeValueMemberS).Value != "alice" {
			t.Fatalf("GetItem by ARN: got %v, want alice's item", out.Item)
		}
		return err
	}
	wantAPIError(t, getByARN(b), "AccessDeniedException", denied(bob.Account, "GetItem", noAllow("GetItem")))

	policy := `{"Version":"2012-10-17","Statement":[
		{"Sid":"BobReads","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:root"},
		 "Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:Scan"],"Resource":"` + arn + `"},
		{"Sid":"NoScans","Effect":"Deny","Principal":{"AWS":"222222222222"},"Action":"dynamodb:Scan","Resource":"` + arn + `"},
		{"Sid":"KeepOrders","Effect":"Deny","Principal":"*","Action":"dynamodb:DeleteItem","Resource":"` + arn + `"}]}`
	if _, err := a.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	if err := getByARN(b); err != nil {
		t.Fatalf("GetItem by ARN with a policy allowing it: %v", err)
	}
	_, err := b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(arn), Item: rvals("pk", s("o2"))})
	wantAPIError(t, err, "AccessDeniedException", denied(bob.Account, "PutItem", noAllow("PutItem")))
	_, err = b.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(arn)})
	wantAPIError(t, err, "AccessDeniedException", denied(bob.Account, "Scan", explicit))
	_, err = a.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: rvals("pk", s("o1"))})
	wantAPIError(t, err, "AccessDeniedException", denied(alice.Account, "DeleteItem", explicit))
	if err := getByARN(a); err != nil {
		t.Fatalf("the owner's GetItem, which no statement denies: %v", err)
	}
	// Bob's own namespace is untouched: the bare name is his, and empty.
	_, err = b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: rvals("pk", s("o1"))})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")

	if _, err := a.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, getByARN(b), "AccessDeniedException", denied(bob.Account, "GetItem", noAllow("GetItem")))
	if _, err := a.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: rvals("pk", s("o1"))}); err != nil {
		t.Fatalf("DeleteItem once the policy is gone: %v", err)
	}
}

// TestStreamsPerAccount: a stream of another account's table is refused
// by its ARN without a policy of its own; the owner reads it.
func TestStreamsPerAccount(t *testing.T) {
	srv := startAuthServer(t, alice, bob)
	ctx := context.Background()
	arn := createStreamTable(t, clientAs(srv.URL, alice.AccessKey, alice.Secret, ""), "Feed", types.StreamViewTypeNewImage)
	if !strings.Contains(arn, ":"+alice.Account+":table/Feed/stream/") {
		t.Fatalf("stream ARN %s does not name alice's account", arn)
	}
	if _, err := streamsAs(srv.URL, alice).DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}); err != nil {
		t.Fatalf("the owner's DescribeStream: %v", err)
	}
	_, err := streamsAs(srv.URL, bob).DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "DescribeStream", arn))
}
