package integration

import (
	"context"
	"io"
	"testing"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// putObject writes body as the object key of bucket bkt in st (a folder or
// an S3 endpoint's store): the source of an import or a bulk load.
func putObject(t testing.TB, st bucket.Store, bkt, key, body string) {
	t.Helper()
	w, err := st.Create(context.Background(), bkt, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, body); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}
