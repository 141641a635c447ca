package store

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// The file-system seam under a durable store's write-ahead log, its spare
// segments, its checkpoints and the bbolt file (as pebble's vfs): the store
// reaches files only through a vfs, so that tests can make writes, syncs,
// renames and creations fail, or the disk fill up (vfs_fault_test.go).
//
// bbolt is the one file the seam opens but cannot wrap: bbolt's
// Options.OpenFile must return an *os.File, because bbolt mmaps the file
// and writes, truncates and fdatasyncs it through its descriptor (its
// writeAt hook is unexported). So OpenOS hands bbolt a real file, and a
// test's file system injects bbolt's faults at that descriptor instead
// (vfs_bolt_fault_linux_test.go swaps it for /dev/full or /dev/null, so
// that bbolt's own writes and syncs fail inside its commit).

// vfs is the file system a durable store uses.
type vfs interface {
	OpenFile(name string, flag int, perm os.FileMode) (vfile, error)
	Remove(name string) error
	Rename(from, to string) error
	ReadDir(dir string) ([]os.DirEntry, error)
	Stat(name string) (os.FileInfo, error)
	// SyncDir makes dir's entries (a new or renamed file's name) durable.
	SyncDir(dir string) error
	// OpenOS opens a file for a library that needs an *os.File (bbolt).
	OpenOS(name string, flag int, perm os.FileMode) (*os.File, error)
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

func (osFS) OpenOS(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
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
