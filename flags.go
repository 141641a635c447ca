package main

// The server's flags and their DDBLOCAL_* environment variables, in one
// place: what each means, its default, and the checks the flag package
// cannot make. Subcommands define their own flags (commands.go, cmd_*.go).

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/streams"
)

// config is the server's configuration after flags and environment.
type config struct {
	host           string
	port           int
	dbPath         string
	inMemory       bool
	logLevel       string
	cors           string
	transientDelay time.Duration
	pprof          bool
	eventualLag    consistency.Lag
	seed           uint64
	credentials    string
	tls            tlsFlags // --tls-cert, --tls-key, --tls-self-signed (tls.go)
	initPaths      []string // --init, in order
	initRegion     string
	streamShards   streams.Policy
	ttlDelay       consistency.Lag
	replLag        consistency.Lag // --replication-lag (global tables)
	cluster        clusterFlags    // --store etcd://... (cluster.go)
	throttling     bool
	capacityScale  float64
}

// defaultTransientDelay is how long -delayTransientStatuses keeps a table
// CREATING, UPDATING or DELETING.
const defaultTransientDelay = 2 * time.Second

// envVars reads DDBLOCAL_* variables, the defaults of the flags.
type envVars func(string) string

func (e envVars) str(name, def string) string {
	if v := e("DDBLOCAL_" + name); v != "" {
		return v
	}
	return def
}

func (e envVars) int(name string, def int) int {
	if n, err := strconv.Atoi(e.str(name, "")); err == nil {
		return n
	}
	return def
}

func (e envVars) bool(name string) bool {
	b, _ := strconv.ParseBool(e.str(name, "false"))
	return b
}

// rawFlags holds the flags that need work after parsing.
type rawFlags struct {
	lag, ttlDelay, replLag  *string
	delayStatuses, sharedDb bool
}

// parseConfig reads flags, falling back to DDBLOCAL_* environment variables.
// Both our spellings (--db-path) and DynamoDB Local's (-dbPath) are accepted.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	env := envVars(getenv)
	fs := flag.NewFlagSet("ddblocal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usageCommands(stderr); fs.PrintDefaults() }
	var raw rawFlags
	c.serverFlags(fs, env, &raw)
	c.featureFlags(fs, env, &raw)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return c, c.finish(env, raw)
}

// serverFlags defines the flags of the listener, storage and logging, DynamoDB
// Local's spellings among them.
func (c *config) serverFlags(fs *flag.FlagSet, env envVars, raw *rawFlags) {
	fs.StringVar(&c.host, "host", env.str("HOST", ""), "address to listen on (default all interfaces) [DDBLOCAL_HOST]")
	fs.IntVar(&c.port, "port", env.int("PORT", 8000), "port to listen on; 0 picks a free one [DDBLOCAL_PORT]")
	fs.StringVar(&c.dbPath, "db-path", env.str("DB_PATH", "ddblocal.db"), "bbolt database file, or a directory to hold ddblocal.db [DDBLOCAL_DB_PATH]")
	fs.StringVar(&c.dbPath, "dbPath", env.str("DB_PATH", "ddblocal.db"), "DynamoDB Local's spelling of --db-path")
	fs.BoolVar(&c.inMemory, "in-memory", env.bool("IN_MEMORY"), "keep nothing after exit [DDBLOCAL_IN_MEMORY]")
	fs.BoolVar(&c.inMemory, "inMemory", env.bool("IN_MEMORY"), "DynamoDB Local's spelling of --in-memory")
	fs.StringVar(&c.logLevel, "log-level", env.str("LOG_LEVEL", "info"), "debug, info, warn or error [DDBLOCAL_LOG_LEVEL]")
	fs.StringVar(&c.cors, "cors", env.str("CORS", "*"), "comma-separated allowed CORS origins, * (the default, as DynamoDB Local's), or off [DDBLOCAL_CORS]")
	fs.DurationVar(&c.transientDelay, "transient-delay", 0, "how long tables stay CREATING/UPDATING/DELETING [DDBLOCAL_TRANSIENT_DELAY]")
	fs.BoolVar(&raw.delayStatuses, "delayTransientStatuses", env.bool("DELAY_TRANSIENT_STATUSES"), "DynamoDB Local's switch: --transient-delay "+defaultTransientDelay.String())
	fs.BoolVar(&raw.sharedDb, "sharedDb", false, "accepted for DynamoDB Local compatibility: tables are always shared across access keys")
	fs.Bool("optimizeDbBeforeStartup", false, "accepted for DynamoDB Local compatibility; no effect")
	fs.BoolVar(&c.pprof, "pprof", env.bool("PPROF"), "serve net/http/pprof under /_ddblocal/debug/pprof/ [DDBLOCAL_PPROF]")
	fs.StringVar(&c.credentials, "credentials", env.str("CREDENTIALS", ""), "verify SigV4 signatures: KEY:SECRET[:ACCOUNT[:TOKEN]],... or @FILE [DDBLOCAL_CREDENTIALS]")
	fs.StringVar(&c.tls.cert, "tls-cert", env.str("TLS_CERT", ""), "serve HTTPS with this PEM certificate (with --tls-key) [DDBLOCAL_TLS_CERT]")
	fs.StringVar(&c.tls.key, "tls-key", env.str("TLS_KEY", ""), "the PEM private key of --tls-cert [DDBLOCAL_TLS_KEY]")
	c.cluster.define(fs, env)
	fs.BoolVar(&c.tls.selfSigned, "tls-self-signed", env.bool("TLS_SELF_SIGNED"), "serve HTTPS with a certificate for localhost generated at start, written beside --db-path [DDBLOCAL_TLS_SELF_SIGNED]")
}

// featureFlags defines the flags of lag, fixtures, streams and TTL.
func (c *config) featureFlags(fs *flag.FlagSet, env envVars, raw *rawFlags) {
	raw.lag = fs.String("eventual-lag", env.str("EVENTUAL_LAG", "0"), "how far eventually consistent reads and GSIs lag writes: 0, a duration (500ms), or random:MIN-MAX [DDBLOCAL_EVENTUAL_LAG]")
	fs.Uint64Var(&c.seed, "seed", uint64(env.int("SEED", 1)), "seed for random lags, so runs are reproducible [DDBLOCAL_SEED]")
	if v := env.str("INIT", ""); v != "" {
		c.initPaths = strings.Split(v, ",")
	}
	fs.Func("init", "create tables and load items from a template, CreateTable JSON, .jsonl file or folder of them before serving; repeatable [DDBLOCAL_INIT, comma-separated]", func(p string) error {
		c.initPaths = append(c.initPaths, p)
		return nil
	})
	fs.StringVar(&c.initRegion, "init-region", env.str("INIT_REGION", "us-east-1"), "region --init creates its tables in [DDBLOCAL_INIT_REGION]")
	fs.Uint64Var(&c.streamShards.Records, "stream-shard-records", uint64(env.int("STREAM_SHARD_RECORDS", 0)), "close a stream shard and open its child after this many changes; 0 = no limit [DDBLOCAL_STREAM_SHARD_RECORDS]")
	fs.DurationVar(&c.streamShards.Duration, "stream-shard-duration", streams.DefaultDuration, "close a stream shard and open its child once it is this old [DDBLOCAL_STREAM_SHARD_DURATION]")
	raw.replLag = fs.String("replication-lag", env.str("REPLICATION_LAG", "0"), "how long a write to a global table takes to reach its other replicas: 0, a duration (1s), or random:MIN-MAX [DDBLOCAL_REPLICATION_LAG]")
	raw.ttlDelay = fs.String("ttl-delay", env.str("TTL_DELAY", "0"), "how long expired TTL items stay before deletion: 0, a duration (1h), or random:MIN-MAX [DDBLOCAL_TTL_DELAY]")
	fs.BoolVar(&c.throttling, "throttling", env.bool("THROTTLING"), "throttle every table as DynamoDB would (partitions, capacity, burst); without it only tables tagged ddblocal:throttling=on [DDBLOCAL_THROTTLING]")
	scale, _ := strconv.ParseFloat(env.str("CAPACITY_SCALE", "1"), 64)
	fs.Float64Var(&c.capacityScale, "capacity-scale", scale, "multiply DynamoDB's throughput limits (partition, on-demand, quotas) by this, e.g. 0.01 [DDBLOCAL_CAPACITY_SCALE]")
}

// finish applies the environment's durations and checks the values the flag
// package cannot.
func (c *config) finish(env envVars, raw rawFlags) error {
	if v := env.str("TRANSIENT_DELAY", ""); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("invalid DDBLOCAL_TRANSIENT_DELAY %q: want a duration such as 2s", v)
		}
		if c.transientDelay == 0 {
			c.transientDelay = d
		}
	}
	if raw.delayStatuses && c.transientDelay == 0 {
		c.transientDelay = defaultTransientDelay
	}
	var err error
	if c.eventualLag, err = consistency.ParseLag(*raw.lag); err != nil {
		return err
	}
	if c.ttlDelay, err = consistency.ParseLag(*raw.ttlDelay); err != nil {
		return fmt.Errorf("--ttl-delay: %w", err)
	}
	if c.replLag, err = consistency.ParseLag(*raw.replLag); err != nil {
		return fmt.Errorf("--replication-lag: %w", err)
	}
	if d, err := time.ParseDuration(env.str("STREAM_SHARD_DURATION", "")); err == nil && c.streamShards.Duration == streams.DefaultDuration {
		c.streamShards.Duration = d
	}
	if c.capacityScale <= 0 {
		return fmt.Errorf("--capacity-scale must be greater than 0, not %v", c.capacityScale)
	}
	if c.port < 0 || c.port > 65535 {
		return fmt.Errorf("invalid port %d", c.port)
	}
	return nil
}

// logger returns the logger --log-level asks for, writing to w.
func (c config) logger(w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q", c.logLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), nil
}

// clusterFlags are the flags of cluster mode: --store etcd://... makes this
// process a stateless front-end of a store kept in etcd.
type clusterFlags struct {
	store         string
	ca, cert, key string
	user          string // user:password
}

// define defines the cluster flags on fs.
func (f *clusterFlags) define(fs *flag.FlagSet, env envVars) {
	fs.StringVar(&f.store, "store", env.str("STORE", ""), "etcd://host1:2379,host2:2379[/prefix]: keep tables in etcd, shared with other ddblocal front-ends (cluster mode) [DDBLOCAL_STORE]")
	fs.StringVar(&f.ca, "etcd-ca", env.str("ETCD_CA", ""), "PEM CA bundle that signs etcd's certificates (TLS to etcd) [DDBLOCAL_ETCD_CA]")
	fs.StringVar(&f.cert, "etcd-cert", env.str("ETCD_CERT", ""), "PEM client certificate for etcd (with --etcd-key) [DDBLOCAL_ETCD_CERT]")
	fs.StringVar(&f.key, "etcd-key", env.str("ETCD_KEY", ""), "PEM private key of --etcd-cert [DDBLOCAL_ETCD_KEY]")
	fs.StringVar(&f.user, "etcd-user", env.str("ETCD_USER", ""), "USER:PASSWORD for etcd authentication [DDBLOCAL_ETCD_USER]")
}
