package integration

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// historyConfig sizes a history: DDBLOCAL_HISTORY=long runs the long
// version (minutes, more clients, more faults) whose figures are in
// docs/consistency.md; the default is CI's short one.
type historyConfig struct {
	histories int           // histories per test, each on a fresh server
	check     time.Duration // the checker's time limit per history and model
	clients   int           // concurrent SDK clients
	keys      int           // registers
	length    time.Duration // of one history
	faults    int           // faults injected per history
	lag       time.Duration // the servers' --eventual-lag: eventually consistent reads are checked against it
}

func historySize() historyConfig {
	if os.Getenv("DDBLOCAL_HISTORY") == "long" {
		return historyConfig{histories: 3, check: 5 * time.Minute, clients: 8, keys: 12, length: 45 * time.Second, faults: 8, lag: 300 * time.Millisecond}
	}
	return historyConfig{histories: 1, check: time.Minute, clients: 4, keys: 5, length: 5 * time.Second, faults: 2, lag: 300 * time.Millisecond}
}

// histClient is an SDK client that never retries: a retried write whose
// first attempt applied would look like a second write.
func histClient(url string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		Retryer:      aws.NopRetryer{},
	}, readOnlyBodies)
}

// createHistoryTables creates "hreg" (the registers, with a global index on
// g, which every write sets) and "htx" (the transactions' items).
func createHistoryTables(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{"hreg", "htx"} {
		in := &dynamodb.CreateTableInput{
			TableName:   aws.String(name),
			BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		}
		if name == "hreg" {
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{
				IndexName:  aws.String("byG"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("pk"), KeyType: types.KeyTypeRange}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}}
		}
		// Set-up, not history: a busy machine may time a request out, and
		// a retried creation may find the table made by the first.
		var err error
		for attempt := 0; attempt < 5; attempt++ {
			if _, err = c.CreateTable(ctx, in); err == nil || (attempt > 0 && strings.Contains(err.Error(), "ResourceInUseException")) {
				err = nil
				break
			}
			time.Sleep(time.Second)
		}
		if err != nil {
			t.Fatalf("CreateTable %s: %v", name, err)
		}
	}
}

// worker is one client of a history: it issues random operations through
// the client its pick function returns, until stop is closed.
type worker struct {
	id   int
	rng  *rand.Rand
	cfg  historyConfig
	reg  *recorder
	tx   *recorder
	pick func() *dynamodb.Client
	seq  int64
	seen map[int]int64 // last value this worker read or wrote per register
	txv  txState       // last values this worker read of the transaction items
	bad  func(format string, args ...any)
}

func (w *worker) unique() int64 {
	w.seq++
	return int64(w.id+1)<<32 | w.seq
}

func (w *worker) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		switch r := w.rng.IntN(12); {
		case r < 1 && w.cfg.lag > 0:
			w.get(false)
		case r < 3:
			w.get(true)
		case r < 4:
			w.put(regIn{op: regPut, key: w.rng.IntN(w.cfg.keys), v: w.unique()})
		case r < 6:
			k := w.rng.IntN(w.cfg.keys)
			w.put(regIn{op: regCas, key: k, v: w.unique(), exp: w.seen[k]})
		case r < 7:
			w.add()
		case r < 8:
			k := w.rng.IntN(w.cfg.keys)
			if w.seen[k] != 0 {
				w.put(regIn{op: regDel, key: k, exp: w.seen[k]})
			}
		case r < 10:
			w.txWrite()
		default:
			w.txGet()
		}
	}
}

func regKey(k int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s("r" + strconv.Itoa(k))}
}

func numberOf(item map[string]types.AttributeValue) int64 {
	if v, ok := item["v"].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	return 0
}

// get reads a register, strongly consistently or not (then as of
// --eventual-lag ago).
func (w *worker) get(strong bool) {
	k := w.rng.IntN(w.cfg.keys)
	ctx, cancel := opContext()
	defer cancel()
	call := w.reg.now()
	out, err := w.pick().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hreg"), Key: regKey(k), ConsistentRead: aws.Bool(strong)})
	if err != nil {
		return // a failed read changes nothing
	}
	v := numberOf(out.Item)
	if !strong {
		w.reg.addLagging(w.id, regIn{op: regGet, key: k}, regOut{v: v}, call, w.cfg.lag)
		return
	}
	w.reg.addRead(w.id, regIn{op: regGet, key: k}, regOut{v: v}, call)
	w.seen[k] = v
}

// condition returns the condition that the register holds exp.
func condition(exp int64) (*string, map[string]types.AttributeValue) {
	if exp == 0 {
		return aws.String("attribute_not_exists(pk)"), nil
	}
	return aws.String("v = :e"), map[string]types.AttributeValue{":e": n(strconv.FormatInt(exp, 10))}
}

// put issues a PutItem (conditional for cas) or a conditional DeleteItem.
func (w *worker) put(in regIn) {
	ctx, cancel := opContext()
	defer cancel()
	item := regKey(in.key)
	item["v"], item["g"] = n(strconv.FormatInt(in.v, 10)), s("all")
	call := w.reg.now()
	var err error
	switch in.op {
	case regPut:
		_, err = w.pick().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hreg"), Item: item})
	case regCas:
		cond, vals := condition(in.exp)
		_, err = w.pick().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hreg"), Item: item,
			ConditionExpression: cond, ExpressionAttributeValues: vals})
	case regDel:
		cond, vals := condition(in.exp)
		_, err = w.pick().DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hreg"), Key: regKey(in.key),
			ConditionExpression: cond, ExpressionAttributeValues: vals})
	}
	oc, ok := classify(err)
	if !ok {
		w.bad("%s: %v", describeReg(in, regOut{}), err)
		return
	}
	w.reg.add(w.id, in, regOut{oc: oc}, call, oc)
	if oc == applied {
		w.seen[in.key] = in.v
		if in.op == regDel {
			w.seen[in.key] = 0
		}
	}
}

func (w *worker) add() {
	in := regIn{op: regAdd, key: w.rng.IntN(w.cfg.keys), v: int64(1 + w.rng.IntN(3))}
	ctx, cancel := opContext()
	defer cancel()
	call := w.reg.now()
	out, err := w.pick().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hreg"), Key: regKey(in.key),
		UpdateExpression:          aws.String("ADD v :d SET g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": n(strconv.FormatInt(in.v, 10)), ":g": s("all")},
		ReturnValues:              types.ReturnValueUpdatedNew})
	oc, ok := classify(err)
	if !ok {
		w.bad("%s: %v", describeReg(in, regOut{}), err)
		return
	}
	res := regOut{oc: oc}
	if oc == applied {
		res.v = numberOf(out.Attributes)
		w.seen[in.key] = res.v
	}
	w.reg.add(w.id, in, res, call, oc)
}

func histTxKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s("t" + strconv.Itoa(i))}
}

// txWrite sets two of the transaction items if a third (or one of them)
// holds what this worker last read.
func (w *worker) txWrite() {
	var in txIn
	a, b := w.rng.IntN(txKeys), w.rng.IntN(txKeys-1)
	if b >= a {
		b++
	}
	in.set[a], in.set[b] = w.unique(), w.unique()
	in.cond = w.rng.IntN(txKeys)
	in.exp = w.txv[in.cond]
	var items []types.TransactWriteItem
	cond, vals := condition(in.exp)
	for i, v := range in.set {
		if v == 0 {
			continue
		}
		item := histTxKey(i)
		item["v"] = n(strconv.FormatInt(v, 10))
		p := &types.Put{TableName: aws.String("htx"), Item: item}
		if i == in.cond {
			p.ConditionExpression, p.ExpressionAttributeValues = cond, vals
		}
		items = append(items, types.TransactWriteItem{Put: p})
	}
	if in.set[in.cond] == 0 {
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String("htx"),
			Key: histTxKey(in.cond), ConditionExpression: cond, ExpressionAttributeValues: vals}})
	}
	ctx, cancel := opContext()
	defer cancel()
	call := w.tx.now()
	_, err := w.pick().TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	oc, ok := classify(err)
	if !ok {
		w.bad("TransactWriteItems: %v", err)
		return
	}
	w.tx.add(w.id, in, txOut{oc: oc}, call, oc)
}

func (w *worker) txGet() {
	gets := make([]types.TransactGetItem, txKeys)
	for i := range gets {
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String("htx"), Key: histTxKey(i)}}
	}
	ctx, cancel := opContext()
	defer cancel()
	call := w.tx.now()
	out, err := w.pick().TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
	if err != nil {
		return
	}
	var vals txState
	for i, r := range out.Responses {
		vals[i] = numberOf(r.Item)
	}
	w.tx.addRead(w.id, txIn{get: true}, txOut{vals: vals}, call)
	w.txv = vals
}

// history runs cfg.clients workers (worker i through pick(i)) while faults
// runs, stops them when it returns, and checks both histories.
func runHistory(t *testing.T, cfg historyConfig, seed uint64, pick func(i int) func() *dynamodb.Client, faults func(stop <-chan struct{}, reg, tx *recorder)) {
	t.Helper()
	reg, tx := newRecorder(), newRecorder()
	tx.start = reg.start
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad atomic.Int32
	for i := range cfg.clients {
		w := &worker{id: i, rng: rand.New(rand.NewPCG(seed, uint64(i))), cfg: cfg, reg: reg, tx: tx, pick: pick(i),
			seen: map[int]int64{}, bad: func(format string, args ...any) {
				if bad.Add(1) <= 5 {
					t.Errorf("worker %d: unexpected error: "+format, append([]any{i}, args...)...)
				}
			}}
		wg.Go(func() { w.run(stop) })
	}
	faults(stop, reg, tx)
	close(stop)
	wg.Wait()
	t.Logf("registers: %s", reg.summary())
	t.Logf("transactions: %s", tx.summary())
	start := time.Now()
	reg.check(t, "registers", registerModel(), cfg.check)
	tx.check(t, "transactions", txModel(), cfg.check)
	t.Logf("checked in %s", time.Since(start).Round(time.Millisecond))
}

// checkIndexConverges waits until the global index byG of "hreg" holds
// exactly the table's items (ConsistentRead scan of the table, the index
// after /_ddblocal/settle).
func checkIndexConverges(t *testing.T, url string) {
	t.Helper()
	c := histClient(url)
	ctx := context.Background()
	resp, err := http.Post(url+"/_ddblocal/settle", "application/json", nil)
	if err != nil {
		t.Fatalf("settle: %v", err)
	}
	resp.Body.Close()
	base, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hreg"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("Scan reg: %v", err)
	}
	idx, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hreg"), IndexName: aws.String("byG")})
	if err != nil {
		t.Fatalf("Scan byG: %v", err)
	}
	want, got := itemValues(base.Items), itemValues(idx.Items)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("global index byG after settle = %v, want the table's %v", got, want)
	}
}

// itemValues maps each item's pk to its v.
func itemValues(items []map[string]types.AttributeValue) map[string]int64 {
	out := map[string]int64{}
	for _, it := range items {
		out[it["pk"].(*types.AttributeValueMemberS).Value] = numberOf(it)
	}
	return out
}

// sleepOrStop waits d, or less if stop is closed.
func sleepOrStop(stop <-chan struct{}, d time.Duration) {
	select {
	case <-stop:
	case <-time.After(d):
	}
}

// TestLinearizableDurable: histories against the durable single process
// (the binary, bbolt and its write-ahead log) killed with SIGKILL and
// restarted several times while the clients run.
func TestLinearizableDurable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	cfg := historySize()
	for h := range cfg.histories {
		t.Run(fmt.Sprint("history", h), func(t *testing.T) {
			dir := t.TempDir()
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
			l.Close()
			args := []string{"--host", "127.0.0.1", "--port", port, "--db-path", filepath.Join(dir, "h.db"), "--eventual-lag", cfg.lag.String()}
			p := startBinary(t, dir, nil, args...)
			url := p.URL
			createHistoryTables(t, histClient(url))
			client := histClient(url)
			kills := 0
			runHistory(t, cfg, uint64(time.Now().UnixNano()), func(int) func() *dynamodb.Client {
				return func() *dynamodb.Client { return client }
			}, func(_ <-chan struct{}, reg, tx *recorder) {
				every := cfg.length / time.Duration(cfg.faults+1)
				for range cfg.faults {
					time.Sleep(every)
					p.kill()
					at := reg.now()
					reg.crashed(at)
					tx.crashed(at)
					kills++
					time.Sleep(100 * time.Millisecond)
					p = startBinary(t, dir, nil, args...)
				}
				time.Sleep(every)
			})
			t.Logf("%d SIGKILLs and restarts", kills)
			checkIndexConverges(t, url)
			p.stopOK()
		})
	}
}

// frontEnd is an in-process cluster front-end that a test can kill.
type frontEnd struct {
	URL  string
	kill func()
}

func startKillableFrontEnd(t *testing.T, endpoints []string, prefix string, lag time.Duration) *frontEnd {
	t.Helper()
	db, err := store.Open(store.Options{Etcd: &store.EtcdOptions{Endpoints: endpoints, Prefix: prefix, DialTimeout: etcdDial}})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, table.Options{EventualLag: consistency.Lag{Min: lag, Max: lag}})
	// Internal errors (an etcd that did not answer in time) go to the test's
	// output, to be read when a history fails.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	cfg := api.Config{Addr: "localhost:8000", Verifier: testVerifier(), Logger: logger, Admin: admin.Handler(admin.Config{Settle: svc.Settle})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	var once sync.Once
	kill := func() {
		once.Do(func() {
			ts.CloseClientConnections()
			ts.Close()
			db.Interrupt()
			svc.Close()
			db.Close()
		})
	}
	t.Cleanup(kill)
	return &frontEnd{URL: ts.URL, kill: kill}
}

// TestLinearizableCluster: histories against three front-ends over a
// three-member etcd, while etcd's leader is stopped, one front-end is cut
// from etcd for a few seconds (a proxy pauses its traffic), and one
// front-end is killed (its clients move to another).
func TestLinearizableCluster(t *testing.T) {
	cfg := historySize()
	cfg.faults = max(cfg.faults, 3) // one of each
	for h := range cfg.histories {
		t.Run(fmt.Sprint("history", h), func(t *testing.T) {
			c := etcdtest.StartT(t, 3)
			var proxies []*etcdtest.Proxy
			var viaProxy []string
			for _, m := range c.Members {
				px, err := etcdtest.NewProxy(strings.TrimPrefix(m.ClientURL, "http://"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(px.Close)
				proxies = append(proxies, px)
				viaProxy = append(viaProxy, "http://"+px.Addr)
			}
			fes := []*frontEnd{
				startKillableFrontEnd(t, viaProxy, "lin/", cfg.lag),
				startKillableFrontEnd(t, c.Endpoints(), "lin/", cfg.lag),
				startKillableFrontEnd(t, c.Endpoints(), "lin/", cfg.lag),
			}
			clients := make([]*dynamodb.Client, len(fes))
			for i, fe := range fes {
				clients[i] = histClient(fe.URL)
			}
			createHistoryTables(t, clients[1])
			var killed atomic.Bool
			pick := func(i int) func() *dynamodb.Client {
				return func() *dynamodb.Client {
					fe := i % len(fes)
					if fe == 2 && killed.Load() {
						fe = 1
					}
					return clients[fe]
				}
			}
			var injected []string
			runHistory(t, cfg, uint64(time.Now().UnixNano()), pick, func(stop <-chan struct{}, _, _ *recorder) {
				every := cfg.length / time.Duration(cfg.faults+1)
				for f := range cfg.faults {
					time.Sleep(every)
					switch f % 3 {
					case 0:
						if m := leaderOf(c); m != nil && len(c.Endpoints()) == 3 {
							m.Stop()
							injected = append(injected, "etcd leader "+m.Name+" stopped")
						}
					case 1:
						for _, px := range proxies {
							px.Pause()
						}
						time.Sleep(2 * time.Second)
						for _, px := range proxies {
							px.Resume()
						}
						injected = append(injected, "front-end 0 cut from etcd for 2s")
					case 2:
						if !killed.Load() {
							killed.Store(true)
							fes[2].kill()
							injected = append(injected, "front-end 2 killed")
						}
					}
				}
				time.Sleep(every)
			})
			t.Logf("faults: %s", strings.Join(injected, "; "))
			checkIndexConverges(t, fes[1].URL)
		})
	}
}

// leaderOf returns c's leader, or nil while it has none.
func leaderOf(c *etcdtest.Cluster) *etcdtest.Member {
	for _, m := range c.Members {
		if m.IsLeader() {
			return m
		}
	}
	return nil
}
