package transfer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/attr"
)

// ExportAPI is the part of the DynamoDB API Export uses; *dynamodb.Client
// has it.
type ExportAPI interface {
	dynamodb.ScanAPIClient
	dynamodb.DescribeTableAPIClient
}

// Progress is told how many items there are (an estimate, from
// DescribeTable's ItemCount, when exporting) and how many are done.
type Progress interface {
	SetTotal(n int64)
	Add(n int)
}

// ExportOptions configures Export.
type ExportOptions struct {
	// Segments is how many parallel scan segments page the table at once;
	// zero means 4.
	Segments int
	// Progress, when set, is told the item count and each page written.
	Progress Progress
}

// Export writes every item of table to w as JSON lines ({"Item":{...}} in
// DynamoDB-JSON, see AppendLine), scanning o.Segments parallel segments with
// strongly consistent reads. Lines come in no particular order. It returns
// how many items it wrote, and the first error of DescribeTable, a Scan page
// or w; on error the other segments stop and w may hold part of the table.
func Export(ctx context.Context, c ExportAPI, table string, w io.Writer, o ExportOptions) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	n, err := ExportItems(ctx, c, table, o, func(it attr.Item) error {
		line = AppendLine(line[:0], it)
		_, err := bw.Write(line)
		return err
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// ExportItems scans table as Export does and calls fn for each item, from
// one goroutine at a time. It returns how many items fn took, and the first
// error of DescribeTable, a Scan page or fn.
func ExportItems(ctx context.Context, c ExportAPI, table string, o ExportOptions, fn func(attr.Item) error) (int64, error) {
	segs := o.Segments
	if segs <= 0 {
		segs = 4
	}
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return 0, err
	}
	if o.Progress != nil && desc.Table != nil && desc.Table.ItemCount != nil {
		o.Progress.SetTotal(*desc.Table.ItemCount)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	pages := make(chan []map[string]types.AttributeValue, segs)
	var wg sync.WaitGroup
	for i := range segs {
		wg.Go(func() {
			if err := scanSegment(ctx, c, table, int32(i), int32(segs), pages); err != nil {
				cancel(err)
			}
		})
	}
	go func() { wg.Wait(); close(pages) }()
	n, err := takePages(pages, fn, o.Progress)
	if err != nil {
		cancel(err)
		for range pages { // let the scanners see the cancellation and exit
		}
	}
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		return n, cause
	}
	return n, err
}

// scanSegment sends each page of one parallel-scan segment to pages.
func scanSegment(ctx context.Context, c dynamodb.ScanAPIClient, table string, seg, total int32, pages chan<- []map[string]types.AttributeValue) error {
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{
		TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total),
		ConsistentRead: aws.Bool(true),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("scan segment %d of %d: %w", seg, total, err)
		}
		select {
		case pages <- out.Items:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// takePages gives every page's items to fn until pages is closed.
func takePages(pages <-chan []map[string]types.AttributeValue, fn func(attr.Item) error, prog Progress) (int64, error) {
	var n int64
	for page := range pages {
		for _, m := range page {
			it, err := FromSDK(m)
			if err != nil {
				return n, err
			}
			if err := fn(it); err != nil {
				return n, err
			}
			n++
		}
		if prog != nil {
			prog.Add(len(page))
		}
	}
	return n, nil
}
