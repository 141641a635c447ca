package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// tableWaitTimeout bounds how long setup waits for a table to be
	// deleted or become ACTIVE (instant locally, seconds on real DynamoDB).
	tableWaitTimeout = 2 * time.Minute
	tablePollEvery   = 100 * time.Millisecond
	// batchAttempts bounds BatchWriteItem calls for one chunk, counting both
	// failed calls and calls that leave UnprocessedItems.
	batchAttempts = 10
)

// recreateTable deletes table if it exists and creates it again as
// pk S HASH + sk S RANGE, PAY_PER_REQUEST, with a stream of view type
// tbl.stream unless it is "" and a global index gsi1 (sk HASH, pk RANGE,
// all attributes) when tbl.gsi, waiting until it is ACTIVE.
func recreateTable(ctx context.Context, c *dynamodb.Client, table string, tbl tableSpec) error {
	_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("DeleteTable: %w", err)
	}
	if err == nil {
		if err := waitTable(ctx, c, table, func(status types.TableStatus, gone bool) bool { return gone }); err != nil {
			return fmt.Errorf("waiting for deletion: %w", err)
		}
	}
	s := types.ScalarAttributeTypeS
	var spec *types.StreamSpecification
	if tbl.stream != "" {
		spec = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(tbl.stream)}
	}
	var gsis []types.GlobalSecondaryIndex
	if tbl.gsi {
		gsis = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi1"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("sk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("pk"), KeyType: types.KeyTypeRange}}}}
	}
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		StreamSpecification:    spec,
		GlobalSecondaryIndexes: gsis,
		TableName:              aws.String(table),
		BillingMode:            types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: s},
			{AttributeName: aws.String("sk"), AttributeType: s},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
	if err != nil {
		return fmt.Errorf("CreateTable: %w", err)
	}
	if err := waitTable(ctx, c, table, func(status types.TableStatus, gone bool) bool { return status == types.TableStatusActive }); err != nil {
		return fmt.Errorf("waiting for ACTIVE: %w", err)
	}
	return nil
}

// waitTable polls DescribeTable until done reports true for the table's
// status (gone when DescribeTable says ResourceNotFoundException).
func waitTable(ctx context.Context, c *dynamodb.Client, table string, done func(status types.TableStatus, gone bool) bool) error {
	ctx, cancel := context.WithTimeout(ctx, tableWaitTimeout)
	defer cancel()
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		switch {
		case isNotFound(err):
			if done("", true) {
				return nil
			}
		case err != nil:
			return err
		case done(out.Table.TableStatus, false):
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(tablePollEvery):
		}
	}
}

func isNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

// loadOps returns the per-worker operations of setup's load: workers share
// a cursor over the items and each call writes the next chunk of 25 with
// BatchWriteItem. A chunk that still fails after batchAttempts cancels the
// whole load through cancel.
func (w workers) loadOps(cancel context.CancelFunc) func(worker int) op {
	var cursor atomic.Int64
	return func(id int) op {
		r, w := w.rng(id), w.at(id)
		return func(ctx context.Context) (int, error) {
			start := int(cursor.Add(batchSize)) - batchSize
			if start >= w.keys.items {
				return 0, errExhausted
			}
			end := min(start+batchSize, w.keys.items)
			reqs := make([]writeRequest, 0, end-start)
			for i := start; i < end; i++ {
				pk, sk := w.keys.keyOf(i)
				reqs = append(reqs, writeRequest{PutRequest: putRequest{Item: w.keys.item(r, pk, sk, i%100)}})
			}
			if err := w.writeAll(ctx, reqs); err != nil {
				cancel()
				return 0, err
			}
			return len(reqs), nil
		}
	}
}

// writeAll sends reqs with BatchWriteItem, resending UnprocessedItems and
// throttled or transient failures with exponential backoff, as DynamoDB's
// documentation advises.
func (w workers) writeAll(ctx context.Context, reqs []writeRequest) error {
	backoff := 10 * time.Millisecond
	var lastErr error
	for range batchAttempts {
		var out batchWriteOutput
		err := w.client.call(ctx, "BatchWriteItem", mustJSON(batchWriteInput{RequestItems: map[string][]writeRequest{w.table: reqs}}), &out)
		if err == nil {
			reqs = out.UnprocessedItems[w.table]
			if len(reqs) == 0 {
				return nil
			}
			lastErr = fmt.Errorf("%d items still unprocessed", len(reqs))
		} else {
			if ctx.Err() != nil || !retryable(err) {
				return err
			}
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
	return fmt.Errorf("BatchWriteItem gave up after %d attempts: %w", batchAttempts, lastErr)
}

// retryable reports whether err may be retried: throttling, server errors,
// and failures of the connection itself (the answer never arrived). A bad
// request or an unknown operation fails the load at once instead.
func retryable(err error) bool {
	var api *apiError
	if errors.As(err, &api) {
		return api.retryable()
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
