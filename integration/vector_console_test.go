package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	ddbserver "github.com/ddblocal/ddblocal/server"
)

// TestConsoleVectorIndexes: the console's table list describes a table's
// vector indexes, and its insights pane lists each with its vectors and
// largest search partitions, and offers it in the partition view.
func TestConsoleVectorIndexes(t *testing.T) {
	if signedPass() {
		t.Skip("the console test starts its own server; the unsigned pass runs it")
	}
	browser := startBrowser(t, chromiumPath(t))
	srv, c := startConsoleServer(t, ddbserver.Options{}, "local", "local")
	createVectorTable(t, c, "Docs", tenantDefs, vecIndex("byTenant", 3, types.VectorDistanceFunctionCosine, tenantSchema()...))
	for i := 0; i < 4; i++ {
		mustPut(t, c, "Docs", map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "emb": vecList([]float32{1, float32(i), 0}),
			"tenant": s([]string{"acme", "acme", "acme", "globex"}[i])})
	}
	p := openConsole(browser, t, srv.URL())
	entry := `#tables button[data-table="Docs"]`
	p.waitFor("the table list", `document.querySelector('`+entry+`')`)
	if got, want := p.text("tables"), "VECTOR byTenant: emb (3 dims, COSINE) · tenant (hash) · kind (filter)"; !strings.Contains(got, want) {
		t.Errorf("table list %q, want it to contain %q", got, want)
	}
	p.click(entry)
	p.waitFor("the vector index insights", `document.getElementById("vector-indexes").textContent.includes("byTenant")`)
	if got, want := p.text("vector-indexes"), "byTenant 4 vectors · 3 dims COSINE · 48 bytes · 2 search partitions by tenant; largest: acme 3, globex 1"; got != want {
		t.Errorf("vector indexes %q, want %q", got, want)
	}
	// The partition view offers the vector index beside the table, its
	// partitions holding the vectors.
	p.waitFor("the vector index among the partition view's indexes",
		`[...document.getElementById("hm-index").options].some((o) => o.value === "byTenant")`)
	p.noPageErrors()
}
