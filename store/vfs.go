package store

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// The file-system seam under a durable store's write-ahead log, its spare
// segments and its checkpoints (as pebble's vfs): the store reaches files
// only through a vfs, so that tests can make writes, syncs, renames and
// creations fail, or the disk fill up (vfs_fault_test.go). bbolt's own file
// is not under it (bbolt opens an *os.File itself); its transactions are
// atomic, and the checkpoint steps around them are what tests interrupt.

// vfs is the file system a durable store uses.
type vfs interface {
	OpenFile(name string, flag int, perm os.FileMode) (vfile, error)
	Remove(name string) error
	Rename(from, to string) error
	ReadDir(dir string) ([]os.DirEntry, error)
	Stat(name string) (os.FileInfo, error)
	// SyncDir makes dir's entries (a new or renamed file's name) durable.
	SyncDir(dir string) error
}

// vfile is an open file of a vfs.
type vfile interface {
	io.Reader
	io.Writer
	io.WriterAt
	Truncate(size int64) error
	Sync() error
	// Datasync flushes the data and the metadata needed to read it back
	// (fdatasync where the system has it).
	Datasync() error
	Close() error
}

// osFS is the operating system's file system.
type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm os.FileMode) (vfile, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Remove(name string) error                  { return os.Remove(name) }
func (osFS) Rename(from, to string) error              { return os.Rename(from, to) }
func (osFS) ReadDir(dir string) ([]os.DirEntry, error) { return os.ReadDir(dir) }
func (osFS) Stat(name string) (os.FileInfo, error)     { return os.Stat(name) }

// SyncDir: Windows cannot open a directory for syncing; NTFS journals
// names itself.
func (osFS) SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(filepath.Clean(dir))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

type osFile struct{ *os.File }

func (f osFile) Datasync() error { return fdatasync(f.File) }
