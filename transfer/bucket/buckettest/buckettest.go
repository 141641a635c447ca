// Package buckettest gives tests an in-process S3 server speaking the real
// S3 protocol (gofakes3), so the S3-endpoint backend is tested over HTTP
// by our client, never against a mock; Client, aws-sdk-go-v2's own S3
// client, lets tests look at the objects independently of ours.
package buckettest

import (
	"context"
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
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
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
