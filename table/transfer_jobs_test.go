package table

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// TestInterruptedJobsFail: an export and an import a stopped server left
// IN_PROGRESS (as kill -9 leaves them) are FAILED when the next server
// starts on the same files, and a finished one is left alone.
func TestInterruptedJobsFail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	const region = "us-east-1"
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/T"
	db, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{})
	err = db.Update(context.Background(), func(tx *store.Tx) error {
		jobs := []struct {
			kind, id string
			v        any
		}{
			{kindExport, "01-a", &exportJob{Desc: ddb.ExportDescription{ExportArn: arn + "/export/01-a", ExportStatus: "IN_PROGRESS"}}},
			{kindExport, "02-b", &exportJob{Desc: ddb.ExportDescription{ExportArn: arn + "/export/02-b", ExportStatus: "COMPLETED"}}},
			{kindImport, "03-c", &importJob{Desc: ddb.ImportTableDescription{ImportArn: arn + "/import/03-c", ImportStatus: "IN_PROGRESS"}}},
		}
		for _, j := range jobs {
			if err := writeJob(tx, region, j.kind, j.id, j.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db.Close()
	if db, err = store.Open(store.Options{Path: path}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s = New(db, Options{})
	defer s.Close()
	ctx := context.Background()
	for id, want := range map[string]string{"01-a": "FAILED", "02-b": "COMPLETED"} {
		out, err := s.DescribeExport(ctx, region, &ddb.DescribeExportInput{ExportArn: arn + "/export/" + id})
		if err != nil || out.ExportDescription.ExportStatus != want {
			t.Errorf("export %s: %+v, %v; want %s", id, out, err, want)
		}
	}
	out, err := s.DescribeImport(ctx, region, &ddb.DescribeImportInput{ImportArn: arn + "/import/03-c"})
	if err != nil || out.ImportTableDescription.ImportStatus != "FAILED" || out.ImportTableDescription.FailureCode != "UnknownError" ||
		out.ImportTableDescription.EndTime == nil {
		t.Errorf("import: %+v, %v", out, err)
	}
}
