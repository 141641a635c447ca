// Command ddblocal is a DynamoDB-compatible server for local development and CI:
// point any AWS SDK at http://localhost:8000.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/fixtures"
	"github.com/ddblocal/ddblocal/server"
	"github.com/ddblocal/ddblocal/table"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := dispatch(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ddblocal:", err)
		os.Exit(1)
	}
}

// run serves until ctx is cancelled, then finishes in-flight requests and
// closes the store.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	start := time.Now()
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	log, err := c.logger(stderr)
	if err != nil {
		return err
	}
	opts := c.serverOptions(log)
	go capGCHeadroom(ctx)
	if opts.Etcd, err = c.cluster.options(); err != nil {
		return err
	}
	if c.credentials != "" {
		creds, err := auth.ParseCredentials(c.credentials, os.ReadFile)
		if err != nil {
			return err
		}
		// Wall time, not the server's clock: SDKs sign with the real time
		// even when a test has moved the server's clock.
		opts.Verifier = auth.NewVerifier(creds, nil)
		log.Info("verifying SigV4 signatures", "credentials", len(creds))
	}
	if opts.TLS, err = tlsConfig(c.tls, c.host, filepath.Dir(opts.Path), log); err != nil {
		return err
	}
	srv, err := server.Start(ctx, opts)
	if err != nil {
		return err
	}
	addr := srv.ListenAddr().(*net.TCPAddr)
	if opts.Verifier == nil && !addr.IP.IsLoopback() {
		log.Warn("listening beyond this machine without --credentials: anyone who can reach the port can read and change every table",
			"addr", addr.String())
	}
	mode := "persistent " + opts.Path
	switch {
	case opts.Etcd != nil:
		mode = "etcd " + c.cluster.store
	case c.inMemory:
		mode = "in-memory"
	}
	log.Info("ddblocal listening", "addr", addr.String(), "store", mode, "tls", opts.TLS != nil, "startup", time.Since(start).Round(time.Microsecond))
	// The pages start-up alone used are given back once the server is
	// idle (within two periods of trimWhenIdle), not here: the first
	// request, often right behind the start, would fault them back in.
	go trimWhenIdle(ctx)

	select {
	case err := <-srv.Done():
		srv.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	return srv.Close()
}

// serverOptions turns the configuration into what server.Start takes.
func (c config) serverOptions(log *slog.Logger) server.Options {
	path := c.dbPath
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "ddblocal.db")
	}
	o := server.Options{
		Path: path, InMemory: c.inMemory, Sync: c.sync, Host: c.host, Port: c.port, Logger: log,
		Table: table.Options{TransientDelay: c.transientDelay, EventualLag: c.eventualLag, Seed: c.seed,
			StreamShards: c.streamShards, TTLDelay: c.ttlDelay, Throttling: c.throttling, CapacityScale: c.capacityScale,
			ReplicationLag: c.replLag, LegacyGlobalTables: c.legacyGlobal, S3: c.s3Store, Kinesis: c.kinesis},
	}
	if c.cors != "" && c.cors != "off" {
		o.CORSOrigins = strings.Split(c.cors, ",")
	}
	if c.pprof {
		o.Wrap = withPprof
	}
	if len(c.initPaths) > 0 {
		o.Init = func(ctx context.Context, h http.Handler) error {
			return fixtures.LoadPaths(ctx, fixtures.HandlerClient(h, c.initRegion), c.initPaths)
		}
	}
	return o
}
