package streams

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Source is the Streams API a trigger reads (table.Service).
type Source interface {
	ListStreams(ctx context.Context, region string, in *ListStreamsInput) (*ListStreamsOutput, error)
	DescribeStream(ctx context.Context, region string, in *DescribeStreamInput) (*DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, region string, in *GetShardIteratorInput) (*GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, region string, in *GetRecordsInput) (*GetRecordsOutput, error)
}

// TriggerConfig is a local trigger: deliver table's stream to URL, as the
// event Lambda gives a DynamoDB stream handler.
type TriggerConfig struct {
	Table            string `json:"table"`
	Region           string `json:"region,omitempty"`           // default us-east-1
	URL              string `json:"url"`                        // http(s) endpoint that takes POSTed events
	BatchSize        int    `json:"batchSize,omitempty"`        // 1..10000, default 100
	StartingPosition string `json:"startingPosition,omitempty"` // TRIM_HORIZON or LATEST (default)
}

// TriggerStatus is a trigger as GET /_ddblocal/triggers lists it.
type TriggerStatus struct {
	ID string `json:"id"`
	TriggerConfig
	StreamArn string `json:"streamArn"`
	// Positions maps each shard to the sequence number of the last record
	// delivered from it.
	Positions map[string]string `json:"positions"`
	Delivered int               `json:"delivered"` // records delivered
	Attempts  int               `json:"attempts"`  // POSTs, failed ones included
	LastError string            `json:"lastError,omitempty"`
}

// Delivery timing: how often an idle trigger polls, how long a POST may
// take, and the bounds of the backoff between retries of a failed batch.
const (
	triggerPoll       = 50 * time.Millisecond
	triggerTimeout    = 10 * time.Second
	triggerBackoffMin = 100 * time.Millisecond
	triggerBackoffMax = 5 * time.Second
)

// Triggers runs local triggers, each on its own goroutine. Its methods are
// safe for concurrent use; Close stops every goroutine.
type Triggers struct {
	src    Source
	client *http.Client
	log    *slog.Logger

	mu     sync.Mutex
	next   int
	all    map[string]*trigger
	closed bool
	wg     sync.WaitGroup
}

// NewTriggers returns an empty set of triggers reading src. logger may be nil.
func NewTriggers(src Source, logger *slog.Logger) *Triggers {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Triggers{src: src, client: &http.Client{Timeout: triggerTimeout}, log: logger, all: map[string]*trigger{}}
}

// trigger is one running trigger; mu guards status.
type trigger struct {
	mu     sync.Mutex
	status TriggerStatus
	done   map[string]bool // shards drained (closed and delivered)
	cancel context.CancelFunc
}

// Add validates cfg, finds the table's enabled stream and starts delivering.
// It returns the new trigger's status, or an error saying what is wrong.
func (ts *Triggers) Add(ctx context.Context, cfg TriggerConfig) (TriggerStatus, error) {
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 100
	}
	if cfg.StartingPosition == "" {
		cfg.StartingPosition = "LATEST"
	}
	switch {
	case cfg.Table == "" || cfg.URL == "":
		return TriggerStatus{}, fmt.Errorf(`"table" and "url" are required`)
	case cfg.BatchSize < 1 || cfg.BatchSize > 10000:
		return TriggerStatus{}, fmt.Errorf(`"batchSize" must be 1..10000`)
	case cfg.StartingPosition != "LATEST" && cfg.StartingPosition != "TRIM_HORIZON":
		return TriggerStatus{}, fmt.Errorf(`"startingPosition" must be LATEST or TRIM_HORIZON`)
	}
	ls, err := ts.src.ListStreams(ctx, cfg.Region, &ListStreamsInput{TableName: cfg.Table})
	if err != nil {
		return TriggerStatus{}, err
	}
	if len(ls.Streams) == 0 {
		return TriggerStatus{}, fmt.Errorf("table %s has no stream", cfg.Table)
	}
	arn := ls.Streams[len(ls.Streams)-1].StreamArn
	t := &trigger{status: TriggerStatus{TriggerConfig: cfg, StreamArn: arn, Positions: map[string]string{}}, done: map[string]bool{}}
	// LATEST is taken now: every shard's current end.
	if cfg.StartingPosition == "LATEST" {
		if err := ts.markLatest(ctx, t); err != nil {
			return TriggerStatus{}, err
		}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return TriggerStatus{}, fmt.Errorf("server is shutting down")
	}
	ts.next++
	t.status.ID = strconv.Itoa(ts.next)
	ts.all[t.status.ID] = t
	run, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	ts.wg.Add(1)
	go func() {
		defer ts.wg.Done()
		ts.run(run, t)
	}()
	return t.snapshot(), nil
}

// markLatest records, for a trigger starting at LATEST, each shard's current
// last record as delivered (a closed shard as done).
func (ts *Triggers) markLatest(ctx context.Context, t *trigger) error {
	shards, err := ts.shards(ctx, t)
	if err != nil {
		return err
	}
	for _, sh := range shards {
		if sh.SequenceNumberRange.EndingSequenceNumber != "" {
			t.done[sh.ShardId] = true
			continue
		}
		it, err := ts.src.GetShardIterator(ctx, t.status.Region, &GetShardIteratorInput{StreamArn: t.status.StreamArn, ShardId: sh.ShardId, ShardIteratorType: "LATEST"})
		if err != nil {
			return err
		}
		// The position before LATEST: an AFTER iterator from it reads what
		// comes next.
		first, _ := parseSequence(sh.SequenceNumberRange.StartingSequenceNumber)
		if i, ok := parseIterator(it.ShardIterator); ok && i.next > first {
			t.status.Positions[sh.ShardId] = SequenceNumber(i.next - 1)
		}
	}
	return nil
}

// List returns every trigger's status, by id.
func (ts *Triggers) List() []TriggerStatus {
	ts.mu.Lock()
	out := make([]TriggerStatus, 0, len(ts.all))
	for _, t := range ts.all {
		out = append(out, t.snapshot())
	}
	ts.mu.Unlock()
	slices.SortFunc(out, func(a, b TriggerStatus) int { x, _ := strconv.Atoi(a.ID); y, _ := strconv.Atoi(b.ID); return x - y })
	return out
}

// Remove stops and forgets trigger id; it reports whether there was one.
func (ts *Triggers) Remove(id string) bool {
	ts.mu.Lock()
	t, ok := ts.all[id]
	delete(ts.all, id)
	ts.mu.Unlock()
	if ok {
		t.cancel()
	}
	return ok
}

// Close stops every trigger and waits for their goroutines.
func (ts *Triggers) Close() {
	ts.mu.Lock()
	ts.closed = true
	for _, t := range ts.all {
		t.cancel()
	}
	ts.mu.Unlock()
	ts.wg.Wait()
}

func (t *trigger) snapshot() TriggerStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.status
	st.Positions = make(map[string]string, len(t.status.Positions))
	for k, v := range t.status.Positions {
		st.Positions[k] = v
	}
	return st
}
