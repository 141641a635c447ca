package streams

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// run is a trigger's goroutine: it delivers every shard whose parent is
// done, in order, until ctx ends.
func (ts *Triggers) run(ctx context.Context, t *trigger) {
	for ctx.Err() == nil {
		delivered, err := ts.pass(ctx, t)
		if err != nil && ctx.Err() == nil {
			t.mu.Lock()
			t.status.LastError = err.Error()
			t.mu.Unlock()
		}
		if delivered == 0 || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(triggerPoll):
			}
		}
	}
}

// shards lists the trigger's stream's shards, every page.
func (ts *Triggers) shards(ctx context.Context, t *trigger) ([]ShardDescription, error) {
	var all []ShardDescription
	var start string
	for {
		d, err := ts.src.DescribeStream(ctx, t.status.Region, &DescribeStreamInput{StreamArn: t.status.StreamArn, ExclusiveStartShardId: start})
		if err != nil {
			return nil, err
		}
		all = append(all, d.StreamDescription.Shards...)
		if start = d.StreamDescription.LastEvaluatedShardId; start == "" {
			return all, nil
		}
	}
}

// pass delivers one batch from every shard that is ready (parent done) and
// returns how many records it delivered.
func (ts *Triggers) pass(ctx context.Context, t *trigger) (int, error) {
	shards, err := ts.shards(ctx, t)
	if err != nil {
		return 0, err
	}
	listed := map[string]bool{}
	for _, sh := range shards {
		listed[sh.ShardId] = true
	}
	total := 0
	for _, sh := range shards {
		if t.done[sh.ShardId] || (sh.ParentShardId != "" && listed[sh.ParentShardId] && !t.done[sh.ParentShardId]) {
			continue
		}
		n, err := ts.shardBatch(ctx, t, sh.ShardId)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// shardBatch delivers the next batch of one shard, retrying a failed POST
// with backoff until it succeeds or ctx ends; it marks a drained closed
// shard done.
func (ts *Triggers) shardBatch(ctx context.Context, t *trigger, shard string) (int, error) {
	in := &GetShardIteratorInput{StreamArn: t.status.StreamArn, ShardId: shard, ShardIteratorType: "TRIM_HORIZON"}
	t.mu.Lock()
	if pos := t.status.Positions[shard]; pos != "" {
		in.ShardIteratorType, in.SequenceNumber = "AFTER_SEQUENCE_NUMBER", pos
	}
	t.mu.Unlock()
	it, err := ts.src.GetShardIterator(ctx, t.status.Region, in)
	if err != nil {
		return 0, err
	}
	limit := int64(t.status.BatchSize)
	out, err := ts.src.GetRecords(ctx, t.status.Region, &GetRecordsInput{ShardIterator: it.ShardIterator, Limit: &limit})
	if err != nil {
		return 0, err
	}
	if len(out.Records) > 0 {
		if err := ts.deliver(ctx, t, out.Records); err != nil {
			return 0, err
		}
		t.mu.Lock()
		t.status.Positions[shard] = out.Records[len(out.Records)-1].Dynamodb.SequenceNumber
		t.status.Delivered += len(out.Records)
		t.status.LastError = ""
		t.mu.Unlock()
	}
	if out.NextShardIterator == nil { // a closed shard, drained
		t.done[shard] = true
	}
	return len(out.Records), nil
}

// lambdaRecord is a stream record as Lambda hands it to a handler.
type lambdaRecord struct {
	EventID        string          `json:"eventID"`
	EventName      string          `json:"eventName"`
	EventVersion   string          `json:"eventVersion"`
	EventSource    string          `json:"eventSource"`
	AwsRegion      string          `json:"awsRegion"`
	Dynamodb       StreamRecord    `json:"dynamodb"`
	EventSourceARN string          `json:"eventSourceARN"`
	UserIdentity   *lambdaIdentity `json:"userIdentity,omitempty"`
}

// lambdaIdentity is UserIdentity in Lambda's spelling.
type lambdaIdentity struct {
	Type        string `json:"type"`
	PrincipalID string `json:"principalId"`
}

// LambdaEvent returns the JSON event Lambda gives a DynamoDB stream handler
// for recs of the stream arn.
func LambdaEvent(arn string, recs []Record) ([]byte, error) {
	ev := struct {
		Records []lambdaRecord `json:"Records"`
	}{make([]lambdaRecord, len(recs))}
	for i, r := range recs {
		lr := lambdaRecord{EventID: r.EventID, EventName: r.EventName, EventVersion: r.EventVersion, EventSource: r.EventSource,
			AwsRegion: r.AwsRegion, Dynamodb: r.Dynamodb, EventSourceARN: arn}
		if r.UserIdentity != nil {
			lr.UserIdentity = &lambdaIdentity{Type: r.UserIdentity.Type, PrincipalID: r.UserIdentity.PrincipalID}
		}
		ev.Records[i] = lr
	}
	return json.Marshal(ev)
}

// deliver POSTs recs until the endpoint answers 2xx, backing off between
// attempts; it returns only ctx's error.
func (ts *Triggers) deliver(ctx context.Context, t *trigger, recs []Record) error {
	body, err := LambdaEvent(t.status.StreamArn, recs)
	if err != nil {
		return err
	}
	backoff := triggerBackoffMin
	for {
		err := ts.post(ctx, t.status.URL, body)
		t.mu.Lock()
		t.status.Attempts++
		if err != nil {
			t.status.LastError = err.Error()
		}
		t.mu.Unlock()
		if err == nil {
			return nil
		}
		ts.log.Warn("trigger: delivery failed, retrying", "trigger", t.status.ID, "err", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, triggerBackoffMax)
	}
}

// post sends one event; a non-2xx answer is an error.
func (ts *Triggers) post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
