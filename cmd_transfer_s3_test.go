package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestServerS3Default: with neither --s3-dir nor --s3-endpoint, the
// server's S3 locations are the folder s3 beside the database file (inside
// --db-path when it names a directory, in the working directory with
// --in-memory), so exports and imports work with no set-up; --s3-dir wins.
func TestServerS3Default(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "dbdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, flagDir, dbPath string
		inMemory              bool
		want                  string
	}{
		{"beside the file", "", filepath.Join(dir, "data", "ddb.db"), false, filepath.Join(dir, "data", "s3")},
		{"inside a directory", "", filepath.Join(dir, "dbdir"), false, filepath.Join(dir, "dbdir", "s3")},
		{"in memory", "", filepath.Join(dir, "ignored.db"), true, "s3"},
		{"named", "/srv/buckets", filepath.Join(dir, "ddb.db"), false, "/srv/buckets"},
	} {
		f := s3Flags{dir: c.flagDir}
		st, err := f.serverStore(c.dbPath, c.inMemory, func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d, ok := st.(bucket.Dir); !ok || d.Root != c.want {
			t.Errorf("%s: store %#v, want the folder %s", c.name, st, c.want)
		}
	}
}
