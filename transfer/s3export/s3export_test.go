package s3export_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
	"github.com/ddblocal/ddblocal/transfer/iontext"
	"github.com/ddblocal/ddblocal/transfer/s3export"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// The reader below is written from the developer guide's description of
// the export layout, not from the writer: it reads manifest-summary.json,
// follows manifestFilesS3Key, checks each data file's md5Checksum (base64
// MD5 of the object) and etag, and parses its lines.

type guideSummary struct {
	Version            string  `json:"version"`
	ExportArn          string  `json:"exportArn"`
	StartTime          string  `json:"startTime"`
	EndTime            string  `json:"endTime"`
	TableArn           string  `json:"tableArn"`
	TableID            string  `json:"tableId"`
	ExportTime         string  `json:"exportTime"`
	ExportFromTime     string  `json:"exportFromTime"`
	ExportToTime       string  `json:"exportToTime"`
	S3Bucket           string  `json:"s3Bucket"`
	S3Prefix           *string `json:"s3Prefix"`
	S3SseAlgorithm     string  `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string  `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64   `json:"billedSizeBytes"`
	ItemCount          int64   `json:"itemCount"`
	OutputFormat       string  `json:"outputFormat"`
	OutputView         string  `json:"outputView"`
	ExportType         string  `json:"exportType"`
}

type guideFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

func readAll(t *testing.T, s bucket.Store, bkt, key string) []byte {
	t.Helper()
	r, err := s.Open(context.Background(), bkt, key)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readExport returns the summary, the files and every data line.
func readExport(t *testing.T, s bucket.Store, bkt, summaryKey string) (guideSummary, []guideFile, [][]byte) {
	t.Helper()
	raw := readAll(t, s, bkt, summaryKey)
	var sum guideSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatalf("manifest-summary.json: %v", err)
	}
	checkChecksum(t, s, bkt, strings.TrimSuffix(summaryKey, ".json")+".checksum", raw)
	filesRaw := readAll(t, s, bkt, sum.ManifestFilesS3Key)
	checkChecksum(t, s, bkt, strings.TrimSuffix(sum.ManifestFilesS3Key, ".json")+".checksum", filesRaw)
	var files []guideFile
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(filesRaw))
	for sc.Scan() {
		var f guideFile
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("manifest-files.json line %q: %v", sc.Text(), err)
		}
		files = append(files, f)
		obj := readAll(t, s, bkt, f.DataFileS3Key)
		sum := md5.Sum(obj)
		if got := base64.StdEncoding.EncodeToString(sum[:]); got != f.MD5Checksum {
			t.Errorf("%s: md5Checksum %s, object's MD5 %s", f.DataFileS3Key, f.MD5Checksum, got)
		}
		if got := hex.EncodeToString(sum[:]); got != f.ETag {
			t.Errorf("%s: etag %s, want %s", f.DataFileS3Key, f.ETag, got)
		}
		zr, err := gzip.NewReader(bytes.NewReader(obj))
		if err != nil {
			t.Fatalf("%s: %v", f.DataFileS3Key, err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", f.DataFileS3Key, err)
		}
		n := int64(0)
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > 0 {
				lines = append(lines, l)
				n++
			}
		}
		if n != f.ItemCount {
			t.Errorf("%s: %d lines, itemCount %d", f.DataFileS3Key, n, f.ItemCount)
		}
	}
	return sum, files, lines
}

func checkChecksum(t *testing.T, s bucket.Store, bkt, key string, content []byte) {
	t.Helper()
	sum := md5.Sum(content)
	if got := string(readAll(t, s, bkt, key)); got != hex.EncodeToString(sum[:]) {
		t.Errorf("%s = %q, want the hex MD5 of its manifest", key, got)
	}
}

func items(n int) []attr.Item {
	out := make([]attr.Item, n)
	for i := range out {
		ns, _ := attr.NumberSet("1", fmt.Sprint(i+2))
		out[i] = attr.Item{"pk": attr.String(fmt.Sprintf("p%d", i)), "n": attr.Int(int64(i) * 100),
			"b": attr.Binary([]byte{byte(i), 0}), "ns": ns, "e": attr.String("")}
	}
	return out
}

func stores(t *testing.T) map[string]bucket.Store {
	return map[string]bucket.Store{"dir": bucket.Dir{Root: t.TempDir()}, "s3": buckettest.Start(t, "exports").Store(t)}
}

var (
	t0 = time.Date(2026, 12, 5, 3, 0, 0, 123e6, time.UTC)
	t1 = t0.Add(time.Minute)
)

func TestFullExportLayout(t *testing.T) {
	for name, s := range stores(t) {
		for _, format := range []string{s3export.FormatJSON, s3export.FormatIon} {
			t.Run(name+"/"+format, func(t *testing.T) {
				id := s3export.NewID(t0)
				w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "exports", Prefix: "daily/", ID: id, Format: format, FileBytes: 1000})
				if err != nil {
					t.Fatal(err)
				}
				want := items(50)
				for _, it := range want {
					if err := w.Add(it); err != nil {
						t.Fatal(err)
					}
				}
				res, err := w.Finish(s3export.Summary{ExportArn: "arn:x/export/" + id, TableArn: "arn:x", TableID: "tid",
					StartTime: t0, EndTime: t1, ExportTime: t0})
				if err != nil {
					t.Fatal(err)
				}
				base := "daily/AWSDynamoDB/" + id
				if res.ManifestKey != base+"/manifest-summary.json" || res.ItemCount != 50 || res.Files < 2 {
					t.Errorf("result = %+v", res)
				}
				readAll(t, s, "exports", base+"/_started")
				sum, files, lines := readExport(t, s, "exports", res.ManifestKey)
				checkFullSummary(t, sum, format, base, res)
				ext := map[string]string{s3export.FormatJSON: ".json.gz", s3export.FormatIon: ".ion.gz"}[format]
				for _, f := range files {
					if !regexp.MustCompile(`^` + base + `/data/[a-z2-7]{26}` + regexp.QuoteMeta(ext) + `$`).MatchString(f.DataFileS3Key) {
						t.Errorf("data file key %s", f.DataFileS3Key)
					}
				}
				checkItems(t, format, lines, want)
			})
		}
	}
}

func checkFullSummary(t *testing.T, sum guideSummary, format, base string, res s3export.Result) {
	t.Helper()
	if sum.Version != "2020-06-30" || sum.ExportArn == "" || sum.TableArn != "arn:x" || sum.TableID != "tid" ||
		sum.StartTime != "2026-12-05T03:00:00.123Z" || sum.EndTime != "2026-12-05T03:01:00.123Z" ||
		sum.ExportTime != "2026-12-05T03:00:00.123Z" || sum.S3Bucket != "exports" || sum.S3Prefix == nil ||
		*sum.S3Prefix != "daily/" || sum.S3SseAlgorithm != "AES256" || sum.S3SseKmsKeyID != nil ||
		sum.ManifestFilesS3Key != base+"/manifest-files.json" || sum.ItemCount != 50 ||
		sum.BilledSizeBytes != res.BilledSizeBytes || sum.BilledSizeBytes == 0 || sum.OutputFormat != format ||
		sum.ExportType != "" || sum.OutputView != "" {
		t.Errorf("summary = %+v", sum)
	}
}

// checkItems decodes each line as the guide describes it and compares.
func checkItems(t *testing.T, format string, lines [][]byte, want []attr.Item) {
	t.Helper()
	got := map[string]attr.Item{}
	for _, l := range lines {
		var it attr.Item
		if format == s3export.FormatJSON {
			var rec struct{ Item attr.Item }
			if err := json.Unmarshal(l, &rec); err != nil {
				t.Fatalf("line %s: %v", l, err)
			}
			it = rec.Item
		} else {
			if !bytes.HasPrefix(l, []byte("$ion_1_0 ")) {
				t.Fatalf("Ion line without version marker: %s", l)
			}
			m, err := iontext.DecodeLine(l)
			if err != nil {
				t.Fatal(err)
			}
			it = m["Item"].M
		}
		got[it["pk"].S] = it
	}
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d", len(got), len(want))
	}
	for _, w := range want {
		g := got[w["pk"].S]
		for k, v := range w {
			if !attr.Equal(g[k], v) {
				t.Errorf("%s.%s = %#v, want %#v", w["pk"].S, k, g[k], v)
			}
		}
	}
}

func TestIncrementalExportLayout(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	id := s3export.NewID(t1)
	w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "exports", ID: id, Format: s3export.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	key := attr.Item{"pk": attr.String("a")}
	changes := []s3export.Change{
		{WriteTime: t0, Keys: key, NewImage: attr.Item{"pk": attr.String("a"), "v": attr.Int(1)}},
		{WriteTime: t0, Keys: key, NewImage: attr.Item{"pk": attr.String("a"), "v": attr.Int(2)}, OldImage: attr.Item{"pk": attr.String("a"), "v": attr.Int(1)}},
		{WriteTime: t1, Keys: key},
	}
	for _, c := range changes {
		if err := w.AddChange(c); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Finish(s3export.Summary{ExportType: s3export.IncrementalExport, FromTime: t0, ToTime: t1, View: s3export.ViewNewAndOld, StartTime: t1, EndTime: t1})
	if err != nil {
		t.Fatal(err)
	}
	sum, _, lines := readExport(t, s, "exports", res.ManifestKey)
	if sum.Version != "2023-08-01" || sum.ExportType != "INCREMENTAL_EXPORT" || sum.OutputView != "NEW_AND_OLD_IMAGES" ||
		sum.ExportFromTime != "2026-12-05T03:00:00.123Z" || sum.ExportToTime != "2026-12-05T03:01:00.123Z" ||
		sum.ExportTime != "" || sum.S3Prefix != nil || sum.ItemCount != 3 {
		t.Errorf("summary = %+v", sum)
	}
	wantLines := []string{
		`{"Metadata":{"WriteTimestampMicros":{"N":"1796439600123000"}},"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"v":{"N":"1"}}}`,
		`{"Metadata":{"WriteTimestampMicros":{"N":"1796439600123000"}},"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"v":{"N":"2"}},"OldImage":{"pk":{"S":"a"},"v":{"N":"1"}}}`,
		`{"Metadata":{"WriteTimestampMicros":{"N":"1796439660123000"}},"Keys":{"pk":{"S":"a"}}}`,
	}
	for i, l := range lines {
		if string(l) != wantLines[i] {
			t.Errorf("line %d = %s\nwant %s", i, l, wantLines[i])
		}
	}
}

func TestEmptyExportHasOneEmptyFile(t *testing.T) {
	s := bucket.Dir{Root: t.TempDir()}
	w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "e", ID: "x", Format: s3export.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.NextFile(); err != nil { // an empty partition
		t.Fatal(err)
	}
	w.Add(items(1)[0])
	res, err := w.Finish(s3export.Summary{})
	if err != nil {
		t.Fatal(err)
	}
	_, files, _ := readExport(t, s, "e", res.ManifestKey)
	if len(files) != 1 || files[0].ItemCount != 1 {
		t.Errorf("files = %+v, want one file of one item (the empty partition's file was reused)", files)
	}
	w, _ = s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "e", ID: "y", Format: s3export.FormatJSON})
	res, err = w.Finish(s3export.Summary{})
	if err != nil {
		t.Fatal(err)
	}
	_, files, _ = readExport(t, s, "e", res.ManifestKey)
	if len(files) != 1 || files[0].ItemCount != 0 {
		t.Errorf("files = %+v, want one empty file", files)
	}
}

func TestIDShape(t *testing.T) {
	id := s3export.NewID(time.UnixMilli(1604474914028))
	if !regexp.MustCompile(`^01604474914028-[0-9a-f]{8}$`).MatchString(id) {
		t.Errorf("NewID = %s", id)
	}
}

// TestAddStoredIsAdd: the transcoding fast path writes the bytes and
// counts the size its plain twin does, in both formats.
func TestAddStoredIsAdd(t *testing.T) {
	for _, format := range []string{s3export.FormatJSON, s3export.FormatIon} {
		s := bucket.Dir{Root: t.TempDir()}
		var lines [2][][]byte
		var billed [2]int64
		for i, stored := range []bool{false, true} {
			w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "b", ID: fmt.Sprint(i), Format: format})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range append(items(20), attr.Item{"pk": attr.String("z"), "m": attr.Map(map[string]attr.Value{"b": attr.Null(), "a": attr.List(nil)})}) {
				if stored {
					err = w.AddStored(attr.AppendBinary(nil, it))
				} else {
					err = w.Add(it)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Finish(s3export.Summary{})
			if err != nil {
				t.Fatal(err)
			}
			_, _, lines[i] = readExport(t, s, "b", res.ManifestKey)
			billed[i] = res.BilledSizeBytes
		}
		if len(lines[0]) != 21 || billed[0] != billed[1] {
			t.Fatalf("%s: %d lines, billed %v", format, len(lines[0]), billed)
		}
		for i := range lines[0] {
			if !bytes.Equal(lines[0][i], lines[1][i]) {
				t.Errorf("%s line %d:\nAdd       %s\nAddStored %s", format, i, lines[0][i], lines[1][i])
			}
		}
	}
}

// TestParallelIonIsPlain: in Ion, AddStored encodes runs of items on other
// goroutines; the export it writes is its plain twin's (Add of each decoded
// item) byte for byte: the same data files (their MD5s), each with the
// same items, and the same counts and billed size, with files closed in
// the middle of runs and runs closed by size (large items) as well as by
// count, within a CPU budget of one unit.
func TestParallelIonIsPlain(t *testing.T) {
	all := items(3000)
	big := strings.Repeat("x", 300<<10)
	for i := 100; i < 3000; i += 700 {
		all[i]["big"] = attr.String(big)
	}
	s := bucket.Dir{Root: t.TempDir()}
	var files [2][]guideFile
	var res [2]s3export.Result
	for i, stored := range []bool{false, true} {
		w, err := s3export.Start(context.Background(), s3export.Options{Store: s, Bucket: "b", ID: fmt.Sprint(i),
			Format: s3export.FormatIon, FileBytes: 16 << 10, CPU: s3import.NewBudget(1)})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range all {
			if stored {
				err = w.AddStored(attr.AppendBinary(nil, it))
			} else {
				err = w.Add(it)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if res[i], err = w.Finish(s3export.Summary{}); err != nil {
			t.Fatal(err)
		}
		_, files[i], _ = readExport(t, s, "b", res[i].ManifestKey)
	}
	if res[0].ItemCount != 3000 || res[1].ItemCount != 3000 || res[0].BilledSizeBytes != res[1].BilledSizeBytes || len(files[0]) < 10 {
		t.Fatalf("plain %+v, parallel %+v, %d files", res[0], res[1], len(files[0]))
	}
	if len(files[0]) != len(files[1]) {
		t.Fatalf("plain wrote %d files, parallel %d", len(files[0]), len(files[1]))
	}
	for i := range files[0] {
		a, b := files[0][i], files[1][i]
		if a.ItemCount != b.ItemCount || a.MD5Checksum != b.MD5Checksum {
			t.Errorf("file %d: plain %d items md5 %s, parallel %d items md5 %s", i, a.ItemCount, a.MD5Checksum, b.ItemCount, b.MD5Checksum)
		}
	}
}

// TestParallelIonError: a stored item that does not decode fails the Ion
// export, at a later AddStored or at Finish, and the error stays.
func TestParallelIonError(t *testing.T) {
	w, err := s3export.Start(context.Background(), s3export.Options{Store: bucket.Dir{Root: t.TempDir()}, Bucket: "b", ID: "x",
		Format: s3export.FormatIon})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items(2000) {
		if i == 500 {
			err = w.AddStored([]byte{0xff, 0xff, 0xff})
		} else {
			err = w.AddStored(attr.AppendBinary(nil, it))
		}
		if err != nil {
			break
		}
	}
	if _, ferr := w.Finish(s3export.Summary{}); ferr == nil {
		t.Fatal("Finish after a corrupt item: no error")
	} else if err != nil && ferr.Error() != err.Error() {
		t.Errorf("AddStored failed with %v, Finish with %v; want the same error", err, ferr)
	}
}

// TestIonExportWaitsForBudget: the Ion runs are encoded and written only
// with a unit of the CPU budget; while another transfer holds the only
// unit, the export cannot finish, and once it is given back it does.
func TestIonExportWaitsForBudget(t *testing.T) {
	cpu := s3import.NewBudget(1)
	w, err := s3export.Start(context.Background(), s3export.Options{Store: bucket.Dir{Root: t.TempDir()}, Bucket: "b", ID: "x",
		Format: s3export.FormatIon, CPU: cpu})
	if err != nil {
		t.Fatal(err)
	}
	cpu.Acquire()
	done := make(chan error, 1)
	go func() {
		for _, it := range items(3000) {
			if err := w.AddStored(attr.AppendBinary(nil, it)); err != nil {
				done <- err
				return
			}
		}
		_, err := w.Finish(s3export.Summary{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the export ended (%v) while the budget's only unit was held", err)
	case <-time.After(200 * time.Millisecond):
	}
	cpu.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
