package api

import (
	"log/slog"
	"net/http"
	"time"
)

// Server limits. Reads allow a 16 MB body from a slow client; writes allow a
// long Scan; headers are capped generously so that limitHeaders (16 KiB,
// answered with 400) rather than Go (431) rejects large ones.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 2 * time.Minute
	writeTimeout      = 5 * time.Minute
	idleTimeout       = 2 * time.Minute
	serverHeaderBytes = 1 << 20
)

// NewServer returns an *http.Server serving h on cfg.Addr with timeouts and
// header limits set, logging its own errors to cfg.Logger at warn level.
// The caller starts it (ListenAndServe or Serve) and stops it (Shutdown).
func NewServer(cfg Config, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              cfg.Addr,
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    serverHeaderBytes,
		ErrorLog:          slog.NewLogLogger(cfg.logger().Handler(), slog.LevelWarn),
	}
}
