// Package server wires a store, the table service and the HTTP API into one
// running ddblocal listening on a TCP port. It is what the ddblocal command
// and package ddbtest share: the command adds flags, signals and logging
// around it, ddbtest adds a test's lifetime and an SDK client.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/faults"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
	"github.com/ddblocal/ddblocal/table"
)

// Options configures Start. Set InMemory or Path.
type Options struct {
	// Path is the bbolt database file (ignored when InMemory).
	Path string
	// InMemory keeps nothing after Close.
	InMemory bool
	// Sync is when a write to the file at Path is acknowledged: once
	// written to the log (store.SyncBackground, the default) or once
	// fdatasynced (store.SyncAlways).
	Sync store.SyncMode
	// Etcd, when set, keeps the store in etcd, shared with other servers
	// (cluster mode); Path and InMemory are then ignored.
	Etcd *store.EtcdOptions
	// Host is the address to listen on; "" means all interfaces.
	Host string
	// Port is the TCP port; 0 picks a free one.
	Port int
	// Logger receives the store's, the service's and the API's logs; nil
	// discards them.
	Logger *slog.Logger
	// CORSOrigins are the origins allowed from a browser ("*" for any).
	CORSOrigins []string
	// Table configures the service (transient delay, lag, seed). Its Logger
	// defaults to Logger; its Now is always Clock's.
	Table table.Options
	// Clock is the server's one clock, served at /_ddblocal/clock; nil
	// means a new wall clock (clock.New).
	Clock *clock.Clock
	// Verifier, when set, makes every DynamoDB call carry a valid SigV4
	// signature (--credentials). Init's in-process requests skip it.
	Verifier *auth.Verifier
	// TLS, when set, serves HTTPS (HTTP/2 and HTTP/1.1) with it.
	TLS *tls.Config
	// Wrap, when set, wraps the API handler (the command's --pprof uses it).
	Wrap func(http.Handler) http.Handler
	// Init, when set, runs after the service is built and before the first
	// request is accepted, with a handler that serves the API in-process;
	// an error stops Start (the command's --init loads fixtures here).
	Init func(ctx context.Context, h http.Handler) error
}

// Server is a running ddblocal. Close stops it.
type Server struct {
	db  *store.DB
	svc *table.Service
	// triggers deliver streams to local URLs (/_ddblocal/triggers).
	triggers *streams.Triggers
	clock    *clock.Clock
	faults   *faults.Injector
	tls      bool // serving HTTPS
	srv      *http.Server
	ln       net.Listener
	addr     string
	served   chan error
}

// Start opens the store, listens, runs opts.Init and serves in a background
// goroutine that exits when Close (or Shutdown) is called. It returns an
// error, with nothing left open, when the store cannot be opened, the address
// cannot be listened on, or Init fails.
func Start(ctx context.Context, opts Options) (s *Server, err error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	db, err := store.Open(store.Options{Path: opts.Path, InMemory: opts.InMemory, Sync: opts.Sync, Etcd: opts.Etcd, Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)))
	if err != nil {
		db.Close()
		return nil, err
	}
	host := opts.Host
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	s = &Server{db: db, ln: ln, served: make(chan error, 1)}
	s.addr = net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	s.clock = opts.Clock
	if s.clock == nil {
		s.clock = clock.New()
	}
	if err := restoreClock(ctx, db, s.clock); err != nil {
		ln.Close()
		db.Close()
		return nil, err
	}
	tOpts := opts.Table
	if tOpts.Logger == nil {
		tOpts.Logger = log
	}
	tOpts.Now = s.clock.Now
	if opts.Verifier != nil && tOpts.Policies == nil {
		tOpts.Policies = auth.TablePolicy
	}
	s.svc = table.New(db, tOpts)
	s.svc.RunOnMove(s.clock)
	s.triggers = streams.NewTriggers(s.svc, log)
	cfg := api.Config{Addr: s.addr, Logger: log, CORSOrigins: opts.CORSOrigins}
	inj := faults.New()
	s.faults = inj
	handler := func(cfg api.Config) http.Handler {
		cfg.Admin = admin.Handler(admin.Config{Ready: db.Ready, Settle: s.svc.Settle, Insights: s.svc, Replication: s.svc,
			Verifier: cfg.Verifier, Faults: inj, Clock: s.clock, Triggers: s.triggers, Logger: log})
		h := api.NewHandler(cfg, api.WithFaults(api.Operations(s.svc), inj))
		if opts.Wrap != nil {
			h = opts.Wrap(h)
		}
		return h
	}
	if opts.Init != nil {
		if err := opts.Init(ctx, handler(cfg)); err != nil {
			ln.Close()
			s.triggers.Close()
			s.svc.Close()
			db.Close()
			return nil, err
		}
	}
	cfg.Verifier = opts.Verifier
	s.srv = api.NewServer(cfg, handler(cfg))
	if opts.TLS != nil {
		s.srv.TLSConfig, s.tls = opts.TLS, true
	}
	go func() {
		if opts.TLS != nil {
			s.served <- s.srv.ServeTLS(ln, "", "")
			return
		}
		s.served <- s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr is the host:port clients reach the server at ("localhost:PORT" when
// listening on all interfaces).
func (s *Server) Addr() string { return s.addr }

// URL is the endpoint to give an SDK: http://Addr, or https://Addr with TLS.
func (s *Server) URL() string {
	if s.tls {
		return "https://" + s.addr
	}
	return "http://" + s.addr
}

// ListenAddr is the address actually listened on.
func (s *Server) ListenAddr() net.Addr { return s.ln.Addr() }

// Service is the table service behind the API (tests reach past the API
// with it, e.g. to settle).
func (s *Server) Service() *table.Service { return s.svc }

// Clock is the server's clock (Options.Clock or the one Start made).
func (s *Server) Clock() *clock.Clock { return s.clock }

// Faults is the server's fault injector, also served at /_ddblocal/faults.
func (s *Server) Faults() *faults.Injector { return s.faults }

// Done receives the error that stopped serving on its own (the listener
// failed); it is never sent to after Shutdown.
func (s *Server) Done() <-chan error { return s.served }

// Shutdown stops accepting requests, waits for in-flight ones until ctx is
// done, then closes the service and the store (a durable store checkpoints).
// It returns the first error; calling it twice is safe.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	s.triggers.Close()
	s.db.Interrupt() // cluster mode: background work need not wait for etcd
	s.svc.Close()
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close is Shutdown with a 10 s grace period for in-flight requests.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		return fmt.Errorf("ddblocal shutdown: %w", err)
	}
	return nil
}
