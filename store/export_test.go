package store

import (
	"strings"
	"syscall"
	"testing"
)

// OpenFailingSync opens a durable store at path (for tests outside this
// package) whose write-ahead log's fsyncs fail with EIO once failSync has
// been called, as a failing disk's do; logged collects its log.
func OpenFailingSync(t *testing.T, path string, logged *strings.Builder) (db *DB, failSync func()) {
	fs := &faultFS{}
	db = openFaulty(t, fs, path, segmentLimit, logged)
	return db, func() {
		fs.set(func(op, name string) error {
			if op == "datasync" && isSegment(name) {
				return syscall.EIO
			}
			return nil
		})
	}
}
