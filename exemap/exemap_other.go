//go:build !linux

package exemap

import "time"

// dropReadOnly does nothing off Linux.
func dropReadOnly() {}

// usage reports nothing off Linux, where Trim does nothing.
func usage() (int64, time.Duration, bool) { return 0, 0, false }
