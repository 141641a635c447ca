//go:build !linux

package exemap

// dropReadOnly does nothing off Linux.
func dropReadOnly() {}
