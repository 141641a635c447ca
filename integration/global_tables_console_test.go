package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/chromedp/chromedp"

	ddbserver "github.com/ddblocal/ddblocal/server"
)

// TestConsoleGlobalTable: the console shows a global table's replicas side
// by side (status and items as each Region's DescribeTable gives them, the
// replication into each), pauses and resumes a Region from its column, and
// counts and lists the conflicts resolved last-writer-wins, as
// /_ddblocal/replication does.
func TestConsoleGlobalTable(t *testing.T) {
	if signedPass() {
		t.Skip("the console test starts its own server; the unsigned pass runs it")
	}
	browser := startBrowser(t, chromiumPath(t))
	srv, us := startConsoleServer(t, ddbserver.Options{}, "local", "local")
	eu := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.URL()), Region: "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), Retryer: aws.NopRetryer{}}, readOnlyBodies)
	settle := func() {
		t.Helper()
		resp, err := http.Post(srv.URL()+"/_ddblocal/settle", "application/json", nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("settle: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	createTable(t, us, "glob", false)
	createTable(t, us, "solo", false)
	put(t, us, "glob", "a", "1")
	addReplica(t, us, "glob", "eu-west-1")
	settle()

	p := openConsole(browser, t, srv.URL())
	cell := func(region, row string) string {
		return `document.querySelector('#replicas td[data-region="` + region + `"][data-row="` + row + `"]')`
	}
	p.waitFor("the table list", `document.querySelector('#tables button[data-table="glob"]')`)
	p.click(`#tables button[data-table="glob"]`)
	p.waitFor("the replicas", cell("eu-west-1", "items")+` && `+cell("eu-west-1", "items")+`.textContent === "1"`)
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		if got := p.eval(cell(region, "status") + `.textContent`); got != "ACTIVE" {
			t.Errorf("%s status %q, want ACTIVE", region, got)
		}
		if got := p.eval(cell(region, "items") + `.textContent`); got != "1" {
			t.Errorf("%s items %q, want 1 (the copied item)", region, got)
		}
	}
	if got := p.eval(cell("eu-west-1", "incoming") + `.textContent`); got != "from us-east-1: 0 behind" {
		t.Errorf("eu-west-1 replicating in: %q, want from us-east-1: 0 behind", got)
	}
	p.click(`#tables button[data-table="solo"]`)
	if got := p.eval(`String(document.getElementById("global").hidden)`); got != "true" {
		t.Errorf("a regional table: global table view hidden %s, want true", got)
	}
	p.click(`#tables button[data-table="glob"]`)
	p.waitFor("the replicas again", cell("eu-west-1", "replication"))

	// Cut eu-west-1 off from its column, write the same item in both
	// Regions (eu-west-1 first), and let it catch up.
	p.click(`#replicas button[data-region="eu-west-1"]`)
	p.waitFor("eu-west-1 paused", cell("eu-west-1", "replication")+`.textContent.startsWith("paused")`)
	put(t, eu, "glob", "k", "eu-first")
	time.Sleep(5 * time.Millisecond) // the later write wins
	put(t, us, "glob", "k", "us-later")
	p.waitFor("the backlog", cell("eu-west-1", "incoming")+`.textContent.startsWith("from us-east-1: 1 behind, ")`)
	p.click(`#replicas button[data-region="eu-west-1"]`)
	p.waitFor("eu-west-1 resumed", `!`+cell("eu-west-1", "replication")+`.textContent.startsWith("paused")`)
	settle()
	p.waitFor("the conflict", `document.getElementById("conflict-count").textContent === "1"`)
	got := p.text("conflicts")
	if want := "pk = k won: us-east-1 at "; !strings.HasPrefix(got, want) || !strings.Contains(got, "discarded: eu-west-1 at ") || !strings.HasSuffix(got, "in us-east-1") {
		t.Errorf("conflicts %q, want the us-east-1 write winning over eu-west-1's, resolved in us-east-1", got)
	}
	if got := p.eval(cell("us-east-1", "conflicts") + `.textContent`); got != "1" {
		t.Errorf("conflicts resolved in us-east-1: %q, want 1", got)
	}
	for _, c := range []*dynamodb.Client{us, eu} {
		if v := value(t, c, "glob", "k"); v != "us-later" {
			t.Errorf("k = %q, want us-later in both Regions", v)
		}
	}
	p.noPageErrors()
}

// eval returns the string the JavaScript expression gives.
func (p *page) eval(expr string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, browserWait)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.fail("evaluating %s: %v", expr, err)
	}
	return s
}
