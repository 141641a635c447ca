package store

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// dropMapped gives back the pages of the bbolt file that this process has
// read through bbolt's map (madvise MADV_DONTNEED; the file's pages stay
// in the page cache, and a later read maps them again). Nothing but the
// checkpointer and the start-up load reads bbolt (the memory engine serves
// every read), yet each page a checkpoint transaction reads to change it
// stays in the process's RSS: a bulk load of keys spread over a
// 1,000,000-item table left nearly the whole file mapped (file-backed RSS
// +266 MiB, BenchmarkBulkLoad). It runs
// in a read transaction, during which bbolt cannot remap the file, and on
// the file's pages only (tx.Size: every page the transaction can read).
func dropMapped(db *bolt.DB) {
	_ = db.View(func(tx *bolt.Tx) error {
		if n := uintptr(tx.Size()); n > 0 {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, db.Info().Data, n, syscall.MADV_DONTNEED)
		}
		return nil
	})
}
