package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

func TestPerEndpoint(t *testing.T) {
	tests := []struct {
		byWorker []int64
		n        int
		want     []int64
	}{
		{[]int64{5}, 1, []int64{5}},
		{[]int64{1, 2, 3, 4, 5}, 2, []int64{9, 6}},
		{[]int64{1, 2}, 3, []int64{1, 2, 0}},
	}
	for _, tt := range tests {
		got := perEndpoint(tt.byWorker, tt.n)
		if len(got) != len(tt.want) {
			t.Fatalf("perEndpoint(%v, %d) = %v, want %v", tt.byWorker, tt.n, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("perEndpoint(%v, %d) = %v, want %v", tt.byWorker, tt.n, got, tt.want)
				break
			}
		}
	}
}

// TestClusterEndToEnd builds ddblocal and runs cluster mode with two
// front-ends over its own etcd member: every workload answers without
// errors through both front-ends, and the etcd workload measures the
// member.
func TestClusterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ddblocal binary; skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "ddblocal")
	build := exec.Command("go", "build", "-o", bin, "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-cluster", "2", "-ddblocal", bin, "-c", "4", "-d", "300ms", "-items", "200", "setup", "get", "put", "etcd"}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	text := out.String()
	for _, name := range []string{"setup", "get", "put", "etcd"} {
		m := regexp.MustCompile(`(?m)^== ` + name + ` .*\nops (\d+)  ops/s [\d.]+  errors (\d+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no ops line for %s in output:\n%s", name, text)
		}
		if ops, _ := strconv.Atoi(m[1]); ops == 0 || m[2] != "0" {
			t.Errorf("%s: ops %s errors %s, want some ops and no errors\n%s", name, m[1], m[2], text)
		}
	}
	for _, name := range []string{"get", "put"} {
		m := regexp.MustCompile(`(?m)^== ` + name + ` .*\n.*\nops/s per endpoint ([\d.]+) ([\d.]+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no per-endpoint line for %s in output:\n%s", name, text)
		}
		for _, v := range m[1:] {
			if f, _ := strconv.ParseFloat(v, 64); f == 0 {
				t.Errorf("%s: a front-end served nothing: %s\n%s", name, m[0], text)
			}
		}
	}
	if !regexp.MustCompile(`(?m)^etcd CPU µs/op `).MatchString(text) {
		t.Errorf("output lacks the etcd member's CPU:\n%s", text)
	}
}
