package main

import (
	"io"
	"slices"
	"testing"
	"time"
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
// start-up with an error naming the variable, as a bad flag does.
func TestParseConfigBadEnv(t *testing.T) {
	tests := []struct {
		name, value string
		args        []string
		want        string
	}{
		{"DDBLOCAL_TRANSIENT_DELAY", "soon", nil, `invalid DDBLOCAL_TRANSIENT_DELAY "soon": want a duration such as 2s`},
		{"DDBLOCAL_TRANSIENT_DELAY", "5", []string{"-delayTransientStatuses"}, `invalid DDBLOCAL_TRANSIENT_DELAY "5": want a duration such as 2s`},
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
