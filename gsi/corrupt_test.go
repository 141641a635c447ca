package gsi

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/store"
)

// logSignal is a slog handler that sends each record's message and "err"
// attribute on a channel, so a test can wait for a log line without sleeping.
type logSignal chan string

func (l logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (l logSignal) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logSignal) WithGroup(string) slog.Handler            { return l }
func (l logSignal) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			msg += ": " + a.Value.String()
		}
		return true
	})
	select {
	case l <- msg:
	default:
	}
	return nil
}

// TestCorruptRecord: a log record that does not decode stops the indexes
// just before it (nothing is skipped silently) and is logged.
func TestCorruptRecord(t *testing.T) {
	g := byG()
	h := newHarness(t, g)
	h.built()
	good := h.write("a", item("g", "x", "s", 1))
	h.update(func(tx *store.Tx) error {
		_, err := tx.Space(tableID).AppendLog([]byte{99})
		return err
	})
	logs := make(logSignal, 1)
	opts := h.options()
	opts.Logger = slog.New(logs)
	opts.Now = nil // the real clock: the default
	a := h.start(opts)
	msg := <-logs
	if want := "log record 2"; !strings.Contains(msg, want) {
		t.Errorf("log: got %q, want it to mention %q", msg, want)
	}
	if wm, _, err := a.Watermark(g.Name); err != nil || wm != good {
		t.Errorf("Watermark stuck before a corrupt record: got %d, %v, want %d", wm, err, good)
	}
	h.checkIndex(g)
	if got := h.logSeqs(); len(got) != 1 || got[0] != good+1 {
		t.Errorf("log left: got %v, want [%d]", got, good+1)
	}
}
