package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// S3 is the S3-endpoint backend: MinIO, LocalStack's S3, a fake in a test,
// or AWS itself, through aws-sdk-go-v2's client. An object being written is
// spooled to a temporary file and sent with one PutObject on Commit, so
// memory stays bounded whatever the object's size (up to PutObject's 5 GB).
type S3 struct {
	Client *s3.Client
	// TempDir holds the spool files; empty means os.TempDir().
	TempDir string
}

var _ Store = S3{}

// NewS3Client returns a client for an S3-compatible endpoint: path-style
// addressing (bucket in the path, as MinIO and fakes need), checksums only
// where the API requires them (not every S3-compatible server accepts the
// SDK's default trailing checksums), and creds; region "" means us-east-1.
func NewS3Client(endpoint, region string, creds aws.CredentialsProvider) *s3.Client {
	if region == "" {
		region = "us-east-1"
	}
	return s3.New(s3.Options{
		BaseEndpoint:               aws.String(endpoint),
		Region:                     region,
		UsePathStyle:               true,
		Credentials:                creds,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// Create implements Store.
func (s S3) Create(ctx context.Context, bucket, key string) (Writer, error) {
	f, err := os.CreateTemp(s.TempDir, tmpPrefix+"s3-*")
	if err != nil {
		return nil, err
	}
	return &s3Writer{ctx: ctx, s: s, bucket: bucket, key: key, f: f}, nil
}

// Open implements Store.
func (s S3) Open(ctx context.Context, bucket, key string) (io.ReadCloser, error) {
	out, err := s.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, mapS3Error(err, bucket, key)
	}
	return out.Body, nil
}

// List implements Store with ListObjectsV2, which returns keys in
// ascending order.
func (s S3) List(ctx context.Context, bucket, prefix string, fn func(Object) error) error {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	p := s3.NewListObjectsV2Paginator(s.Client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return mapS3Error(err, bucket, prefix)
		}
		for _, o := range page.Contents {
			if err := fn(Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// mapS3Error wraps the endpoint's error codes callers act on in this
// package's sentinels, keeping the original in the chain.
func mapS3Error(err error, bucket, key string) error {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.ErrorCode() {
	case "NoSuchBucket":
		return fmt.Errorf("%w: %s: %w", ErrNoSuchBucket, bucket, err)
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%w: %s/%s: %w", ErrNoSuchKey, bucket, key, err)
	case "AccessDenied", "Forbidden", "InvalidAccessKeyId", "SignatureDoesNotMatch":
		return fmt.Errorf("%w: %s: %w", ErrAccessDenied, bucket, err)
	}
	return err
}

// s3Writer spools to a temporary file until Commit.
type s3Writer struct {
	ctx         context.Context // the Create call's, for the PutObject
	s           S3
	bucket, key string
	f           *os.File
	done        bool
}

func (w *s3Writer) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w *s3Writer) Commit() (string, error) {
	if w.done {
		return "", errors.New("bucket: object already committed or aborted")
	}
	w.done = true
	defer func() { w.f.Close(); os.Remove(w.f.Name()) }()
	size, err := w.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	out, err := w.s.Client.PutObject(w.ctx, &s3.PutObjectInput{
		Bucket: aws.String(w.bucket), Key: aws.String(w.key),
		Body: w.f, ContentLength: aws.Int64(size),
	})
	if err != nil {
		return "", mapS3Error(err, w.bucket, w.key)
	}
	return strings.Trim(aws.ToString(out.ETag), `"`), nil
}

func (w *s3Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	os.Remove(w.f.Name())
}
