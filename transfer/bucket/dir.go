package bucket

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// tmpPrefix starts the name of a file being written; List skips such files,
// so a crash mid-write leaves no half object visible.
const tmpPrefix = ".ddblocal-tmp-"

// Dir is the folder backend: bucket b is the directory Root/b, created on
// the first write to it (so an export needs no set-up), and key k is the
// file Root/b/k. Objects are written to a temporary file beside their final
// name, synced, and renamed on Commit.
type Dir struct {
	Root string
}

var _ Store = Dir{}

func (d Dir) path(bucket, key string) (string, error) {
	if err := checkName(bucket, false); err != nil {
		return "", fmt.Errorf("%w: bucket %q", err, bucket)
	}
	if err := checkName(key, true); err != nil {
		return "", fmt.Errorf("%w: key %q", err, key)
	}
	if strings.HasPrefix(filepath.Base(key), tmpPrefix) {
		return "", fmt.Errorf("%w: key %q", ErrInvalidName, key)
	}
	return filepath.Join(d.Root, bucket, filepath.FromSlash(key)), nil
}

// Create implements Store.
func (d Dir) Create(_ context.Context, bucket, key string) (Writer, error) {
	p, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(p), tmpPrefix+"*")
	if err != nil {
		return nil, err
	}
	return &dirWriter{f: f, final: p, sum: md5.New()}, nil
}

// Open implements Store.
func (d Dir) Open(_ context.Context, bucket, key string) (io.ReadCloser, error) {
	p, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err == nil {
		if st, serr := f.Stat(); serr == nil && st.IsDir() {
			f.Close()
			err = fs.ErrNotExist
		} else {
			return f, nil
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, berr := os.Stat(filepath.Join(d.Root, bucket)); berr != nil {
			return nil, fmt.Errorf("%w: %s", ErrNoSuchBucket, bucket)
		}
		return nil, fmt.Errorf("%w: %s/%s", ErrNoSuchKey, bucket, key)
	}
	return nil, err
}

// List implements Store. It walks the bucket's directory, so its cost is
// the number of files in the bucket, not only those under prefix.
func (d Dir) List(ctx context.Context, bucket, prefix string, fn func(Object) error) error {
	if err := checkName(bucket, false); err != nil {
		return fmt.Errorf("%w: bucket %q", err, bucket)
	}
	root := filepath.Join(d.Root, bucket)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: %s", ErrNoSuchBucket, bucket)
	}
	var objs []Object
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || strings.HasPrefix(e.Name(), tmpPrefix) {
			return ctx.Err()
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		objs = append(objs, Object{Key: key, Size: info.Size()})
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	for _, o := range objs {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// dirWriter writes a temporary file and hashes what passes.
type dirWriter struct {
	f     *os.File
	final string
	sum   hash.Hash
	done  bool
}

func (w *dirWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.sum.Write(p[:n])
	return n, err
}

func (w *dirWriter) Commit() (string, error) {
	if w.done {
		return "", errors.New("bucket: object already committed or aborted")
	}
	w.done = true
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.final)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return "", err
	}
	return hex.EncodeToString(w.sum.Sum(nil)), nil
}

func (w *dirWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	os.Remove(w.f.Name())
}
