package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	tests := []struct {
		vals        []float64
		med, lo, hi float64
		cell        string
	}{
		{[]float64{3}, 3, 3, 3, "3.00"},
		{[]float64{5, 1, 3}, 3, 1, 5, "3.00 [1.00–5.00]"},
		{[]float64{4, 1, 2, 10}, 3, 1, 10, "3.00 [1.00–10.0]"},
		{[]float64{1234.4, 98.76, 150}, 150, 98.76, 1234.4, "150 [98.8–1234]"},
	}
	for _, tt := range tests {
		med, lo, hi := spread(tt.vals)
		if med != tt.med || lo != tt.lo || hi != tt.hi {
			t.Errorf("spread(%v) = %v, %v, %v, want %v, %v, %v", tt.vals, med, lo, hi, tt.med, tt.lo, tt.hi)
		}
		if got := spreadCell(tt.vals); got != tt.cell {
			t.Errorf("spreadCell(%v) = %q, want %q", tt.vals, got, tt.cell)
		}
	}
	if got := spreadCell(nil); got != "-" {
		t.Errorf("spreadCell(nil) = %q, want -", got)
	}
}

func TestRotation(t *testing.T) {
	tests := []struct {
		n, r int
		want []int
	}{
		{2, 0, []int{0, 1}},
		{2, 1, []int{1, 0}},
		{3, 1, []int{1, 2, 0}},
		{3, 5, []int{2, 0, 1}},
	}
	for _, tt := range tests {
		if got := rotation(tt.n, tt.r); !slices.Equal(got, tt.want) {
			t.Errorf("rotation(%d, %d) = %v, want %v", tt.n, tt.r, got, tt.want)
		}
	}
}

func TestParseServerSpec(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		path    string
		args    []string
		wantErr bool
	}{
		{in: "old=/tmp/ddb -in-memory", name: "old", path: "/tmp/ddb", args: []string{"-in-memory", "-port", "{port}"}},
		{in: "new=./ddb --port={port} -db-path {dir}", name: "new", path: "./ddb", args: []string{"--port={port}", "-db-path", "{dir}"}},
		{in: "noname", wantErr: true},
		{in: "=./ddb", wantErr: true},
		{in: "x=", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseServerSpec(tt.in)
		if (err != nil) != tt.wantErr {
			t.Fatalf("parseServerSpec(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
		}
		if tt.wantErr {
			continue
		}
		if got.name != tt.name || got.path != tt.path || !slices.Equal(got.args, tt.args) {
			t.Errorf("parseServerSpec(%q) = %+v, want name %q path %q args %q", tt.in, got, tt.name, tt.path, tt.args)
		}
	}
}

func TestParseConfigComparison(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{name: "two servers", args: []string{"-server", "a=x", "-server", "b=y", "get"}},
		{name: "ceiling only", args: []string{"-server", "a=x", "-server", "b=y", "-ceiling"}},
		{name: "one server", args: []string{"-server", "a=x", "get"}, wantErr: true},
		{name: "no rounds", args: []string{"-server", "a=x", "-server", "b=y", "-rounds", "0", "get"}, wantErr: true},
		{name: "ceiling workload", args: []string{"-server", "a=x", "-server", "b=y", "ceiling"}, wantErr: true},
		{name: "bad spec", args: []string{"-server", "a", "-server", "b=y", "get"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

// TestCompareEndToEnd compares two "servers" that are both this test binary
// serving the ceiling handler (it answers GetItem with {}), plus the ceiling
// itself: every round line and every row the get workload gives must appear.
func TestCompareEndToEnd(t *testing.T) {
	t.Setenv(serveCeilingEnv, "1") // the servers started are ceiling children
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"-rounds", "2", "-c", "2", "-d", "100ms", "-idle", "1ms", "-ceiling",
		"-server", "one=" + self + " 127.0.0.1:{port}", "-server", "two=" + self + " 127.0.0.1:{port}", "get"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, args, &out, &errOut); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
	}
	text := out.String()
	for _, name := range []string{"one", "two", "ceiling"} {
		re := regexp.MustCompile(`(?m)^round \d ` + name + ` +start [\d.]+ms idle [\d.]+MiB \| `)
		if got := len(re.FindAllString(text, -1)); got != 2 {
			t.Errorf("%d round lines for %s, want 2:\n%s", got, name, text)
		}
	}
	for _, want := range []string{
		"metric", "two/one",
		"\nstart ms ", "\nidle RSS MiB ", "\nget CPU µs/op ", "\nget ops/s ", "\nceiling CPU µs/op ", "\nget CPU ÷ ceiling's ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
