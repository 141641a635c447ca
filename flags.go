package main

// The server's flags and their DDBLOCAL_* environment variables, in one
// place: what each means, its default, and the checks the flag package
// cannot make. Subcommands define their own flags (commands.go, cmd_*.go).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/kinesis"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// config is the server's configuration after flags and environment.
type config struct {
	host           string
	port           int
	dbPath         string
	inMemory       bool
	sync           store.SyncMode // --sync
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
	legacyGlobal   bool            // --legacy-global-tables
	cluster        clusterFlags    // --store etcd://... (cluster.go)
	throttling     bool
	capacityScale  float64
	s3             s3Flags      // --s3-dir, --s3-endpoint (cmd_transfer_s3.go)
	s3Store        bucket.Store // what they name, for exports and imports
	kinesisURL     string       // --kinesis-endpoint
	kinesis        kinesis.Sink // its client, nil without one
}

// defaultTransientDelay is how long -delayTransientStatuses keeps a table
// CREATING, UPDATING or DELETING.
const defaultTransientDelay = 2 * time.Second

// rawFlags holds the flags that need work after parsing.
type rawFlags struct {
	lag, ttlDelay, replLag  *string
	sync                    string // --sync, parsed by finish
	delayStatuses, sharedDb bool
}

// parseConfig reads flags, falling back to DDBLOCAL_* environment variables.
// Both our spellings (--db-path) and DynamoDB Local's (-dbPath) are accepted.
// A value of either that does not parse stops the start, named.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	env := newEnvVars(getenv)
	fs := flag.NewFlagSet("ddblocal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usageCommands(stderr); fs.PrintDefaults() }
	var raw rawFlags
	c.serverFlags(fs, env, &raw)
	c.featureFlags(fs, env, &raw)
	c.s3.registerDefault(fs, getenv, "", "folder serving the S3 locations of ExportTableToPointInTime and ImportTable: bucket b is DIR/b (default: s3 beside --db-path) [DDBLOCAL_S3_DIR]")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := env.err(); err != nil {
		return c, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	err := c.finish(raw, func(flagName, envName string) string {
		if !given[flagName] && env.set(envName) {
			return "DDBLOCAL_" + envName
		}
		return "--" + flagName
	})
	if err != nil {
		return c, err
	}
	if c.s3Store, err = c.s3.serverStore(c.dbPath, c.inMemory, getenv); err != nil {
		return c, err
	}
	c.kinesis, err = kinesisSink(c.kinesisURL, getenv)
	return c, err
}

// kinesisSink is the client of --kinesis-endpoint, nil without one. A
// loopback endpoint with no credentials in the environment gets dummy ones
// (kinesalite and LocalStack take any); otherwise the default credential
// chain signs.
func kinesisSink(endpoint string, getenv func(string) string) (kinesis.Sink, error) {
	if endpoint == "" {
		return nil, nil
	}
	var creds aws.CredentialsProvider = credentials.NewStaticCredentialsProvider("local", "local", "")
	if !isLoopback(endpoint) || getenv("AWS_ACCESS_KEY_ID") != "" || getenv("AWS_PROFILE") != "" {
		cfg, err := awsconfig.LoadDefaultConfig(context.Background())
		if err != nil {
			return nil, fmt.Errorf("--kinesis-endpoint: %w", err)
		}
		creds = cfg.Credentials
	}
	return &kinesis.Client{Endpoint: endpoint, Credentials: creds}, nil
}

// serverFlags defines the flags of the listener, storage and logging, DynamoDB
// Local's spellings among them.
func (c *config) serverFlags(fs *flag.FlagSet, env *envVars, raw *rawFlags) {
	fs.StringVar(&c.host, "host", env.str("HOST", ""), "address to listen on (default all interfaces) [DDBLOCAL_HOST]")
	c.port = env.int("PORT", 8000, 0, 65535)
	fs.Var(intValue(&c.port, 0, 65535), "port", "`port` to listen on; 0 picks a free one [DDBLOCAL_PORT]")
	fs.StringVar(&c.dbPath, "db-path", env.str("DB_PATH", "ddblocal.db"), "bbolt database file, or a directory to hold ddblocal.db [DDBLOCAL_DB_PATH]")
	fs.StringVar(&c.dbPath, "dbPath", env.str("DB_PATH", "ddblocal.db"), "DynamoDB Local's spelling of --db-path")
	c.inMemory = env.bool("IN_MEMORY")
	fs.Var(newBoolValue(&c.inMemory), "in-memory", "keep nothing after exit [DDBLOCAL_IN_MEMORY]")
	fs.Var(newBoolValue(&c.inMemory), "inMemory", "DynamoDB Local's spelling of --in-memory")
	fs.StringVar(&raw.sync, "sync", env.str("SYNC", "background"), "when a write is acknowledged: background (once written to the log, so it survives the process being killed; fdatasync runs behind and an OS crash or power cut loses at most the last 8 MiB of writes) or always (once fdatasynced, so it survives a power cut too) [DDBLOCAL_SYNC]")
	fs.StringVar(&c.logLevel, "log-level", env.str("LOG_LEVEL", "info"), "debug, info, warn or error [DDBLOCAL_LOG_LEVEL]")
	fs.StringVar(&c.cors, "cors", env.str("CORS", "*"), "comma-separated allowed CORS origins, * (the default, as DynamoDB Local's), or off [DDBLOCAL_CORS]")
	c.transientDelay = env.duration("TRANSIENT_DELAY", 0)
	fs.Var(durationValue(&c.transientDelay), "transient-delay", "how long (a `duration`) tables stay CREATING/UPDATING/DELETING [DDBLOCAL_TRANSIENT_DELAY]")
	raw.delayStatuses = env.bool("DELAY_TRANSIENT_STATUSES")
	fs.Var(newBoolValue(&raw.delayStatuses), "delayTransientStatuses", "DynamoDB Local's switch: --transient-delay "+defaultTransientDelay.String())
	fs.Var(newBoolValue(&raw.sharedDb), "sharedDb", "accepted for DynamoDB Local compatibility: tables are always shared across access keys")
	fs.Var(newBoolValue(new(bool)), "optimizeDbBeforeStartup", "accepted for DynamoDB Local compatibility; no effect")
	c.pprof = env.bool("PPROF")
	fs.Var(newBoolValue(&c.pprof), "pprof", "serve Go's profiler (runtime/pprof) under /_ddblocal/debug/pprof/ [DDBLOCAL_PPROF]")
	fs.StringVar(&c.credentials, "credentials", env.str("CREDENTIALS", ""), "verify SigV4 signatures: KEY:SECRET[:ACCOUNT[:TOKEN]],... or @FILE [DDBLOCAL_CREDENTIALS]")
	fs.StringVar(&c.tls.cert, "tls-cert", env.str("TLS_CERT", ""), "serve HTTPS with this PEM certificate (with --tls-key) [DDBLOCAL_TLS_CERT]")
	fs.StringVar(&c.tls.key, "tls-key", env.str("TLS_KEY", ""), "the PEM private key of --tls-cert [DDBLOCAL_TLS_KEY]")
	c.cluster.define(fs, env)
	c.tls.selfSigned = env.bool("TLS_SELF_SIGNED")
	fs.Var(newBoolValue(&c.tls.selfSigned), "tls-self-signed", "serve HTTPS with a certificate for localhost generated at start, written beside --db-path [DDBLOCAL_TLS_SELF_SIGNED]")
}

// featureFlags defines the flags of lag, fixtures, streams and TTL.
func (c *config) featureFlags(fs *flag.FlagSet, env *envVars, raw *rawFlags) {
	raw.lag = fs.String("eventual-lag", env.str("EVENTUAL_LAG", "0"), "how far eventually consistent reads and GSIs lag writes: 0, a duration (500ms), or random:MIN-MAX [DDBLOCAL_EVENTUAL_LAG]")
	c.seed = env.uint("SEED", 1)
	fs.Var(uintValue(&c.seed), "seed", "`seed` for random lags, so runs are reproducible [DDBLOCAL_SEED]")
	if v := env.str("INIT", ""); v != "" {
		c.initPaths = strings.Split(v, ",")
	}
	fs.Func("init", "create tables and load items from a template, CreateTable JSON, .jsonl file, S3 export folder or folder of them before serving; repeatable [DDBLOCAL_INIT, comma-separated]", func(p string) error {
		c.initPaths = append(c.initPaths, p)
		return nil
	})
	fs.StringVar(&c.initRegion, "init-region", env.str("INIT_REGION", "us-east-1"), "region --init creates its tables in [DDBLOCAL_INIT_REGION]")
	c.streamShards.Records = env.uint("STREAM_SHARD_RECORDS", 0)
	fs.Var(uintValue(&c.streamShards.Records), "stream-shard-records", "close a stream shard and open its child after this many changes (`n`); 0 = no limit [DDBLOCAL_STREAM_SHARD_RECORDS]")
	c.streamShards.Duration = env.duration("STREAM_SHARD_DURATION", streams.DefaultDuration)
	fs.Var(durationValue(&c.streamShards.Duration), "stream-shard-duration", "close a stream shard and open its child once it is this old (a `duration`) [DDBLOCAL_STREAM_SHARD_DURATION]")
	raw.replLag = fs.String("replication-lag", env.str("REPLICATION_LAG", "0"), "how long a write to a global table takes to reach its other replicas: 0, a duration (1s), or random:MIN-MAX [DDBLOCAL_REPLICATION_LAG]")
	c.legacyGlobal = env.bool("LEGACY_GLOBAL_TABLES")
	fs.Var(newBoolValue(&c.legacyGlobal), "legacy-global-tables", "make the version 2017.11.29 (legacy) global table operations work, as for an account that still has legacy global tables [DDBLOCAL_LEGACY_GLOBAL_TABLES]")
	raw.ttlDelay = fs.String("ttl-delay", env.str("TTL_DELAY", "0"), "how long expired TTL items stay before deletion: 0, a duration (1h), or random:MIN-MAX [DDBLOCAL_TTL_DELAY]")
	c.throttling = env.bool("THROTTLING")
	fs.Var(newBoolValue(&c.throttling), "throttling", "throttle every table as DynamoDB would (partitions, capacity, burst); without it only tables tagged ddblocal:throttling=on [DDBLOCAL_THROTTLING]")
	fs.StringVar(&c.kinesisURL, "kinesis-endpoint", env.str("KINESIS_ENDPOINT", ""), "Kinesis-compatible endpoint URL (kinesalite, LocalStack, AWS) that Kinesis streaming destinations deliver to [DDBLOCAL_KINESIS_ENDPOINT]")
	c.capacityScale = env.float("CAPACITY_SCALE", 1)
	fs.Var(floatValue(&c.capacityScale), "capacity-scale", "multiply DynamoDB's throughput limits (partition, on-demand, quotas) by this `factor`, e.g. 0.01 [DDBLOCAL_CAPACITY_SCALE]")
}

// finish checks the values the flag package cannot, naming each by where
// it came from: source(flag, variable) is "--flag", or "DDBLOCAL_VARIABLE"
// when only the environment gave it.
func (c *config) finish(raw rawFlags, source func(flagName, envName string) string) error {
	if raw.delayStatuses && c.transientDelay == 0 {
		c.transientDelay = defaultTransientDelay
	}
	var err error
	if c.eventualLag, err = consistency.ParseLag(*raw.lag); err != nil {
		return fmt.Errorf("%s: %w", source("eventual-lag", "EVENTUAL_LAG"), err)
	}
	if c.ttlDelay, err = consistency.ParseLag(*raw.ttlDelay); err != nil {
		return fmt.Errorf("%s: %w", source("ttl-delay", "TTL_DELAY"), err)
	}
	if c.replLag, err = consistency.ParseLag(*raw.replLag); err != nil {
		return fmt.Errorf("%s: %w", source("replication-lag", "REPLICATION_LAG"), err)
	}
	if c.capacityScale <= 0 {
		return fmt.Errorf("invalid %s %v: want a number greater than 0, such as 0.01", source("capacity-scale", "CAPACITY_SCALE"), c.capacityScale)
	}
	if c.sync, err = store.ParseSyncMode(raw.sync); err != nil {
		return fmt.Errorf("invalid %s %q: want always or background", source("sync", "SYNC"), raw.sync)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("invalid %s %q: want debug, info, warn or error", source("log-level", "LOG_LEVEL"), c.logLevel)
	}
	if err := checkOrigins(c.cors); err != nil {
		return fmt.Errorf("invalid %s %q: %v", source("cors", "CORS"), c.cors, err)
	}
	if c.kinesisURL != "" {
		if err := checkEndpoint(c.kinesisURL); err != nil {
			return fmt.Errorf("invalid %s %q: %v", source("kinesis-endpoint", "KINESIS_ENDPOINT"), c.kinesisURL, err)
		}
	}
	if c.s3.endpoint != "" {
		if err := checkEndpoint(c.s3.endpoint); err != nil {
			return fmt.Errorf("invalid %s %q: %v", source("s3-endpoint", "S3_ENDPOINT"), c.s3.endpoint, err)
		}
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
	dial          time.Duration
}

// define defines the cluster flags on fs.
func (f *clusterFlags) define(fs *flag.FlagSet, env *envVars) {
	fs.StringVar(&f.store, "store", env.str("STORE", ""), "etcd://host1:2379,host2:2379[/prefix]: keep tables in etcd, shared with other ddblocal front-ends (cluster mode) [DDBLOCAL_STORE]")
	fs.StringVar(&f.ca, "etcd-ca", env.str("ETCD_CA", ""), "PEM CA bundle that signs etcd's certificates (TLS to etcd) [DDBLOCAL_ETCD_CA]")
	fs.StringVar(&f.cert, "etcd-cert", env.str("ETCD_CERT", ""), "PEM client certificate for etcd (with --etcd-key) [DDBLOCAL_ETCD_CERT]")
	fs.StringVar(&f.key, "etcd-key", env.str("ETCD_KEY", ""), "PEM private key of --etcd-cert [DDBLOCAL_ETCD_KEY]")
	fs.StringVar(&f.user, "etcd-user", env.str("ETCD_USER", ""), "USER:PASSWORD for etcd authentication [DDBLOCAL_ETCD_USER]")
	f.dial = env.duration("ETCD_TIMEOUT", 5*time.Second)
	fs.Var(durationValue(&f.dial), "etcd-timeout", "how long (a `duration`) start-up waits for etcd to answer (default 5s) [DDBLOCAL_ETCD_TIMEOUT]")
}
