//go:build !linux

package store

import "os"

// fdatasync is a full sync where the system has no fdatasync (on macOS,
// os.File.Sync asks the drive itself to flush).
func fdatasync(f *os.File) error { return f.Sync() }
