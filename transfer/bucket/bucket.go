// Package bucket stores objects at S3 locations (a bucket and a key) in one
// of two backends behind one small interface: a local folder, where bucket b
// is the directory DIR/b and key k the file DIR/b/k, and any S3-compatible
// endpoint through aws-sdk-go-v2's service/s3. Exports write through it and
// imports read through it, so both backends give the same layout.
package bucket

import (
	"context"
	"errors"
	"io"
	"strings"
)

// Errors the backends return (wrapped) for the cases callers act on.
var (
	// ErrNoSuchBucket is returned when the bucket does not exist.
	ErrNoSuchBucket = errors.New("bucket: no such bucket")
	// ErrNoSuchKey is returned by Open when the object does not exist.
	ErrNoSuchKey = errors.New("bucket: no such key")
	// ErrInvalidName is returned for a bucket name or key the folder backend
	// cannot map to a file safely (empty, "..", absolute, NUL, backslash).
	ErrInvalidName = errors.New("bucket: invalid bucket name or key")
	// ErrAccessDenied is returned when the endpoint refuses the request.
	ErrAccessDenied = errors.New("bucket: access denied")
)

// Object is one listed object.
type Object struct {
	Key  string
	Size int64
}

// Store is an S3-shaped object store. Implementations are safe for
// concurrent use.
type Store interface {
	// Create starts writing the object key in bucket. Nothing is visible to
	// Open or List until the Writer's Commit returns nil; Abort (or a failed
	// Commit) leaves no object and no temporary file behind. Writing an
	// existing key replaces it on Commit.
	Create(ctx context.Context, bucket, key string) (Writer, error)
	// Open returns the object's bytes; the caller closes the reader. It
	// returns ErrNoSuchBucket or ErrNoSuchKey (wrapped) when absent.
	Open(ctx context.Context, bucket, key string) (io.ReadCloser, error)
	// List calls fn for every object whose key starts with prefix, in
	// ascending key order, stopping at fn's first error, which it returns.
	// A missing bucket is ErrNoSuchBucket.
	List(ctx context.Context, bucket, prefix string, fn func(Object) error) error
}

// Writer is an object being written.
type Writer interface {
	io.Writer
	// Commit makes the object visible and returns its ETag: the hex MD5 of
	// its bytes (as S3 gives for a single-part upload), without quotes.
	Commit() (etag string, err error)
	// Abort discards what was written; it is safe after Commit.
	Abort()
}

// checkName rejects names that are unsafe as path elements of a folder:
// empty, absolute, with a "." or ".." segment, an empty segment, NUL or a
// backslash.
func checkName(name string, allowSlash bool) error {
	if name == "" || strings.ContainsAny(name, "\x00\\") || (!allowSlash && strings.Contains(name, "/")) {
		return ErrInvalidName
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return ErrInvalidName
		}
	}
	return nil
}
