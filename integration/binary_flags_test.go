package integration

import (
	"context"
	"debug/elf"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBinaryStatic is the proof behind the distroless/static Docker image
// (there is no Docker engine on the build machine): the binary has no ELF
// interpreter and no dynamic section, so it needs no libc, and it serves
// with an empty environment from an empty directory.
func TestBinaryStatic(t *testing.T) {
	bin := binaryPath(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
			t.Errorf("program header %s: got a dynamically linked binary, want a static one", prog.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("imported libraries: got %v (%v), want none", libs, err)
	}

	t.Run("InMemoryEmptyEnv", func(t *testing.T) {
		dir := t.TempDir()
		p := startBinary(t, dir, []string{}, "--in-memory", "--port", "0")
		ctx := context.Background()
		c := p.client()
		createTable(t, c, "Static", false)
		out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := out.TableNames, []string{"Static"}; !slices.Equal(got, want) {
			t.Errorf("ListTables: got %v, want %v", got, want)
		}
		p.stopOK()
		wantTree(t, dir)
	})
	t.Run("DefaultDBPathEmptyEnv", func(t *testing.T) {
		dir := t.TempDir()
		p := startBinary(t, dir, []string{}, "--port", "0")
		createTable(t, p.client(), "Static", false)
		p.stopOK()
		wantTree(t, dir, "ddblocal.db")
	})
}

// TestBinaryFlagSpellings starts the binary the ways scripts written for
// DynamoDB Local, and our own environment variables, start it.
func TestBinaryFlagSpellings(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        []string
		mkdir      string   // created in the working directory before start
		wantFiles  []string // working directory contents after a graceful stop
		wantStatus types.TableStatus
	}{
		{
			name:       "DynamoDBLocal",
			args:       []string{"-port", "0", "-inMemory", "-sharedDb", "-delayTransientStatuses"},
			wantStatus: types.TableStatusCreating, // -delayTransientStatuses took effect
		},
		{
			name:       "DynamoDBLocalDBPathDir",
			args:       []string{"-port", "0", "-dbPath", "data"},
			mkdir:      "data",
			wantFiles:  []string{"data", "data/ddblocal.db"},
			wantStatus: types.TableStatusActive,
		},
		{
			name:       "EnvInMemory",
			env:        []string{"DDBLOCAL_PORT=0", "DDBLOCAL_IN_MEMORY=true"},
			wantStatus: types.TableStatusActive,
		},
		{
			name:       "EnvDBPath",
			env:        []string{"DDBLOCAL_PORT=0", "DDBLOCAL_DB_PATH=env.db"},
			wantFiles:  []string{"env.db"},
			wantStatus: types.TableStatusActive,
		},
		{
			name:       "OwnSpellings",
			args:       []string{"--port=0", "--host=127.0.0.1", "--db-path=own.db", "--log-level=debug"},
			wantFiles:  []string{"own.db"},
			wantStatus: types.TableStatusActive,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.mkdir != "" {
				if err := os.Mkdir(filepath.Join(dir, tt.mkdir), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			p := startBinary(t, dir, testEnv(t, tt.env...), tt.args...)
			c := p.client()
			createTable(t, c, "Flags", false)
			out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("Flags")})
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Table.TableStatus; got != tt.wantStatus {
				t.Errorf("TableStatus right after CreateTable: got %s, want %s", got, tt.wantStatus)
			}
			p.stopOK()
			wantTree(t, dir, tt.wantFiles...)
		})
	}
}

// wantTree checks that dir holds exactly the named files and directories
// (slash-separated, relative to dir, in lexical order).
func wantTree(t testing.TB, dir string, names ...string) {
	t.Helper()
	var got []string
	err := filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		got = append(got, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, names) {
		t.Errorf("files under the working directory: got %v, want %v", got, names)
	}
}

// TestBinaryFlagErrors checks that bad configuration stops the process with
// exit code 1 and says why, instead of serving something unexpected.
func TestBinaryFlagErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // substring of stderr
	}{
		{"PortRange", []string{"--port", "70000", "--in-memory"}, `invalid value "70000" for flag -port: want a whole number from 0 to 65535`},
		{"LogLevel", []string{"--port", "0", "--in-memory", "--log-level", "loud"}, `invalid --log-level "loud"`},
		{"UnknownFlag", []string{"--port", "0", "--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{"StrayArgument", []string{"--port", "0", "--in-memory", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			code, stderr := runBinary(t, dir, tt.args...)
			if code != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("got exit code %d, stderr:\n%s\nwant exit code 1 and %q", code, stderr, tt.want)
			}
			wantTree(t, dir)
		})
	}
}

// TestBinaryHealth checks the two health routes over the real process: the
// text DynamoDB answers on `GET /`, which scripts poll while waiting for
// DynamoDB Local, and ddblocal's JSON readiness route.
func TestBinaryHealth(t *testing.T) {
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	tests := []struct {
		path, wantType, wantBody string
	}{
		// With no --host the server listens on all interfaces and names
		// itself localhost.
		{"/", "text/plain", "healthy: localhost:" + p.Port + " "},
		{"/_ddblocal/health", "application/json", `{"status":"ok"}`},
	}
	for _, tt := range tests {
		resp, err := http.Get(p.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resp.StatusCode, http.StatusOK; got != want {
			t.Errorf("GET %s: got status %d, want %d", tt.path, got, want)
		}
		if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, tt.wantType) {
			t.Errorf("GET %s: got Content-Type %q, want %q", tt.path, got, tt.wantType)
		}
		got := string(body)
		if json.Valid(body) {
			got = strings.TrimSpace(got)
		}
		if got != tt.wantBody {
			t.Errorf("GET %s: got body %q, want %q", tt.path, got, tt.wantBody)
		}
	}
	p.stopOK()
}

// TestBinaryCORSDefault: like DynamoDB Local, the server answers browsers
// from any origin unless told otherwise, so browser SDKs work out of the box.
func TestBinaryCORSDefault(t *testing.T) {
	for _, tt := range []struct {
		name       string
		args       []string
		wantOrigin string
	}{
		{"default", nil, "*"},
		{"off", []string{"--cors", "off"}, ""},
		{"listed", []string{"-cors", "http://app.test"}, "http://app.test"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startBinary(t, t.TempDir(), nil, append([]string{"--in-memory", "--port", "0"}, tt.args...)...)
			req, _ := http.NewRequest(http.MethodOptions, p.URL+"/", nil)
			req.Header.Set("Origin", "http://app.test")
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type,x-amz-target,authorization")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.wantOrigin {
				t.Errorf("preflight Allow-Origin: got %q, want %q", got, tt.wantOrigin)
			}
			p.stopOK()
		})
	}
}
