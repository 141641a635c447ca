package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// certLine matches the log line naming the self-signed certificate.
var certLine = regexp.MustCompile(`msg="wrote a self-signed TLS certificate[^"]*" cert=(\S+)`)

// TestBinaryTLS starts the binary with --tls-self-signed and talks to it
// with the SDK trusting only the certificate it wrote, over HTTP/2 and
// HTTP/1.1; then serves the same certificate with --tls-cert/--tls-key.
func TestBinaryTLS(t *testing.T) {
	dir := t.TempDir()
	p := startBinary(t, dir, nil, "--in-memory", "--port", "0", "--tls-self-signed")
	m := certLine.FindStringSubmatch(p.log.String())
	if m == nil {
		t.Fatalf("no certificate path in the log:\n%s", p.log.String())
	}
	if got, want := m[1], filepath.Join(dir, "ddblocal-cert.pem"); got != want {
		t.Errorf("certificate written to %s, want %s (beside --db-path)", got, want)
	}
	pemBytes, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s holds no PEM certificate", m[1])
	}
	url := "https://localhost:" + p.Port
	ctx := context.Background()

	for _, proto := range []string{"HTTP/2.0", "HTTP/1.1"} {
		t.Run(proto, func(t *testing.T) {
			hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
				tr.TLSClientConfig = &tls.Config{RootCAs: roots}
				tr.ForceAttemptHTTP2 = proto == "HTTP/2.0"
				if proto == "HTTP/1.1" {
					tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
				}
			})
			seen := &protoRecorder{next: hc}
			c := dynamodb.New(dynamodb.Options{
				BaseEndpoint: aws.String(url), Region: "us-east-1", HTTPClient: seen,
				Credentials: credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
				Retryer:     aws.NopRetryer{},
			}, readOnlyBodies)
			name := "TLS" + strings.ReplaceAll(proto, "/", "")
			createTable(t, c, strings.ReplaceAll(name, ".", ""), false)
			if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
				t.Fatal(err)
			}
			if seen.proto != proto {
				t.Errorf("got %s, want %s", seen.proto, proto)
			}
		})
	}

	// A client that does not trust the certificate is refused.
	if _, err := http.Get(url + "/"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("GET with the system roots: got %v, want a certificate error", err)
	}
	p.stopOK()

	// The same certificate and a key, given as files.
	t.Run("cert and key files", func(t *testing.T) {
		code, stderr := runBinary(t, dir, "--in-memory", "--port", "0", "--tls-cert", m[1])
		if code == 0 || !strings.Contains(stderr, "--tls-cert and --tls-key go together") {
			t.Fatalf("--tls-cert alone: got exit %d, stderr %q", code, stderr)
		}
		code, stderr = runBinary(t, dir, "--in-memory", "--port", "0", "--tls-cert", m[1], "--tls-key", filepath.Join(dir, "missing.pem"))
		if code == 0 || !strings.Contains(stderr, "missing.pem") {
			t.Fatalf("missing key: got exit %d, stderr %q", code, stderr)
		}
		certFile, keyFile, roots := writeCertAndKey(t, dir)
		p := startBinary(t, dir, nil, "--in-memory", "--port", "0", "--tls-cert", certFile, "--tls-key", keyFile)
		hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.TLSClientConfig = &tls.Config{RootCAs: roots}
		})
		c := dynamodb.New(dynamodb.Options{
			BaseEndpoint: aws.String("https://localhost:" + p.Port), Region: "us-east-1", HTTPClient: hc,
			Credentials: credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
			Retryer:     aws.NopRetryer{},
		}, readOnlyBodies)
		if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("over --tls-cert/--tls-key: %v", err)
		}
		p.stopOK()
	})
}

// protoRecorder remembers the protocol of the last response.
type protoRecorder struct {
	next  *awshttp.BuildableClient
	proto string
}

func (r *protoRecorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	if err == nil {
		r.proto = resp.Proto
	}
	return resp, err
}

// TestBinaryWarnsWhenOpen: listening beyond loopback without --credentials
// logs one warning; on loopback, or with credentials, none.
func TestBinaryWarnsWhenOpen(t *testing.T) {
	const warning = "anyone who can reach the port can read and change every table"
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"all interfaces", []string{"--in-memory", "--port", "0"}, 1},
		{"loopback", []string{"--in-memory", "--port", "0", "--host", "127.0.0.1"}, 0},
		{"with credentials", []string{"--in-memory", "--port", "0", "--credentials", testKey + ":" + testSecret}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if signedPass() && tc.want == 1 {
				t.Skip("every server of the signed pass has credentials")
			}
			p := startBinary(t, t.TempDir(), nil, tc.args...)
			p.stopOK()
			if got := strings.Count(p.log.String(), warning); got != tc.want {
				t.Errorf("got %d warnings, want %d:\n%s", got, tc.want, p.log.String())
			}
		})
	}
}

// writeCertAndKey writes a certificate for localhost and its key as PEM
// files in dir and returns their paths and a pool trusting the certificate.
func writeCertAndKey(t *testing.T, dir string) (string, string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "own-cert.pem"), filepath.Join(dir, "own-key.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	return certFile, keyFile, roots
}
