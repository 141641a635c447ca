package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildsForLaptops builds the server for macOS and Windows, where
// developers run `go run .` too: the durable store syncs files through
// system calls that differ per system (store/sync_*.go), and a Linux-only
// call once broke the macOS build unnoticed. It builds them as the shipped
// binaries are built (Dockerfile, npm/scripts/build.mjs), so the packages
// it compiles are the ones .ci/run's npm packaging check then reuses from
// the build cache for darwin-arm64 and win32-x64.
func TestBuildsForLaptops(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the server; skipped in -short mode")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range [][2]string{{"darwin", "arm64"}, {"windows", "amd64"}} {
		t.Run(target[0]+"/"+target[1], func(t *testing.T) {
			cmd := exec.Command("go", "build", "-tags", "grpcnotrace", "-trimpath", "-ldflags", "-s -w", "-o", os.DevNull, ".")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+target[0], "GOARCH="+target[1])
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go build for %s/%s: %v\n%s", target[0], target[1], err, out)
			}
		})
	}
}
