package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for the bench program when
// startCeiling runs it as the ceiling server, or cluster mode as its etcd
// member.
func TestMain(m *testing.M) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	var err error
	switch {
	case os.Getenv(serveCeilingEnv) == "1":
		err = serveCeiling(ctx, os.Stdout, ceilingAddr(os.Args))
	case os.Getenv(serveEtcdEnv) == "1":
		err = serveEtcd(ctx, os.Stdout, os.Args[1])
	default:
		stop()
		os.Exit(m.Run())
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// TestCeilingEndToEnd runs the ceiling workload for 200 ms against the
// in-process handler, through the real SDK client and HTTP.
func TestCeilingEndToEnd(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-c", "4", "-d", "200ms", "ceiling"}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
	}
	text := out.String()
	m := regexp.MustCompile(`(?m)^ops (\d+)  ops/s [\d.]+  errors (\d+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no ops line in output:\n%s", text)
	}
	ops, _ := strconv.Atoi(m[1])
	if ops == 0 {
		t.Errorf("ops = 0, want > 0\n%s", text)
	}
	if got, want := m[2], "0"; got != want {
		t.Errorf("errors = %s, want %s\n%s", got, want, text)
	}
	for _, want := range []string{"== ceiling", "latency p50 ", "p99 ", "client CPU", "server CPU µs/op"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr bool
	}{
		{name: "one", args: []string{"get"}, want: []string{"get"}},
		{name: "several", args: []string{"-c", "2", "setup", "get", "put"}, want: []string{"setup", "get", "put"}},
		{name: "ceiling flag appends", args: []string{"-ceiling", "get"}, want: []string{"get", "ceiling"}},
		{name: "ceiling flag alone", args: []string{"-ceiling"}, want: []string{"ceiling"}},
		{name: "none", args: nil, wantErr: true},
		{name: "unknown", args: []string{"delete"}, wantErr: true},
		{name: "zero concurrency", args: []string{"-c", "0", "get"}, wantErr: true},
		{name: "bad flag", args: []string{"-nope", "get"}, wantErr: true},
		{name: "cluster", args: []string{"-cluster", "2", "-ddblocal", "./ddblocal", "setup", "get", "etcd"}, want: []string{"setup", "get", "etcd"}},
		{name: "cluster without binary", args: []string{"-cluster", "2", "get"}, wantErr: true},
		{name: "etcd without cluster", args: []string{"etcd"}, wantErr: true},
		{name: "negative cluster", args: []string{"-cluster", "-1", "get"}, wantErr: true},
		{name: "cluster in a comparison", args: []string{"-cluster", "1", "-ddblocal", "x", "-server", "a=x", "-server", "b=y", "get"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got := strings.Join(cfg.workloads, ","); got != strings.Join(tt.want, ",") {
				t.Errorf("workloads = %s, want %s", got, strings.Join(tt.want, ","))
			}
		})
	}
}

func TestKeyspace(t *testing.T) {
	k := keyspace{items: 250, partitionSize: 100, valueSize: 200}
	tests := []struct {
		i      int
		pk, sk string
	}{
		{0, "p000000", "s000000"},
		{99, "p000000", "s000099"},
		{100, "p000001", "s000000"},
		{249, "p000002", "s000049"},
	}
	for _, tt := range tests {
		pk, sk := k.keyOf(tt.i)
		if pk != tt.pk || sk != tt.sk {
			t.Errorf("keyOf(%d) = %s,%s, want %s,%s", tt.i, pk, sk, tt.pk, tt.sk)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		if pk := k.randomPartition(r); pk > "p000002" {
			t.Fatalf("randomPartition = %s, want <= p000002", pk)
		}
		if _, sk := k.newKey(r); !strings.HasPrefix(sk, "t") || len(sk) != 17 {
			t.Fatalf("newKey sort key = %q, want t + 16 hex digits", sk)
		}
	}
	if got, want := len(randomValue(r, 200)), 200; got != want {
		t.Errorf("len(randomValue) = %d, want %d", got, want)
	}
}
