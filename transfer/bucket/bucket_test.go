package bucket_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
)

// backends runs the contract on both stores; the folder one gets bucket "b"
// by its first write, as it creates buckets on demand.
func backends(t *testing.T) map[string]bucket.Store {
	return map[string]bucket.Store{"dir": bucket.Dir{Root: t.TempDir()}, "s3": buckettest.Start(t, "bkt").Store(t)}
}

func put(t *testing.T, s bucket.Store, bkt, key, body string) string {
	t.Helper()
	w, err := s.Create(context.Background(), bkt, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, body); err != nil {
		t.Fatal(err)
	}
	etag, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return etag
}

func get(t *testing.T, s bucket.Store, bkt, key string) (string, error) {
	t.Helper()
	r, err := s.Open(context.Background(), bkt, key)
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return string(b), err
}

func list(t *testing.T, s bucket.Store, bkt, prefix string) []bucket.Object {
	t.Helper()
	var got []bucket.Object
	if err := s.List(context.Background(), bkt, prefix, func(o bucket.Object) error { got = append(got, o); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestStoreContract(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			etag := put(t, s, "bkt", "p/AWSDynamoDB/x/data/one.json.gz", "hello")
			sum := md5.Sum([]byte("hello"))
			if want := hex.EncodeToString(sum[:]); etag != want {
				t.Errorf("etag = %q, want %q", etag, want)
			}
			put(t, s, "bkt", "p/a", "")
			put(t, s, "bkt", "p-b", "xyz")
			put(t, s, "bkt", "q/z", "1")
			put(t, s, "bkt", "p/a", "replaced")
			if got, err := get(t, s, "bkt", "p/a"); err != nil || got != "replaced" {
				t.Errorf("get p/a = %q, %v", got, err)
			}
			got := list(t, s, "bkt", "p")
			want := []bucket.Object{{"p-b", 3}, {"p/AWSDynamoDB/x/data/one.json.gz", 5}, {"p/a", 8}}
			if len(got) != len(want) {
				t.Fatalf("list = %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("list[%d] = %v, want %v", i, got[i], want[i])
				}
			}
			if _, err := get(t, s, "bkt", "nope"); !errors.Is(err, bucket.ErrNoSuchKey) {
				t.Errorf("missing key: %v, want bucket.ErrNoSuchKey", err)
			}
			if _, err := get(t, s, "nobucket", "k"); !errors.Is(err, bucket.ErrNoSuchBucket) {
				t.Errorf("missing bucket: %v, want bucket.ErrNoSuchBucket", err)
			}
			err := s.List(context.Background(), "nobucket", "", func(bucket.Object) error { return nil })
			if !errors.Is(err, bucket.ErrNoSuchBucket) {
				t.Errorf("list missing bucket: %v, want bucket.ErrNoSuchBucket", err)
			}
		})
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			put(t, s, "bkt", "keep", "k")
			w, err := s.Create(context.Background(), "bkt", "gone")
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, "partial")
			if got := list(t, s, "bkt", ""); len(got) != 1 || got[0].Key != "keep" {
				t.Errorf("uncommitted object visible: %v", got)
			}
			w.Abort()
			w.Abort()
			if _, err := get(t, s, "bkt", "gone"); !errors.Is(err, bucket.ErrNoSuchKey) {
				t.Errorf("aborted object: %v, want bucket.ErrNoSuchKey", err)
			}
		})
	}
}

func TestDirRejectsUnsafeNames(t *testing.T) {
	root := t.TempDir()
	d := bucket.Dir{Root: filepath.Join(root, "s3")}
	for _, c := range []struct{ bucket, key string }{
		{"bkt", "../x"}, {"bkt", "/abs"}, {"bkt", "a//b"}, {"bkt", "a/./b"}, {"bkt", ""}, {"bkt", "a\\b"},
		{"..", "k"}, {"a/b", "k"}, {"", "k"}, {"bkt", "a/.ddblocal-tmp-1"},
	} {
		if _, err := d.Create(context.Background(), c.bucket, c.key); !errors.Is(err, bucket.ErrInvalidName) {
			t.Errorf("Create(%q, %q) = %v, want bucket.ErrInvalidName", c.bucket, c.key, err)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("rejected names created files: %v", entries)
	}
}

func TestDirLayoutIsPlainFiles(t *testing.T) {
	root := t.TempDir()
	put(t, bucket.Dir{Root: root}, "bkt", "x/y.txt", "content")
	b, err := os.ReadFile(filepath.Join(root, "bkt", "x", "y.txt"))
	if err != nil || !bytes.Equal(b, []byte("content")) {
		t.Errorf("file = %q, %v", b, err)
	}
}

// TestS3EscapingAndPages checks our S3 client against aws-sdk-go-v2's on
// keys that need escaping, and List across ListObjectsV2 pages.
func TestS3EscapingAndPages(t *testing.T) {
	srv := buckettest.Start(t, "bkt")
	s := srv.Store(t)
	keys := []string{"a b/c+d", "é/ü?x=1&y", "tilde~_.-", "p%2Fq"}
	for _, k := range keys {
		put(t, s, "bkt", k, "v:"+k)
		out, err := srv.Client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("bkt"), Key: aws.String(k)})
		if err != nil {
			t.Fatalf("SDK GetObject %q: %v", k, err)
		}
		b, _ := io.ReadAll(out.Body)
		out.Body.Close()
		if string(b) != "v:"+k {
			t.Errorf("SDK reads %q as %q", k, b)
		}
		if got, err := get(t, s, "bkt", k); err != nil || got != "v:"+k {
			t.Errorf("get %q = %q, %v", k, got, err)
		}
	}
	for i := range 1005 {
		put(t, s, "bkt", fmt.Sprintf("many/%04d", i), "")
	}
	got := list(t, s, "bkt", "many/")
	if len(got) != 1005 || got[0].Key != "many/0000" || got[1004].Key != "many/1004" {
		t.Fatalf("listed %d objects across pages, want 1005 in order", len(got))
	}
}

// TestExpectOwner: a request naming the bucket's owner, or none, reaches
// it; one naming another account is refused with ErrAccessDenied, by the
// S3 endpoint (S3's bucket owner condition) and by the folder, whose
// buckets are the local account's, for every call.
func TestExpectOwner(t *testing.T) {
	const mine, other = "111111111111", "222222222222"
	stores := map[string]bucket.Store{"dir": bucket.Dir{Root: t.TempDir()}, "s3": buckettest.StartOwned(t, mine, "bkt").Store(t)}
	ctx := context.Background()
	for name, st := range stores {
		put(t, st, "bkt", "seed", "x")
		for _, tt := range []struct {
			owner  string
			denied bool
		}{{"", false}, {mine, false}, {other, true}} {
			o := bucket.ExpectOwner(st, tt.owner, mine)
			_, err := get(t, o, "bkt", "seed")
			listErr := o.List(ctx, "bkt", "", func(bucket.Object) error { return nil })
			var commitErr error
			if w, err := o.Create(ctx, "bkt", "new-"+tt.owner); err != nil {
				commitErr = err
			} else {
				io.WriteString(w, "y")
				_, commitErr = w.Commit()
			}
			for call, err := range map[string]error{"Open": err, "List": listErr, "Create": commitErr} {
				if got := errors.Is(err, bucket.ErrAccessDenied); got != tt.denied || (!tt.denied && err != nil) {
					t.Errorf("%s: %s expecting owner %q: %v, want denied %v", name, call, tt.owner, err, tt.denied)
				}
			}
		}
		if got := list(t, st, "bkt", "new-"); len(got) != 2 {
			t.Errorf("%s: objects written: %v, want the two by the owner's requests", name, got)
		}
	}
}
