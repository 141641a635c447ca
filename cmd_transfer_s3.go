package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3export"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// s3Flags say where S3 locations live: a local folder (bucket b is DIR/b)
// or an S3-compatible endpoint.
type s3Flags struct {
	dir, endpoint, region string
}

func (f *s3Flags) register(fs *flag.FlagSet, getenv func(string) string) {
	f.registerDefault(fs, getenv, "s3", "folder serving S3 locations: bucket b is DIR/b [DDBLOCAL_S3_DIR]")
}

// registerDefault registers the flags with def as --s3-dir's default.
func (f *s3Flags) registerDefault(fs *flag.FlagSet, getenv func(string) string, def, dirUsage string) {
	dir := getenv("DDBLOCAL_S3_DIR")
	if dir == "" {
		dir = def
	}
	fs.StringVar(&f.dir, "s3-dir", dir, dirUsage)
	fs.StringVar(&f.endpoint, "s3-endpoint", getenv("DDBLOCAL_S3_ENDPOINT"), "S3-compatible endpoint URL (MinIO, LocalStack, AWS); replaces --s3-dir [DDBLOCAL_S3_ENDPOINT]")
	fs.StringVar(&f.region, "s3-region", getenv("DDBLOCAL_S3_REGION"), "region of the S3 endpoint (default us-east-1) [DDBLOCAL_S3_REGION]")
}

// store returns the backend the flags name. An endpoint on this machine
// with no credentials in the environment gets dummy ones, as the DynamoDB
// client does; otherwise the default credential chain signs.
func (f *s3Flags) store(ctx context.Context, getenv func(string) string) (bucket.Store, error) {
	if f.endpoint == "" {
		return bucket.Dir{Root: f.dir}, nil
	}
	if err := checkEndpoint(f.endpoint); err != nil { // the subcommands' --s3-endpoint
		return nil, fmt.Errorf("invalid --s3-endpoint %q: %v", f.endpoint, err)
	}
	var creds aws.CredentialsProvider = credentials.NewStaticCredentialsProvider("local", "local", "")
	if !isLoopback(f.endpoint) || getenv("AWS_ACCESS_KEY_ID") != "" || getenv("AWS_PROFILE") != "" {
		cfg, err := awsconfig.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, err
		}
		creds = cfg.Credentials
	}
	return bucket.S3{Endpoint: f.endpoint, Region: f.region, Credentials: creds}, nil
}

// serverStore is the server's S3 backend: the endpoint, or the folder
// --s3-dir, by default "s3" beside the database file (or in the working
// directory with --in-memory), so exports and imports work with no set-up.
func (f *s3Flags) serverStore(dbPath string, inMemory bool, getenv func(string) string) (bucket.Store, error) {
	if f.endpoint == "" && f.dir == "" {
		f.dir = "s3"
		if !inMemory {
			dir := filepath.Dir(dbPath)
			if fi, err := os.Stat(dbPath); err == nil && fi.IsDir() {
				dir = dbPath
			}
			f.dir = filepath.Join(dir, "s3")
		}
	}
	return f.store(context.Background(), getenv)
}

// parseS3URL splits s3://bucket/prefix.
func parseS3URL(u string) (bkt, prefix string, err error) {
	rest, ok := strings.CutPrefix(u, "s3://")
	bkt, prefix, _ = strings.Cut(rest, "/")
	if !ok || bkt == "" {
		return "", "", fmt.Errorf("want s3://BUCKET[/PREFIX], got %q", u)
	}
	return bkt, prefix, nil
}

// exportToS3 writes table in the layout of ExportTableToPointInTime (a
// full export of the table as it is while the scan runs) and returns the
// manifest summary's key.
func exportToS3(ctx context.Context, c *dynamodb.Client, st bucket.Store, table, to, format string, o transfer.ExportOptions) (s3export.Result, error) {
	bkt, prefix, err := parseS3URL(to)
	if err != nil {
		return s3export.Result{}, err
	}
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return s3export.Result{}, err
	}
	start := time.Now()
	id := s3export.NewID(start)
	w, err := s3export.Start(ctx, s3export.Options{Store: st, Bucket: bkt, Prefix: prefix, ID: id, Format: format})
	if err != nil {
		return s3export.Result{}, err
	}
	if _, err := transfer.ExportItems(ctx, c, table, o, w.Add); err != nil {
		w.Abort()
		return s3export.Result{}, err
	}
	arn := aws.ToString(desc.Table.TableArn)
	return w.Finish(s3export.Summary{ExportArn: arn + "/export/" + id, TableArn: arn, TableID: aws.ToString(desc.Table.TableId),
		StartTime: start, EndTime: time.Now(), ExportTime: start})
}

// s3Source is what import reads: a prefix in a format and compression.
type s3Source struct {
	bucket, prefix string
	o              s3import.Options
}

// resolveSource reads an export's manifest-summary.json when from names
// an export's folder (or the summary itself): then the data files and
// their format come from it. Otherwise from is a plain prefix.
func resolveSource(ctx context.Context, st bucket.Store, from string, o s3import.Options) (s3Source, error) {
	bkt, prefix, err := parseS3URL(from)
	if err != nil {
		return s3Source{}, err
	}
	base := strings.TrimSuffix(strings.TrimRight(prefix, "/"), "/manifest-summary.json")
	r, err := st.Open(ctx, bkt, base+"/manifest-summary.json")
	if errors.Is(err, bucket.ErrNoSuchKey) || errors.Is(err, bucket.ErrInvalidName) {
		return s3Source{bucket: bkt, prefix: prefix, o: o}, nil
	}
	if err != nil {
		return s3Source{}, err
	}
	defer r.Close()
	var sum struct{ OutputFormat, ExportType string }
	if err := json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(&sum); err != nil {
		return s3Source{}, fmt.Errorf("%s/manifest-summary.json: %w", base, err)
	}
	if sum.ExportType == s3export.IncrementalExport {
		return s3Source{}, errors.New("an incremental export holds changes, not items: import a full export")
	}
	o.Format, o.Compression = sum.OutputFormat, s3import.CompressionGzip
	return s3Source{bucket: bkt, prefix: base + "/data/", o: o}, nil
}

// importFromS3 loads every item of src into table with BatchWriteItem;
// bad records are counted and the first few reported on stderr.
func importFromS3(ctx context.Context, c *dynamodb.Client, st bucket.Store, table string, src s3Source, o transfer.ImportOptions, stderr io.Writer) (int64, s3import.Stats, error) {
	if src.o.Format == s3import.FormatCSV {
		keys, err := keyTypes(ctx, c, table)
		if err != nil {
			return 0, s3import.Stats{}, err
		}
		src.o.KeyTypes = keys
	}
	var stats s3import.Stats
	shown := 0
	n, err := transfer.ImportItems(ctx, c, table, "s3://"+src.bucket+"/"+src.prefix, o, func(put func(attr.Item, int) error) error {
		var err error
		stats, err = s3import.Read(ctx, st, src.bucket, src.prefix, src.o,
			func(it attr.Item) error { return put(it, 0) },
			func(e *s3import.RecordError) {
				if shown++; shown <= 10 {
					fmt.Fprintf(stderr, "ddblocal: skipped %v\n", e)
				}
			})
		return err
	})
	return n, stats, err
}

// keyTypes returns the types of table's key attributes, for CSV.
func keyTypes(ctx context.Context, c *dynamodb.Client, table string) (map[string]attr.Type, error) {
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, err
	}
	out := map[string]attr.Type{}
	for _, d := range desc.Table.AttributeDefinitions {
		out[aws.ToString(d.AttributeName)] = map[types.ScalarAttributeType]attr.Type{
			types.ScalarAttributeTypeS: attr.TypeS, types.ScalarAttributeTypeN: attr.TypeN, types.ScalarAttributeTypeB: attr.TypeB,
		}[d.AttributeType]
	}
	return out, nil
}

// exportLines writes the table as JSON lines to the file out (- is stdout).
func exportLines(ctx context.Context, c *dynamodb.Client, tbl, out string, stdout io.Writer, prog progress, o transfer.ExportOptions) error {
	w := stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := transfer.Export(ctx, c, tbl, w, o)
	prog.Finish(n)
	if err != nil {
		return fmt.Errorf("export %s: %w", tbl, err)
	}
	if f, ok := w.(*os.File); ok && w != stdout {
		return f.Close()
	}
	return nil
}

// importFlags are import's flags for an S3 source.
type importFlags struct {
	s3                      s3Flags
	from, format, compress  string
	csvDelimiter, csvHeader string
}

func (f *importFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	f.s3.register(fs, getenv)
	fs.StringVar(&f.from, "from", "", "s3://BUCKET/PREFIX: import every object under it (ImportTable's sources), or the export whose folder it names, instead of FILE")
	fs.StringVar(&f.format, "input-format", s3import.FormatJSON, "with --from: DYNAMODB_JSON, ION or CSV (an export's folder says its own)")
	fs.StringVar(&f.compress, "compression", s3import.CompressionNone, "with --from: NONE, GZIP or ZSTD")
	fs.StringVar(&f.csvDelimiter, "csv-delimiter", ",", "with --input-format CSV: the delimiter")
	fs.StringVar(&f.csvHeader, "csv-header", "", "with --input-format CSV: comma-separated column names; then every line is data")
}

// options are the source's read options. An object whose bytes break off
// (a corrupt or truncated GZIP or ZSTD stream) is one bad record where it
// breaks and the import goes on with the next object, as ImportTable does
// (SkipBroken); an object the store cannot give still stops it.
func (f *importFlags) options() s3import.Options {
	o := s3import.Options{Format: f.format, Compression: f.compress, CSV: s3import.CSVOptions{Delimiter: f.csvDelimiter}, SkipBroken: true}
	if f.csvHeader != "" {
		o.CSV.Header = strings.Split(f.csvHeader, ",")
	}
	return o
}

// importS3 loads an S3 source (--from) into an existing table, every good
// record of it, then prints the counts; when some records could not be
// imported (named on stderr, the first ten) it fails, so that a script sees
// a non-zero exit, though the good ones are in the table.
func importS3(ctx context.Context, ep *endpointFlags, f *importFlags, tbl string, workers int, getenv func(string) string, stdout, stderr io.Writer, nargs int) error {
	if tbl == "" || nargs != 0 {
		return fmt.Errorf("import: --from takes --table and no FILE")
	}
	prog := newProgress(stderr, "imported")
	ep.logger = prog
	c, err := ep.client(ctx, getenv)
	if err != nil {
		return err
	}
	st, err := f.s3.store(ctx, getenv)
	if err != nil {
		return err
	}
	src, err := resolveSource(ctx, st, f.from, f.options())
	if err != nil {
		return fmt.Errorf("import %s: %w", tbl, err)
	}
	n, stats, err := importFromS3(ctx, c, st, tbl, src, transfer.ImportOptions{Workers: workers, Progress: prog}, stderr)
	prog.Finish(n)
	if err != nil {
		return fmt.Errorf("import %s: %w", tbl, err)
	}
	fmt.Fprintf(stdout, "imported %d items from %d objects; %d records could not be imported\n", n, stats.Objects, stats.Errors)
	if stats.Errors > 0 {
		return fmt.Errorf("import %s: %d of %d records could not be imported", tbl, stats.Errors, stats.Processed)
	}
	return nil
}
