package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio runs `ddblocal mcp` as an agent's client would, a child
// speaking MCP over stdin and stdout, with the SDK's client: it lists the
// tools, creates a table, writes, queries, and asks for a key-design
// report. Package mcp's tests cover each tool; this covers the command.
func TestMCPStdio(t *testing.T) {
	bin := binaryPath(t)
	if signedPass() {
		t.Skip("the unsigned pass ran the mcp command; it signs with its own credentials")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = testEnv(t)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "integration", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != "ddblocal" {
		t.Errorf("server name %q, want ddblocal", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"create_table", "put_item", "query", "evaluate_data_model"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	def := map[string]any{"TableName": "Users",
		"KeySchema":            []any{map[string]any{"AttributeName": "id", "KeyType": "HASH"}},
		"AttributeDefinitions": []any{map[string]any{"AttributeName": "id", "AttributeType": "S"}}}
	mcpCall(ctx, t, cs, "create_table", map[string]any{"Definition": def}, nil)
	mcpCall(ctx, t, cs, "put_item", map[string]any{"TableName": "Users", "Item": map[string]any{"id": map[string]any{"S": "u1"}}}, nil)
	var q struct{ Count int }
	mcpCall(ctx, t, cs, "query", map[string]any{"TableName": "Users", "KeyConditionExpression": "id = :id",
		"ExpressionAttributeValues": map[string]any{":id": map[string]any{"S": "u1"}}}, &q)
	if q.Count != 1 {
		t.Errorf("query Count %d, want 1", q.Count)
	}
	var rep struct {
		Patterns []struct{ Requests, Throttled int }
		Summary  []string
	}
	mcpCall(ctx, t, cs, "evaluate_data_model", map[string]any{"Table": def, "Seconds": 2, "AccessPatterns": []any{
		map[string]any{"Name": "sign in", "Operation": "GetItem", "RatePerSecond": 50}}}, &rep)
	if len(rep.Patterns) != 1 || rep.Patterns[0].Requests != 100 || rep.Patterns[0].Throttled != 0 || len(rep.Summary) == 0 {
		t.Errorf("report %+v, want 100 unthrottled GetItems and a summary", rep)
	}
}

// mcpCall calls tool and decodes its structured result into out, failing
// the test on an error.
func mcpCall(ctx context.Context, t *testing.T, cs *sdk.ClientSession, tool string, args, out any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	data, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		b, _ := json.Marshal(res.Content)
		t.Fatalf("%s: %s", tool, b)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
}

// TestMCPStreamableHTTP runs `ddblocal mcp --http --read-only` and talks to
// it with the SDK's streamable HTTP client: the write tools are left out,
// the read tools answer, and SIGTERM stops the command.
func TestMCPStreamableHTTP(t *testing.T) {
	bin := binaryPath(t)
	if signedPass() {
		t.Skip("the unsigned pass ran the mcp command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--http", "127.0.0.1:0", "--read-only")
	cmd.Env = testEnv(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url := ""
	sc := bufio.NewScanner(stderr)
	for url == "" && sc.Scan() {
		_, url, _ = strings.Cut(sc.Text(), "streamable HTTP on ")
	}
	if url == "" {
		t.Fatalf("no address on stderr: %v", sc.Err())
	}
	go io.Copy(io.Discard, stderr)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "integration", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "put_item" || tl.Name == "create_table" {
			t.Errorf("read-only server offers %s", tl.Name)
		}
	}
	var lt struct{ TableNames []string }
	mcpCall(ctx, t, cs, "list_tables", map[string]any{}, &lt)
	if len(lt.TableNames) != 0 {
		t.Errorf("list_tables on a fresh in-memory server: %v", lt.TableNames)
	}
	cs.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("ddblocal mcp --http after SIGTERM: %v, want exit status 0", err)
	}
}
