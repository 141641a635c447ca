package table

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/s3export"
)

// An incremental export writes, for every item changed in [from, to), its
// net change: the item before the window (OldImage, with
// NEW_AND_OLD_IMAGES) and after it (NewImage; absent when deleted), read
// from the change log that point-in-time recovery keeps. An item created
// and deleted inside the window is left out, as the service compacts it.

// Window bounds of an incremental export, from the developer guide.
const (
	minIncrementalWindow = 15 * time.Minute
	maxIncrementalWindow = 24 * time.Hour
)

// incremental is a validated incremental export's window and view.
type incremental struct {
	from, to time.Time
	view     string
}

// incrementalWindow validates an INCREMENTAL_EXPORT request against p's
// recovery window at now.
func incrementalWindow(in *ddb.ExportTableToPointInTimeInput, p *pitrMeta, now time.Time) (*incremental, error) {
	spec := in.IncrementalExportSpecification
	if spec == nil || spec.ExportFromTime == nil {
		return nil, ddb.Errorf(ddb.ValidationException, "IncrementalExportSpecification with ExportFromTime is required for an INCREMENTAL_EXPORT")
	}
	if in.ExportTime != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "ExportTime cannot be used with an INCREMENTAL_EXPORT")
	}
	inc := &incremental{from: epochTime(*spec.ExportFromTime), to: now, view: spec.ExportViewType}
	if spec.ExportToTime != nil {
		inc.to = epochTime(*spec.ExportToTime)
	}
	if inc.view == "" {
		inc.view = s3export.ViewNewAndOld
	}
	earliest, latest := p.window(now)
	switch w := inc.to.Sub(inc.from); {
	case inc.from.Before(earliest) || inc.to.After(latest):
		return nil, ddb.Errorf(ddb.InvalidExportTimeException, "ExportFromTime '%s' and ExportToTime '%s' must be within EarliestRestorableDateTime '%s' and LatestRestorableDateTime '%s'",
			isoSeconds(inc.from), isoSeconds(inc.to), isoSeconds(earliest), isoSeconds(latest))
	case w < minIncrementalWindow || w > maxIncrementalWindow:
		return nil, ddb.Errorf(ddb.ValidationException, "The incremental export window from ExportFromTime to ExportToTime must be at least 15 minutes and at most 24 hours")
	}
	return inc, nil
}

func epochTime(secs float64) time.Time { return time.UnixMilli(int64(math.Round(secs * 1000))) }

// netChange is one item's change across the window.
type netChange struct {
	old, new []byte // before and after the window; nil when absent
	at       int64  // the last change's commit time
}

// writeIncremental writes the window's net changes of table space sp.
func writeIncremental(tx *store.Tx, m *tableMeta, inc *incremental, w *s3export.Writer) error {
	sp := tx.Space(m.ID)
	if sp == nil {
		return fmt.Errorf("table: space of %s missing", m.Name)
	}
	changes := map[string]*netChange{}
	var order [][]byte
	from, to := inc.from.UnixNano(), inc.to.UnixNano()
	var err error
	sp.AscendLog(0, func(seq uint64, raw []byte) bool {
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("table: log record %d: %w", seq, err)
			return false
		}
		if rec.Time < from || rec.Time >= to {
			return rec.Time < to
		}
		c, seen := changes[string(rec.Key)]
		if !seen {
			c = &netChange{old: bytes.Clone(rec.Old)}
			changes[string(rec.Key)] = c
			order = append(order, bytes.Clone(rec.Key))
		}
		c.new, c.at = bytes.Clone(rec.New), rec.Time
		return true
	})
	if err != nil {
		return err
	}
	for _, k := range order {
		if err := writeChange(m, inc, changes[string(k)], w); err != nil {
			return err
		}
	}
	return nil
}

// writeChange writes one item's net change, unless it is none.
func writeChange(m *tableMeta, inc *incremental, c *netChange, w *s3export.Writer) error {
	if c.old == nil && c.new == nil {
		return nil
	}
	var ch s3export.Change
	ch.WriteTime = time.Unix(0, c.at)
	var err error
	if c.new != nil {
		if ch.NewImage, err = attr.DecodeBinary(c.new); err != nil {
			return err
		}
	}
	if c.old != nil && (inc.view == s3export.ViewNewAndOld || c.new == nil) {
		old, err := attr.DecodeBinary(c.old)
		if err != nil {
			return err
		}
		if ch.Keys = m.keyOf(old); inc.view == s3export.ViewNewAndOld {
			ch.OldImage = old
		}
	}
	if ch.NewImage != nil {
		ch.Keys = m.keyOf(ch.NewImage)
	}
	return w.AddChange(ch)
}
