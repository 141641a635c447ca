package main

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// TestParseConfig checks that each way of giving a setting (flag, DynamoDB
// Local's spelling, environment) reaches the config, and that bad values fail.
func TestParseConfig(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(c config) bool
	}{
		{"defaults", nil, nil, func(c config) bool {
			return c.port == 8000 && c.dbPath == "ddblocal.db" && !c.inMemory && c.cors == "*" && c.transientDelay == 0
		}},
		{"delayTransientStatuses", []string{"-delayTransientStatuses"}, nil, func(c config) bool {
			return c.transientDelay == defaultTransientDelay
		}},
		{"transient-delay wins", []string{"-delayTransientStatuses", "--transient-delay", "5s"}, nil, func(c config) bool {
			return c.transientDelay == 5*time.Second
		}},
		{"env transient delay", nil, map[string]string{"DDBLOCAL_TRANSIENT_DELAY": "3s"}, func(c config) bool {
			return c.transientDelay == 3*time.Second
		}},
		{"DynamoDB Local spellings", []string{"-port", "9001", "-inMemory", "-dbPath", "/tmp/x", "-sharedDb", "-optimizeDbBeforeStartup"}, nil, func(c config) bool {
			return c.port == 9001 && c.inMemory && c.dbPath == "/tmp/x"
		}},
		{"env values", nil, map[string]string{"DDBLOCAL_PORT": "9002", "DDBLOCAL_IN_MEMORY": "true", "DDBLOCAL_SEED": "7", "DDBLOCAL_INIT": "a,b"}, func(c config) bool {
			return c.port == 9002 && c.inMemory && c.seed == 7 && slices.Equal(c.initPaths, []string{"a", "b"})
		}},
		{"flag beats env", []string{"--port", "9003"}, map[string]string{"DDBLOCAL_PORT": "9002"}, func(c config) bool {
			return c.port == 9003
		}},
		{"init repeats", []string{"--init", "x", "--init", "y"}, nil, func(c config) bool {
			return slices.Equal(c.initPaths, []string{"x", "y"})
		}},
		{"throttling", []string{"--throttling", "--capacity-scale", "0.01"}, nil, func(c config) bool {
			return c.throttling && c.capacityScale == 0.01 && c.serverOptions(nil).Table.Throttling
		}},
		{"throttling off by default, scale from env", nil, map[string]string{"DDBLOCAL_CAPACITY_SCALE": "0.5"}, func(c config) bool {
			return !c.throttling && c.capacityScale == 0.5
		}},
		{"sync background by default", nil, nil, func(c config) bool {
			return c.sync == store.SyncBackground && c.serverOptions(nil).Sync == store.SyncBackground
		}},
		{"sync always", []string{"--sync", "always"}, nil, func(c config) bool {
			return c.sync == store.SyncAlways && c.serverOptions(nil).Sync == store.SyncAlways
		}},
		{"sync from env", nil, map[string]string{"DDBLOCAL_SYNC": "always"}, func(c config) bool {
			return c.sync == store.SyncAlways
		}},
		{"stream shard duration from env", nil, map[string]string{"DDBLOCAL_STREAM_SHARD_DURATION": "1m"}, func(c config) bool {
			return c.streamShards.Duration == time.Minute
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tt.args, err)
			}
			if !tt.check(c) {
				t.Errorf("parseConfig(%q, %v) = %+v: not what was asked for", tt.args, tt.env, c)
			}
		})
	}
	for _, args := range [][]string{{"--port", "70000"}, {"--eventual-lag", "soon"}, {"--ttl-delay", "x"}, {"--capacity-scale", "0"}, {"extra"}, {"--no-such-flag"}} {
		if _, err := parseConfig(args, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("parseConfig(%q): no error, want one", args)
		}
	}
}

// TestParseConfigBadEnv: an environment value that does not parse stops
// start-up with an error naming the variable and what it accepts, as a bad
// flag does; none is silently replaced by its default.
func TestParseConfigBadEnv(t *testing.T) {
	tests := []struct {
		name, value string
		args        []string
		want        string
	}{
		{"DDBLOCAL_TRANSIENT_DELAY", "soon", nil, `invalid DDBLOCAL_TRANSIENT_DELAY "soon": want a duration such as 500ms, 2s or 1h`},
		{"DDBLOCAL_TRANSIENT_DELAY", "5", []string{"-delayTransientStatuses"}, `invalid DDBLOCAL_TRANSIENT_DELAY "5": want a duration such as 500ms, 2s or 1h`},
		{"DDBLOCAL_PORT", "80OO", nil, `invalid DDBLOCAL_PORT "80OO": want a whole number from 0 to 65535`},
		{"DDBLOCAL_PORT", "70000", nil, `invalid DDBLOCAL_PORT "70000": want a whole number from 0 to 65535`},
		{"DDBLOCAL_PORT", "abc", []string{"--port", "9000"}, `invalid DDBLOCAL_PORT "abc": want a whole number from 0 to 65535`},
		{"DDBLOCAL_SEED", "-1", nil, `invalid DDBLOCAL_SEED "-1": want a whole number, 0 or more`},
		{"DDBLOCAL_STREAM_SHARD_RECORDS", "many", nil, `invalid DDBLOCAL_STREAM_SHARD_RECORDS "many": want a whole number, 0 or more`},
		{"DDBLOCAL_STREAM_SHARD_DURATION", "1 hour", nil, `invalid DDBLOCAL_STREAM_SHARD_DURATION "1 hour": want a duration such as 500ms, 2s or 1h`},
		{"DDBLOCAL_IN_MEMORY", "maybe", nil, `invalid DDBLOCAL_IN_MEMORY "maybe": want true or false (also 1/0, yes/no, on/off)`},
		{"DDBLOCAL_PPROF", "2", nil, `invalid DDBLOCAL_PPROF "2": want true or false (also 1/0, yes/no, on/off)`},
		{"DDBLOCAL_THROTTLING", "y", nil, `invalid DDBLOCAL_THROTTLING "y": want true or false (also 1/0, yes/no, on/off)`},
		{"DDBLOCAL_TLS_SELF_SIGNED", "enabled", nil, `invalid DDBLOCAL_TLS_SELF_SIGNED "enabled": want true or false (also 1/0, yes/no, on/off)`},
		{"DDBLOCAL_DELAY_TRANSIENT_STATUSES", "si", nil, `invalid DDBLOCAL_DELAY_TRANSIENT_STATUSES "si": want true or false (also 1/0, yes/no, on/off)`},
		{"DDBLOCAL_CAPACITY_SCALE", "1%", nil, `invalid DDBLOCAL_CAPACITY_SCALE "1%": want a number such as 0.01`},
		{"DDBLOCAL_CAPACITY_SCALE", "-2", nil, `invalid DDBLOCAL_CAPACITY_SCALE -2: want a number greater than 0, such as 0.01`},
		{"DDBLOCAL_EVENTUAL_LAG", "soon", nil, `DDBLOCAL_EVENTUAL_LAG: invalid lag "soon": want a duration such as 500ms, or random:MIN-MAX`},
		{"DDBLOCAL_TTL_DELAY", "random:2h-1h", nil, `DDBLOCAL_TTL_DELAY: invalid lag "random:2h-1h": want random:MIN-MAX with 0 <= MIN <= MAX`},
		{"DDBLOCAL_LOG_LEVEL", "loud", nil, `invalid DDBLOCAL_LOG_LEVEL "loud": want debug, info, warn or error`},
		{"DDBLOCAL_SYNC", "sometimes", nil, `invalid DDBLOCAL_SYNC "sometimes": want always or background`},
		{"DDBLOCAL_CORS", "http://a.test, http://b.test", nil, `invalid DDBLOCAL_CORS "http://a.test, http://b.test": " http://b.test" is not an origin: ` +
			`want *, off, or comma-separated origins such as http://localhost:3000 (scheme://host[:port], nothing after it)`},
		{"DDBLOCAL_KINESIS_ENDPOINT", "localhost:4567", nil, `invalid DDBLOCAL_KINESIS_ENDPOINT "localhost:4567": want an http:// or https:// URL such as http://localhost:4567`},
		{"DDBLOCAL_S3_ENDPOINT", "minio:9000", nil, `invalid DDBLOCAL_S3_ENDPOINT "minio:9000": want an http:// or https:// URL such as http://localhost:4567`},
		// A flag given on the command line is named as the flag.
		{"DDBLOCAL_LOG_LEVEL", "info", []string{"--log-level", "loud"}, `invalid --log-level "loud": want debug, info, warn or error`},
		{"DDBLOCAL_EVENTUAL_LAG", "1s", []string{"--eventual-lag", "soon"}, `--eventual-lag: invalid lag "soon": want a duration such as 500ms, or random:MIN-MAX`},
	}
	for _, tt := range tests {
		_, err := parseConfig(tt.args, func(k string) string {
			if k == tt.name {
				return tt.value
			}
			return ""
		}, io.Discard)
		if err == nil || err.Error() != tt.want {
			t.Errorf("parseConfig(%q) with %s=%q: got %v, want %s", tt.args, tt.name, tt.value, err, tt.want)
		}
	}
}

// TestParseConfigBadFlags: a flag value that does not parse is refused
// with the flag's name and what it accepts.
func TestParseConfigBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--port", "abc"}, `invalid value "abc" for flag -port: want a whole number from 0 to 65535`},
		{[]string{"-port", "70000"}, `invalid value "70000" for flag -port: want a whole number from 0 to 65535`},
		{[]string{"--in-memory=maybe"}, `invalid boolean value "maybe" for -in-memory: want true or false (also 1/0, yes/no, on/off)`},
		{[]string{"-inMemory=2"}, `invalid boolean value "2" for -inMemory: want true or false (also 1/0, yes/no, on/off)`},
		{[]string{"--seed", "1.5"}, `invalid value "1.5" for flag -seed: want a whole number, 0 or more`},
		{[]string{"--transient-delay", "2"}, `invalid value "2" for flag -transient-delay: want a duration such as 500ms, 2s or 1h`},
		{[]string{"--stream-shard-duration", "4 h"}, `invalid value "4 h" for flag -stream-shard-duration: want a duration such as 500ms, 2s or 1h`},
		{[]string{"--capacity-scale", "half"}, `invalid value "half" for flag -capacity-scale: want a number such as 0.01`},
		{[]string{"--sync", "fsync"}, `invalid --sync "fsync": want always or background`},
		{[]string{"--capacity-scale", "0"}, `invalid --capacity-scale 0: want a number greater than 0, such as 0.01`},
		{[]string{"--cors", "http://app.test/"}, `invalid --cors "http://app.test/": "http://app.test/" is not an origin: ` +
			`want *, off, or comma-separated origins such as http://localhost:3000 (scheme://host[:port], nothing after it)`},
		{[]string{"--kinesis-endpoint", "kinesis"}, `invalid --kinesis-endpoint "kinesis": want an http:// or https:// URL such as http://localhost:4567`},
		{[]string{"--s3-endpoint", "localhost:9000"}, `invalid --s3-endpoint "localhost:9000": want an http:// or https:// URL such as http://localhost:4567`},
	}
	for _, tt := range tests {
		_, err := parseConfig(tt.args, func(string) string { return "" }, io.Discard)
		if err == nil || err.Error() != tt.want {
			t.Errorf("parseConfig(%q): got %v, want %s", tt.args, err, tt.want)
		}
	}
}

// TestParseConfigBoolSpellings: booleans take strconv's spellings and
// yes/no, on/off, from a flag or a variable.
func TestParseConfigBoolSpellings(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{{"yes", true}, {"ON", true}, {"1", true}, {"True", true}, {"no", false}, {"off", false}, {"0", false}, {"F", false}} {
		c, err := parseConfig(nil, func(k string) string {
			if k == "DDBLOCAL_IN_MEMORY" {
				return tt.value
			}
			return ""
		}, io.Discard)
		if err != nil || c.inMemory != tt.want {
			t.Errorf("DDBLOCAL_IN_MEMORY=%s: got %v, %v; want %v", tt.value, c.inMemory, err, tt.want)
		}
		c, err = parseConfig([]string{"--throttling=" + tt.value}, func(string) string { return "" }, io.Discard)
		if err != nil || c.throttling != tt.want {
			t.Errorf("--throttling=%s: got %v, %v; want %v", tt.value, c.throttling, err, tt.want)
		}
	}
}

// TestHealthcheckBadEnv: the health check reads DDBLOCAL_PORT as the
// server does, so a value the server refuses is refused here too.
func TestHealthcheckBadEnv(t *testing.T) {
	err := runHealthcheck(context.Background(), nil, func(k string) string {
		return map[string]string{"DDBLOCAL_PORT": "80OO"}[k]
	}, io.Discard, io.Discard)
	want := `invalid DDBLOCAL_PORT "80OO": want a whole number from 0 to 65535`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestCheckOrigins: --cors takes what a browser's Origin header can equal,
// and refuses what could never equal one.
func TestCheckOrigins(t *testing.T) {
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"*", true}, {"off", true}, {"http://localhost:3000", true}, {"https://app.test,http://localhost:5173", true},
		{"null", true}, {"chrome-extension://abcdef", true}, {"http://[::1]:8080", true},
		{"", false}, {"app.test", false}, {"http://app.test/", false}, {"http://app.test/path", false},
		{"http://App.test", false}, {"http://a.test, http://b.test", false}, {"http://a.test,", false},
		{"http://a.test,off", false}, {"http://u@a.test", false}, {"http://a.test?x", false},
	} {
		if err := checkOrigins(tt.value); (err == nil) != tt.ok {
			t.Errorf("checkOrigins(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
	}
}

// TestMCPBadConfig: the mcp subcommand's variable and endpoint parse as
// the server's do, or it stops before starting anything, naming them.
func TestMCPBadConfig(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"DDBLOCAL_MCP_READ_ONLY": "maybe"}, `invalid DDBLOCAL_MCP_READ_ONLY "maybe": want true or false (also 1/0, yes/no, on/off)`},
		{[]string{"--read-only=maybe"}, nil, `invalid boolean value "maybe" for -read-only: want true or false (also 1/0, yes/no, on/off)`},
		{nil, map[string]string{"DDBLOCAL_MCP_ENDPOINT": "localhost:8000"}, `invalid DDBLOCAL_MCP_ENDPOINT "localhost:8000": want an http:// or https:// URL such as http://localhost:4567`},
		{[]string{"--endpoint", "ftp://x"}, map[string]string{"DDBLOCAL_MCP_ENDPOINT": "http://localhost:8000"}, `invalid --endpoint "ftp://x": want an http:// or https:// URL such as http://localhost:4567`},
	} {
		err := runMCP(context.Background(), tt.args, func(k string) string { return tt.env[k] }, io.Discard, io.Discard)
		if err == nil || err.Error() != tt.want {
			t.Errorf("mcp %q with %v: got %v, want %s", tt.args, tt.env, err, tt.want)
		}
	}
}
