package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ddblocal/ddblocal/transfer"
	"github.com/ddblocal/ddblocal/transfer/s3export"
)

// runExport writes a table as DynamoDB-JSON lines.
func runExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, ep := endpointCommand("ddblocal export", "", getenv, stderr)
	var s3 s3Flags
	s3.register(fs, getenv)
	tbl := fs.String("table", "", "table to export (required)")
	out := fs.String("out", "-", "file to write JSON lines to; - is standard output")
	to := fs.String("to", "", "s3://BUCKET/PREFIX: write ExportTableToPointInTime's layout there instead of JSON lines (see --s3-dir, --s3-endpoint)")
	format := fs.String("format", s3export.FormatJSON, "with --to: DYNAMODB_JSON or ION")
	segs := fs.Int("segments", 4, "parallel scan segments")
	if err := parseSubcommand(fs, args); err != nil {
		return err
	}
	if *tbl == "" {
		return fmt.Errorf("export: --table is required")
	}
	c, err := ep.client(ctx, getenv)
	if err != nil {
		return err
	}
	prog := newProgress(stderr, "exported")
	o := transfer.ExportOptions{Segments: *segs, Progress: prog}
	if *to != "" {
		st, err := s3.store(ctx, getenv)
		if err != nil {
			return err
		}
		res, err := exportToS3(ctx, c, st, *tbl, *to, *format, o)
		prog.Finish(res.ItemCount)
		if err != nil {
			return fmt.Errorf("export %s: %w", *tbl, err)
		}
		bkt, _, _ := parseS3URL(*to)
		fmt.Fprintf(stdout, "s3://%s/%s\n", bkt, res.ManifestKey)
		return nil
	}
	return exportLines(ctx, c, *tbl, *out, stdout, prog, o)
}

func runImport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, ep := endpointCommand("ddblocal import", "Usage: ddblocal import [flags] FILE   (FILE - is standard input)\n       ddblocal import --table T --from s3://BUCKET/PREFIX [flags]", getenv, stderr)
	tbl := fs.String("table", "", "table to load (default: FILE's name without .jsonl)")
	workers := fs.Int("workers", 4, "BatchWriteItem calls in flight")
	var s3 importFlags
	s3.register(fs, getenv)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if s3.from != "" {
		return importS3(ctx, ep, &s3, *tbl, *workers, getenv, stdout, stderr, fs.NArg())
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("import: want one FILE argument, got %d", fs.NArg())
	}
	file := fs.Arg(0)
	if *tbl == "" {
		if file == "-" {
			return fmt.Errorf("import: --table is required when reading standard input")
		}
		*tbl = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	c, err := ep.client(ctx, getenv)
	if err != nil {
		return err
	}
	prog := newProgress(stderr, "imported")
	if f, ok := r.(*os.File); ok && f != os.Stdin {
		prog.SetTotal(countLines(f))
	}
	n, err := transfer.Import(ctx, c, *tbl, r, file, transfer.ImportOptions{Workers: *workers, Progress: prog})
	prog.Finish(n)
	if err != nil {
		return fmt.Errorf("import %s: %w", *tbl, err)
	}
	return nil
}

// progress reports a transfer: a bar with items/s and an ETA on a terminal,
// a log line every few seconds otherwise (CI logs, pipes).
type progress interface {
	transfer.Progress
	Finish(n int64)
}

func newProgress(w io.Writer, verb string) progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w, verb: verb, start: time.Now(), bar: progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(verb),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("items"),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())}
	}
	return &logProgress{w: w, verb: verb, start: time.Now(), every: 2 * time.Second}
}

// barProgress drives a progressbar.ProgressBar, and leaves one summary
// line when done.
type barProgress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	verb  string
	start time.Time
}

func (p *barProgress) SetTotal(n int64) { p.bar.ChangeMax64(n) }
func (p *barProgress) Add(n int)        { _ = p.bar.Add(n) }
func (p *barProgress) Finish(n int64) {
	_ = p.bar.Finish()
	fmt.Fprintf(p.w, "ddblocal: %s %d items in %s\n", p.verb, n, time.Since(p.start).Round(time.Millisecond))
}

// logProgress writes "exported 1200/10000 items (850 items/s)" lines.
type logProgress struct {
	w           io.Writer
	verb        string
	start, last time.Time
	every       time.Duration
	mu          sync.Mutex
	done, total int64
}

func (p *logProgress) SetTotal(n int64) {
	p.mu.Lock()
	p.total = n
	p.mu.Unlock()
}

func (p *logProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += int64(n)
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last = now
		p.line()
	}
}

func (p *logProgress) Finish(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = n
	p.line()
}

func (p *logProgress) line() {
	of := ""
	if p.total > 0 {
		of = fmt.Sprintf("/%d", p.total)
	}
	rate := float64(p.done) / max(time.Since(p.start).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "ddblocal: %s %d%s items (%.0f items/s)\n", p.verb, p.done, of, rate)
}

// countLines counts f's non-blank lines, for the progress total, and
// rewinds it; -1 when it cannot.
func countLines(f *os.File) int64 {
	defer f.Seek(0, io.SeekStart)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var n int64
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	if sc.Err() != nil {
		return -1
	}
	return n
}
