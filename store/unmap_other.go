//go:build !linux

package store

import bolt "go.etcd.io/bbolt"

// dropMapped gives back bbolt's mapped pages on Linux (unmap_linux.go);
// elsewhere it does nothing.
func dropMapped(*bolt.DB) {}
