package api

import (
	"log/slog"
	"net/http"

	"github.com/ddblocal/ddblocal/auth"
)

// Config configures NewHandler and NewServer.
type Config struct {
	// Addr is the host:port the server is reachable at. It is echoed by the
	// `GET /` health text and returned by DescribeEndpoints, and it is the
	// listen address NewServer uses.
	Addr string
	// CORSOrigins lists the origins allowed to call the server from a
	// browser. Empty turns CORS off; "*" allows any origin (DynamoDB Local's
	// -cors flag).
	CORSOrigins []string
	// Logger receives request logs (debug) and internal errors (error).
	// Nil discards them.
	Logger *slog.Logger
	// Admin serves every path under /_ddblocal (ddblocal's own routes,
	// package admin), mounted there with the API's request ids, CORS,
	// logging and panic recovery. Nil answers 404.
	Admin http.Handler
	// Verifier, when set, makes every DynamoDB call carry a valid SigV4
	// signature by one of its credentials (--credentials); the signer's
	// account then scopes the call. Nil accepts any signature, as DynamoDB
	// Local does.
	Verifier *auth.Verifier
}

// logger returns cfg.Logger or a logger that discards everything.
func (cfg Config) logger() *slog.Logger {
	if cfg.Logger != nil {
		return cfg.Logger
	}
	return slog.New(slog.DiscardHandler)
}
