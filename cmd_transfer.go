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
	"unicode/utf8"

	"github.com/aws/smithy-go/logging"
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
	prog := newProgress(stderr, "exported")
	ep.logger = prog
	c, err := ep.client(ctx, getenv)
	if err != nil {
		return err
	}
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
	prog := newProgress(stderr, "imported")
	ep.logger = prog
	c, err := ep.client(ctx, getenv)
	if err != nil {
		return err
	}
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
// a log line every few seconds otherwise (CI logs, pipes). It is also the
// SDK's logger, so that an SDK warning never lands inside the bar's line.
type progress interface {
	transfer.Progress
	logging.Logger
	Finish(n int64)
}

func newProgress(w io.Writer, verb string) progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return newBarProgress(w, verb)
	}
	return &logProgress{w: w, verb: verb, start: time.Now(), every: 2 * time.Second}
}

func newBarProgress(w io.Writer, verb string) *barProgress {
	out := &barWriter{w: w}
	return &barProgress{out: out, verb: verb, start: time.Now(), bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(out), progressbar.OptionSetDescription(verb),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("items"),
		progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())}
}

// barProgress drives a progressbar.ProgressBar, and leaves one summary
// line when done.
type barProgress struct {
	bar   *progressbar.ProgressBar
	out   *barWriter
	verb  string
	start time.Time
}

func (p *barProgress) SetTotal(n int64) { p.bar.ChangeMax64(n) }
func (p *barProgress) Add(n int)        { _ = p.bar.Add(n) }

// Logf writes an SDK log line on a line of its own, below which the bar
// is drawn again.
func (p *barProgress) Logf(c logging.Classification, format string, v ...any) {
	p.out.line(sdkLogLine(c, format, v...))
}

func (p *barProgress) Finish(n int64) {
	_ = p.bar.Finish()
	p.out.line(fmt.Sprintf("ddblocal: %s %d items in %s\n", p.verb, n, time.Since(p.start).Round(time.Millisecond)))
}

// barWriter is the bar's writer. The bar redraws itself from a goroutine
// of its own, so barWriter serializes its writes with the log lines, and
// counts the characters drawn since the last carriage return or newline,
// so that a log line can blank the bar's line first.
type barWriter struct {
	mu          sync.Mutex
	w           io.Writer
	col, widest int
}

func (b *barWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range p {
		switch {
		case c == '\r' || c == '\n':
			b.col = 0
		case !utf8.RuneStart(c):
		default:
			b.col++
			b.widest = max(b.widest, b.col)
		}
	}
	return b.w.Write(p)
}

// line writes s, which ends with a newline, at the start of a line: when
// the bar is drawn on the current one, it is blanked first.
func (b *barWriter) line(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.col > 0 {
		s = "\r" + strings.Repeat(" ", b.widest) + "\r" + s
	}
	b.col = 0
	_, _ = io.WriteString(b.w, s)
}

// sdkLogLine formats one SDK log line: "ddblocal: SDK WARN message\n".
func sdkLogLine(c logging.Classification, format string, v ...any) string {
	return fmt.Sprintf("ddblocal: SDK %s %s\n", c, strings.TrimRight(fmt.Sprintf(format, v...), "\n"))
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

func (p *logProgress) Logf(c logging.Classification, format string, v ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, sdkLogLine(c, format, v...))
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
