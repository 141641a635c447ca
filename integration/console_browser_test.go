package integration

// The web console (/_ddblocal/console) driven in a real headless browser:
// Debian's chromium through the DevTools protocol (github.com/chromedp/
// chromedp). .ci/run installs chromium and sets DDBLOCAL_CI=1, under which
// a missing browser fails the test; elsewhere it is skipped with a message.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/chromedp/chromedp"

	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/clock"
	ddbserver "github.com/ddblocal/ddblocal/server"
	"github.com/ddblocal/ddblocal/table"
)

// browserWait bounds each wait for the page; the whole test takes a few
// seconds when nothing is wrong.
const browserWait = 20 * time.Second

// chromiumPath returns the browser to drive, skipping (or, in CI, failing)
// when there is none.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	needRuntime(t, "chromium", "apt-get install chromium", false)
	return ""
}

// page is one browser tab on the console, with the messages it logged.
type page struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	log []string
}

// startBrowser starts a headless chromium, stopped when the test ends, and
// returns a context whose children open tabs in it.
func startBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe),
		// Tests run as root in CI containers, where chromium's sandbox
		// cannot start; the page is our own.
		chromedp.NoSandbox)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// openConsole opens the console of the server at url in a new tab of the
// browser, closed when the test ends.
func openConsole(browser context.Context, t *testing.T, url string) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.log = append(p.log, m.String())
			p.mu.Unlock()
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/_ddblocal/console")); err != nil {
		t.Fatalf("opening the console: %v", err)
	}
	return p
}

// fail stops the test with what the page shows and logged.
func (p *page) fail(format string, args ...any) {
	p.t.Helper()
	state, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](
		`["status", "stat-count", "stat-scanned", "stat-page", "q-error", "insights-status", "heatmap", "editor-error"].map((id) => id + ": " + (document.getElementById(id) || {}).textContent).join("\n")`))
	p.mu.Lock()
	log := strings.Join(p.log, "\n")
	p.mu.Unlock()
	p.t.Fatalf("%s\npage:\n%s\nbrowser log:\n%s", fmt.Sprintf(format, args...), state, log)
}

// do runs the actions, failing the test on an error.
func (p *page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail("%s: %v", what, err)
	}
}

// waitFor waits until the JavaScript expression is truthy.
func (p *page) waitFor(what, expr string) {
	p.t.Helper()
	p.do("waiting for "+what, chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(browserWait))(ctx, tg)
		return chromedp.Void{}, err
	}))
}

// text returns the text of the element with the id.
func (p *page) text(id string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, browserWait)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById(`+strconv.Quote(id)+`).textContent`))
	if err != nil {
		p.fail("reading #%s: %v", id, err)
	}
	return s
}

// set gives the form control with the id a value, as typing or choosing
// would (input and change events fire).
func (p *page) set(id, value string) {
	p.t.Helper()
	p.do("setting #"+id, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const el = document.getElementById(%s); el.value = %s;
		  el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); })()`,
		strconv.Quote(id), strconv.Quote(value))))
}

// click clicks the element the CSS selector finds first, once it is visible.
func (p *page) click(sel string) {
	p.t.Helper()
	p.do("clicking "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// noPageErrors fails the test if the page threw or broke its security policy.
func (p *page) noPageErrors() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.log {
		if strings.HasPrefix(m, string(chromedp.ConsoleException)) || strings.Contains(m, "Content Security Policy") {
			p.mu.Unlock()
			p.fail("the page logged %q", m)
		}
	}
}

// consoleOrders creates Orders (customer S, order N; GSIs byStatus, all
// attributes, and byStatusKeys, keys only) with
// orders 1-5 of customers c1-c4, odd orders "open", even ones "closed".
func consoleOrders(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("Orders"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("customer"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("order"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("customer"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("order"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byStatus"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("order"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}, {
			IndexName: aws.String("byStatusKeys"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for cu := 1; cu <= 4; cu++ {
		for o := 1; o <= 5; o++ {
			st := map[bool]string{true: "open", false: "closed"}[o%2 == 1]
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{
				"customer": &types.AttributeValueMemberS{Value: fmt.Sprintf("c%d", cu)},
				"order":    &types.AttributeValueMemberN{Value: strconv.Itoa(o)},
				"status":   &types.AttributeValueMemberS{Value: st},
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// startConsoleServer starts the real server (as the command wires it) and
// returns it with an SDK client signing as key/secret.
func startConsoleServer(t *testing.T, opts ddbserver.Options, key, secret string) (*ddbserver.Server, *dynamodb.Client) {
	t.Helper()
	opts.InMemory, opts.Host = true, "127.0.0.1"
	s, err := ddbserver.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(s.URL()), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, ""), Retryer: aws.NopRetryer{}}, readOnlyBodies)
	return s, c
}

func TestConsoleInBrowser(t *testing.T) {
	if signedPass() {
		t.Skip("the console test starts its own servers, with and without --credentials; the unsigned pass runs it")
	}
	browser := startBrowser(t, chromiumPath(t))
	t.Run("NoCredentials", func(t *testing.T) { consoleWithoutCredentials(browser, t) })
	t.Run("Credentials", func(t *testing.T) { consoleWithCredentials(browser, t) })
	t.Run("Throttled", func(t *testing.T) { consoleThrottled(browser, t) })
}

// cells returns the text of each cell of the item browser's result rows
// under the named columns.
func (p *page) cells(cols ...string) [][]string {
	p.t.Helper()
	q, _ := json.Marshal(cols)
	rows, err := chromedp.Run(p.ctx, chromedp.Evaluate[[][]string](`(() => {
		const head = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent);
		return [...document.querySelectorAll("#results tbody tr")].map((tr) =>
			`+string(q)+`.map((c) => tr.cells[head.indexOf(c)].textContent)); })()`))
	if err != nil {
		p.fail("reading the results: %v", err)
	}
	return rows
}

// runQuery fills the item browser's form and runs it, waiting until the
// page shows count and scanned.
func (p *page) runQuery(fields map[string]string, count, scanned int32) {
	p.t.Helper()
	for _, id := range []string{"q-mode", "q-index", "q-pk", "q-sk-op", "q-filter", "q-names", "q-values", "q-limit"} {
		p.set(id, fields[id])
	}
	p.click("#q-run")
	p.waitFor(fmt.Sprintf("Count %d, ScannedCount %d", count, scanned), fmt.Sprintf(
		`document.getElementById("stat-count").textContent === "%d" && document.getElementById("stat-scanned").textContent === "%d"`,
		count, scanned))
}

func consoleWithoutCredentials(browser context.Context, t *testing.T) {
	s, c := startConsoleServer(t, ddbserver.Options{}, "local", "local")
	consoleOrders(t, c)
	p := openConsole(browser, t, s.URL())

	// The table list shows keys and indexes.
	entry := `#tables button[data-table="Orders"]`
	p.waitFor("the table list", `document.querySelector('`+entry+`')`)
	got := p.text("tables")
	for _, want := range []string{"customer (S) · order (N, sort)", "GSI byStatus: status (S) · order (N, sort)"} {
		if !strings.Contains(got, want) {
			t.Errorf("table list %q, want it to contain %q", got, want)
		}
	}
	p.click(entry)
	p.waitFor("the first Scan", `document.getElementById("stat-count").textContent === "20"`)

	// A Query with a filter: Count, ScannedCount and units as the SDK sees them.
	out, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("Orders"),
		KeyConditionExpression: aws.String("customer = :c"), FilterExpression: aws.String("#st = :st"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: "c1"}, ":st": &types.AttributeValueMemberS{Value: "open"}},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	p.runQuery(map[string]string{"q-mode": "Query", "q-pk": "c1", "q-filter": "#st = :st",
		"q-names": `{"#st":"status"}`, "q-values": `{":st":{"S":"open"}}`}, out.Count, out.ScannedCount)
	if got, want := p.text("stat-units"), strconv.FormatFloat(*out.ConsumedCapacity.CapacityUnits, 'f', -1, 64); got != want {
		t.Errorf("consumed units shown %q, want %q", got, want)
	}
	if got, want := fmt.Sprint(p.cells("customer", "order", "status")), "[[c1 1 open] [c1 3 open] [c1 5 open]]"; got != want {
		t.Errorf("query results %s, want %s", got, want)
	}

	// Paging follows LastEvaluatedKey.
	p.runQuery(map[string]string{"q-mode": "Query", "q-pk": "c2", "q-limit": "2"}, 2, 2)
	p.waitFor("page 1 of several", `document.getElementById("stat-page").textContent === "page 1, more"`)
	p.click("#q-next:enabled")
	p.waitFor("page 2", `document.getElementById("stat-page").textContent === "page 2, more"`)
	if got, want := fmt.Sprint(p.cells("order")), "[[3] [4]]"; got != want {
		t.Errorf("page 2 %s, want %s", got, want)
	}

	// A Query on the GSI.
	p.runQuery(map[string]string{"q-mode": "Query", "q-index": "byStatus", "q-pk": "closed"}, 8, 8)

	consoleEditItem(t, p, c, s.URL())
	consoleHeatMap(p, s.URL())
	p.noPageErrors()
}

// consoleEditItem creates an item with the editor, edits it from a row of
// a keys-only index, and deletes it from the results, checking each step
// through the SDK.
func consoleEditItem(t *testing.T, p *page, c *dynamodb.Client, url string) {
	p.runQuery(map[string]string{"q-mode": "Query", "q-pk": "c9"}, 0, 0)
	p.click("#item-new")
	p.set("editor-json", `{"customer":{"S":"c9"},"order":{"N":"1"},"status":{"S":"open"},"note":{"S":"<b>bold?</b>"}}`)
	p.click("#editor-save")
	p.waitFor("the new item in the results", `document.getElementById("stat-count").textContent === "1"`)
	if got, want := fmt.Sprint(p.cells("customer", "note")), "[[c9 <b>bold?</b>]]"; got != want {
		t.Errorf("new item shown as %s, want %s (as text)", got, want)
	}
	wantNote(t, c, "<b>bold?</b>")

	// Editing a row of a keys-only index edits the whole item.
	resp, err := http.Post(url+"/_ddblocal/settle", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p.runQuery(map[string]string{"q-mode": "Query", "q-index": "byStatusKeys", "q-pk": "open", "q-filter": "#c = :c",
		"q-names": `{"#c":"customer"}`, "q-values": `{":c":{"S":"c9"}}`}, 1, 13)
	p.click("#results .edit")
	p.waitFor("the whole item in the editor", `document.getElementById("editor").open &&
		document.getElementById("editor-json").value.includes("bold?")`)
	p.set("editor-json", `{"customer":{"S":"c9"},"order":{"N":"1"},"status":{"S":"open"},"note":{"S":"edited"}}`)
	p.click("#editor-save")
	p.waitFor("the editor closed", `!document.getElementById("editor").open`)
	wantNote(t, c, "edited")

	p.runQuery(map[string]string{"q-mode": "Query", "q-pk": "c9"}, 1, 1)
	p.click("#results .delete")
	p.click("#results .delete.armed")
	p.waitFor("the item gone from the results", `document.getElementById("stat-count").textContent === "0"`)
	wantNote(t, c, "")
}

// wantNote checks the note of Orders c9/1 ("" for no item).
func wantNote(t *testing.T, c *dynamodb.Client, want string) {
	t.Helper()
	key := map[string]types.AttributeValue{"customer": &types.AttributeValueMemberS{Value: "c9"}, "order": &types.AttributeValueMemberN{Value: "1"}}
	got, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	note, _ := got.Item["note"].(*types.AttributeValueMemberS)
	switch {
	case want == "" && got.Item != nil:
		t.Errorf("Orders c9/1 after the console's DeleteItem: %v, want none", got.Item)
	case want != "" && (note == nil || note.Value != want):
		t.Errorf("Orders c9/1 after the console's PutItem: %v, want note %q", got.Item, want)
	}
}

// consoleHeatMap waits for the heat map to show load on some partition,
// and for the top keys and amplification to render. With url (a server
// without --credentials) it also checks that the heat map has a row of 30
// cells per partition of the insights the server reports for Orders.
func consoleHeatMap(p *page, url string) {
	p.t.Helper()
	p.waitFor("heat map cells with load", `(() => { const cells = [...document.querySelectorAll("#heatmap .cell")];
		return cells.length >= 30 && cells.some((c) => +c.dataset.value > 0); })()`)
	p.waitFor("top keys", `document.querySelector("#top-units li code")`)
	p.waitFor("amplification", `document.querySelectorAll("#amplification dt").length === 5`)
	if url == "" {
		return
	}
	resp, err := http.Get(url + "/_ddblocal/insights?table=Orders")
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Indexes []struct {
			Index      string            `json:"index"`
			Partitions []json.RawMessage `json:"partitions"`
		} `json:"indexes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || len(doc.Indexes) == 0 || doc.Indexes[0].Index != "" {
		p.t.Fatalf("GET /_ddblocal/insights?table=Orders: %v, %+v; want the base table first", err, doc)
	}
	n := len(doc.Indexes[0].Partitions)
	p.waitFor(fmt.Sprintf("%d heat map rows of 30 cells and %d partition rows", n, n), fmt.Sprintf(
		`document.querySelectorAll("#heatmap .cell").length === %d && document.querySelectorAll("#partitions tbody tr").length === %d`, 30*n, n))
}

func consoleWithCredentials(browser context.Context, t *testing.T) {
	cred := auth.Credential{AccessKey: "AKIDCONSOLE", Secret: "console/secret+1", Account: auth.DefaultAccount}
	s, c := startConsoleServer(t, ddbserver.Options{Verifier: auth.NewVerifier([]auth.Credential{cred}, nil)},
		cred.AccessKey, cred.Secret)
	consoleOrders(t, c)
	p := openConsole(browser, t, s.URL())

	// The default key is refused; the page asks for credentials.
	p.waitFor("the credentials prompt", `document.getElementById("creds").open &&
		document.getElementById("status").textContent.includes("UnrecognizedClientException")`)
	// A wrong secret: the server checks the browser's signature.
	p.set("access-key", cred.AccessKey)
	p.set("secret-key", "not the secret")
	p.click("#creds-use")
	p.waitFor("the signature refused", `document.getElementById("status").textContent.includes("InvalidSignatureException")`)
	p.set("secret-key", cred.Secret)
	p.click("#creds-use")
	entry := `#tables button[data-table="Orders"]`
	p.waitFor("the table list", `document.querySelector('`+entry+`')`)
	p.click(entry)
	p.waitFor("the first Scan", `document.getElementById("stat-count").textContent === "20"`)
	p.runQuery(map[string]string{"q-mode": "Query", "q-pk": "c3"}, 5, 5)
	consoleHeatMap(p, "")
	p.noPageErrors()
}

// consoleThrottled shows a hot key's throttles. The server throttles every
// table at 1% of DynamoDB's limits on a frozen clock, so a partition takes
// 10 writes of one key and throttles the next ones; the console's heat map
// marks that partition's cell and lists the key first by throttles.
func consoleThrottled(browser context.Context, t *testing.T) {
	clk := clock.Manual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s, c := startConsoleServer(t, ddbserver.Options{Clock: clk, Table: table.Options{Throttling: true, CapacityScale: 0.01}}, "local", "local")
	createTable(t, c, "Hot", false)
	if n, _ := countThrottled(t, 15, func(int) error { return putPK(c, "Hot", "k", nil) }); n == 0 {
		t.Fatal("15 writes of one key at 1% capacity: none throttled")
	}
	p := openConsole(browser, t, s.URL())
	entry := `#tables button[data-table="Hot"]`
	p.waitFor("the table list", `document.querySelector('`+entry+`')`)
	p.click(entry)
	p.waitFor("a throttled heat map cell", `document.querySelector("#heatmap .cell.throttled")`)
	p.waitFor("k first by throttles", `(document.querySelector("#top-throttles li code") || {}).textContent === "k"`)
	p.noPageErrors()
}
