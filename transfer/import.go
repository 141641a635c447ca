package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/attr"
)

// BatchWriteAPI is the part of the DynamoDB API Import uses.
type BatchWriteAPI interface {
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// batchSize is BatchWriteItem's limit of 25 requests.
const batchSize = 25

// ImportOptions configures Import.
type ImportOptions struct {
	// Workers is how many BatchWriteItem calls run at once; zero means 4.
	Workers int
	// Format of the lines; Unknown decides by the first item.
	Format Format
	// Progress, when set, is told each batch written.
	Progress Progress
	// MaxAttempts bounds the BatchWriteItem calls for one batch while
	// DynamoDB keeps returning UnprocessedItems; zero means 12 (with the
	// backoff below, about a minute).
	MaxAttempts int
	// Sleep waits between attempts; nil sleeps (tests pass a fake).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Backoff between attempts at a batch's UnprocessedItems: exponential from
// backoffBase, capped at backoffMax, with full jitter as AWS recommends.
const (
	backoffBase = 50 * time.Millisecond
	backoffMax  = 10 * time.Second
)

// batch is up to 25 puts and the lines they came from.
type batch struct {
	reqs        []types.WriteRequest
	first, last int
}

// Import puts every item read from r into table with BatchWriteItem, 25 at
// a time, o.Workers batches at once, retrying UnprocessedItems with
// exponential backoff and jitter. It returns how many items were written and
// the first error: a *LineError for a bad line, or the error of a batch,
// naming the file's lines it holds (file names r in errors). Items before
// the error may have been written; writing the same lines again is harmless
// (puts overwrite).
func Import(ctx context.Context, c BatchWriteAPI, table string, r io.Reader, file string, o ImportOptions) (int64, error) {
	rd := NewReader(r, file, o.Format)
	return ImportItems(ctx, c, table, file, o, func(put func(it attr.Item, line int) error) error {
		for {
			it, line, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := put(it, line); err != nil {
				return err
			}
		}
	})
}

// ErrStopped is what put returns once the import has failed: the producer
// should stop and return it (or anything: Import reports the first cause).
var ErrStopped = errors.New("transfer: import stopped")

// ImportItems writes the items produce gives put (with the line each came
// from, for errors naming file) as Import writes a file's. produce runs on
// the calling goroutine; put blocks while o.Workers batches are in flight.
func ImportItems(ctx context.Context, c BatchWriteAPI, table, file string, o ImportOptions, produce func(put func(it attr.Item, line int) error) error) (int64, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = 4
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	batches := make(chan batch, workers)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		written int64
	)
	for range workers {
		wg.Go(func() {
			for b := range batches {
				if err := writeBatch(ctx, c, table, b.reqs, o); err != nil {
					cancel(&LineError{File: file, Line: b.first, Err: fmt.Errorf("batch of lines %d-%d: %w", b.first, b.last, err)})
					continue
				}
				mu.Lock()
				written += int64(len(b.reqs))
				mu.Unlock()
				if o.Progress != nil {
					o.Progress.Add(len(b.reqs))
				}
			}
		})
	}
	readErr := produceBatches(ctx, produce, batches)
	close(batches)
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil {
		return written, cause
	}
	return written, readErr
}

// produceBatches groups produce's items into batches until it returns,
// or ctx ends.
func produceBatches(ctx context.Context, produce func(put func(attr.Item, int) error) error, out chan<- batch) error {
	var b batch
	send := func() error {
		select {
		case out <- b:
			b = batch{}
			return nil
		case <-ctx.Done():
			return ErrStopped
		}
	}
	err := produce(func(it attr.Item, line int) error {
		if len(b.reqs) == 0 {
			b.first = line
		}
		b.last = line
		b.reqs = append(b.reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: ToSDK(it)}})
		if len(b.reqs) == batchSize {
			return send()
		}
		return nil
	})
	if err == nil && len(b.reqs) > 0 {
		err = send()
	}
	if errors.Is(err, ErrStopped) {
		return nil // the cause is the context's
	}
	return err
}

// writeBatch calls BatchWriteItem until nothing is unprocessed, sleeping
// with backoff between calls that left items over.
func writeBatch(ctx context.Context, c BatchWriteAPI, table string, reqs []types.WriteRequest, o ImportOptions) error {
	max := o.MaxAttempts
	if max <= 0 {
		max = 12
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	pending := map[string][]types.WriteRequest{table: reqs}
	for attempt := 0; ; attempt++ {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
		if err != nil {
			return err
		}
		if len(out.UnprocessedItems) == 0 {
			return nil
		}
		pending = out.UnprocessedItems
		if attempt+1 >= max {
			return fmt.Errorf("%d items still unprocessed after %d BatchWriteItem calls", len(pending[table]), max)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// backoff is the wait before attempt+1: uniform in [0, min(max, base·2^attempt)].
func backoff(attempt int) time.Duration {
	d := backoffMax
	if attempt < 20 {
		d = min(backoffMax, backoffBase<<attempt)
	}
	return rand.N(d + 1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
