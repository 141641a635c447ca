// Package buckettest gives tests an in-process S3 server speaking the real
// S3 protocol (gofakes3), so the S3-endpoint backend is tested over HTTP
// by our client, never against a mock; Client, aws-sdk-go-v2's own S3
// client, lets tests look at the objects independently of ours.
package buckettest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// Server is a running fake S3 endpoint.
type Server struct {
	URL    string
	Client *s3.Client
}

// Start runs a fake S3 server for the test's lifetime and creates the
// given buckets in it.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	return start(t, "", buckets)
}

// StartOwned is Start with S3's bucket owner condition, which gofakes3
// does not check: every bucket belongs to the account owner, and a request
// whose x-amz-expected-bucket-owner header names another account is
// refused with 403 AccessDenied, as S3 refuses it.
func StartOwned(t testing.TB, owner string, buckets ...string) *Server {
	t.Helper()
	return start(t, owner, buckets)
}

func start(t testing.TB, owner string, buckets []string) *Server {
	t.Helper()
	h := gofakes3.New(s3mem.New()).Server()
	if owner != "" {
		h = ownerCondition(owner, h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := s3.New(s3.Options{BaseEndpoint: aws.String(srv.URL), Region: "us-east-1", UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")})
	for _, b := range buckets {
		if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	return &Server{URL: srv.URL, Client: c}
}

// Store returns the S3 backend on this server, spooling into a test
// directory.
func (s *Server) Store(t testing.TB) bucket.S3 {
	return bucket.S3{Endpoint: s.URL, Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), TempDir: t.TempDir()}
}

// ownerCondition refuses a request expecting a bucket owner other than
// owner, in S3's words, before next sees it.
func ownerCondition(owner string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := r.Header.Get("X-Amz-Expected-Bucket-Owner"); e != "" && e != owner {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	})
}
