package bucket

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// S3 is the S3-endpoint backend: MinIO, LocalStack's S3, a fake in a test,
// or AWS itself. It speaks the three calls it needs (PutObject, GetObject,
// ListObjectsV2) over HTTP with path-style addressing, signed with
// aws-sdk-go-v2's SigV4 signer: service/s3 would add 6 MB to a binary
// that must stay small (the container image's limit), for calls this
// simple. An object being written is spooled to a temporary file and sent
// with one PutObject on Commit, so memory stays bounded whatever the
// object's size (up to PutObject's 5 GB).
type S3 struct {
	// Endpoint is the base URL (http://127.0.0.1:9000).
	Endpoint string
	// Region signs requests; empty means us-east-1.
	Region      string
	Credentials aws.CredentialsProvider
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// TempDir holds the spool files; empty means os.TempDir().
	TempDir string
	// ExpectedOwner, when set, is sent with every request as S3's bucket
	// owner condition (x-amz-expected-bucket-owner): the endpoint refuses
	// a request to another account's bucket with 403 AccessDenied.
	ExpectedOwner string
}

var _ Store = S3{}

// emptySHA256 is the payload hash of a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Create implements Store.
func (s S3) Create(ctx context.Context, bucket, key string) (Writer, error) {
	f, err := os.CreateTemp(s.TempDir, tmpPrefix+"s3-*")
	if err != nil {
		return nil, err
	}
	return &s3Writer{ctx: ctx, s: s, bucket: bucket, key: key, f: f, sum: sha256.New()}, nil
}

// Open implements Store.
func (s S3) Open(ctx context.Context, bucket, key string) (io.ReadCloser, error) {
	resp, err := s.do(ctx, http.MethodGet, bucket, key, nil, nil, emptySHA256, 0)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// listResult is the part of ListObjectsV2's answer that List reads.
type listResult struct {
	IsTruncated           bool
	NextContinuationToken string
	Contents              []struct {
		Key  string
		Size int64
	}
}

// List implements Store with ListObjectsV2, which returns keys in
// ascending order, a page at a time.
func (s S3) List(ctx context.Context, bucket, prefix string, fn func(Object) error) error {
	q := url.Values{"list-type": {"2"}}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	for {
		resp, err := s.do(ctx, http.MethodGet, bucket, "", q, nil, emptySHA256, 0)
		if err != nil {
			return err
		}
		var page listResult
		err = xml.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("bucket: ListObjectsV2 %s: %w", bucket, err)
		}
		for _, o := range page.Contents {
			if err := fn(Object{Key: o.Key, Size: o.Size}); err != nil {
				return err
			}
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			return nil
		}
		q.Set("continuation-token", page.NextContinuationToken)
	}
}

// do sends one signed request and returns the response of a 2xx answer;
// any other answer is an error, mapped by s3Error.
func (s S3) do(ctx context.Context, method, bucket, key string, q url.Values, body io.Reader, payload string, size int64) (*http.Response, error) {
	req, err := s.request(ctx, method, bucket, key, q, body, size)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Content-Sha256", payload)
	if s.ExpectedOwner != "" {
		req.Header.Set("X-Amz-Expected-Bucket-Owner", s.ExpectedOwner)
	}
	creds, err := s.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, err
	}
	region := s.Region
	if region == "" {
		region = "us-east-1"
	}
	err = v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).
		SignHTTP(ctx, creds, req, payload, "s3", region, time.Now())
	if err != nil {
		return nil, err
	}
	c := s.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, s3Error(resp, bucket, key)
	}
	return resp, nil
}

// request builds the path-style request for bucket and key, the path
// escaped as SigV4 canonicalizes S3's (every byte but A-Z a-z 0-9 - _ . ~
// and /), and the query's spaces as %20, not +.
func (s S3) request(ctx context.Context, method, bucket, key string, q url.Values, body io.Reader, size int64) (*http.Request, error) {
	u, err := url.Parse(strings.TrimRight(s.Endpoint, "/"))
	if err != nil {
		return nil, fmt.Errorf("bucket: endpoint: %w", err)
	}
	path := "/" + bucket
	if key != "" {
		path += "/" + key
	}
	u.Path, u.RawPath = path, s3Escape(path)
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.ContentLength = size
		if size == 0 {
			req.Body = http.NoBody // else Go sends an empty body chunked
		}
	}
	return req, nil
}

// s3Escape percent-encodes every byte of p except the unreserved ones and
// the slash.
func s3Escape(p string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// s3Error reads an error answer's <Error><Code> and wraps the codes
// callers act on in this package's sentinels.
func s3Error(resp *http.Response, bucket, key string) error {
	var e struct{ Code, Message string }
	xml.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&e)
	err := fmt.Errorf("bucket: S3 %s %s: %d %s: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, e.Code, e.Message)
	switch {
	case e.Code == "NoSuchBucket":
		return fmt.Errorf("%w: %s: %w", ErrNoSuchBucket, bucket, err)
	case e.Code == "NoSuchKey" || (e.Code == "" && resp.StatusCode == http.StatusNotFound):
		return fmt.Errorf("%w: %s/%s: %w", ErrNoSuchKey, bucket, key, err)
	case e.Code == "AccessDenied" || e.Code == "InvalidAccessKeyId" || e.Code == "SignatureDoesNotMatch" || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w: %s: %w", ErrAccessDenied, bucket, err)
	}
	return err
}

// s3Writer spools to a temporary file until Commit, hashing as it goes
// (the PutObject's signed payload hash).
type s3Writer struct {
	ctx         context.Context // the Create call's, for the PutObject
	s           S3
	bucket, key string
	f           *os.File
	sum         hash.Hash
	size        int64
	done        bool
}

func (w *s3Writer) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.sum.Write(p[:n])
	w.size += int64(n)
	return n, err
}

func (w *s3Writer) Commit() (string, error) {
	if w.done {
		return "", errors.New("bucket: object already committed or aborted")
	}
	w.done = true
	defer func() { w.f.Close(); os.Remove(w.f.Name()) }()
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	resp, err := w.s.do(w.ctx, http.MethodPut, w.bucket, w.key, nil, io.NopCloser(w.f), hex.EncodeToString(w.sum.Sum(nil)), w.size)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return strings.Trim(resp.Header.Get("ETag"), `"`), nil
}

func (w *s3Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	os.Remove(w.f.Name())
}
