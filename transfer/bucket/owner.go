package bucket

import (
	"context"
	"fmt"
	"io"
)

// ExpectOwner returns st as a request that names owner as the bucket's
// owner (S3BucketOwner) reaches it, with S3's bucket owner condition: an
// S3 endpoint is sent owner with every request and refuses one to another
// account's bucket (403 AccessDenied, so ErrAccessDenied); a folder's
// buckets belong to the account local (the requester's), so naming any
// other owner makes every call fail with ErrAccessDenied. An empty owner
// (the requester's account, as the service reads an omitted one) returns
// st as it is, as does a Store of another kind.
func ExpectOwner(st Store, owner, local string) Store {
	if owner == "" {
		return st
	}
	switch b := st.(type) {
	case S3:
		b.ExpectedOwner = owner
		return b
	case Dir:
		if owner != local {
			return notOwner{owner: owner}
		}
	}
	return st
}

// notOwner is a folder reached by a request that expects another owner.
type notOwner struct{ owner string }

func (n notOwner) err(bucket string) error {
	return fmt.Errorf("%w: bucket %s is not owned by account %s", ErrAccessDenied, bucket, n.owner)
}

func (n notOwner) Create(_ context.Context, bucket, _ string) (Writer, error) {
	return nil, n.err(bucket)
}

func (n notOwner) Open(_ context.Context, bucket, _ string) (io.ReadCloser, error) {
	return nil, n.err(bucket)
}

func (n notOwner) List(_ context.Context, bucket, _ string, _ func(Object) error) error {
	return n.err(bucket)
}
