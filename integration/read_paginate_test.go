package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// pagedItemSize is the DynamoDB size of every item in the pagination tests.
const (
	pagedItemSize = 1000
	pagedItems    = 3000
	megabyte      = 1 << 20
)

// loadPaged fills tableName with pagedItems items of pagedItemSize bytes in
// one partition ("p") and returns their sort keys.
func loadPaged(t *testing.T, c *dynamodb.Client, tableName string) map[string]bool {
	t.Helper()
	createTable(t, c, tableName, true)
	want := map[string]bool{}
	items := make([]ritem, 0, pagedItems)
	for i := range pagedItems {
		sk := fmt.Sprintf("%05d", i)
		want[sk] = true
		items = append(items, sizedItem(t, "p", sk, pagedItemSize))
	}
	putAll(t, c, tableName, items)
	return want
}

// checkPages checks that the pages' items are every wanted key exactly once
// and that every page but the last read about 1 MB.
func checkPages(t *testing.T, what string, want map[string]bool, pages [][]ritem) {
	t.Helper()
	seen := map[string]int{}
	for _, p := range pages {
		for _, it := range p {
			seen[rstr(it, "sk")]++
		}
	}
	for sk := range want {
		if seen[sk] != 1 {
			t.Errorf("%s: item %s seen %d times, want 1", what, sk, seen[sk])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%s: got %d distinct items, want %d", what, len(seen), len(want))
	}
	// A page stops at 1 MB read: within one item of it.
	lo, hi := megabyte/pagedItemSize-1, megabyte/pagedItemSize+1
	for i, p := range pages[:len(pages)-1] {
		if len(p) < lo || len(p) > hi {
			t.Errorf("%s: page %d has %d items of %d bytes, want %d..%d (1 MB)", what, i, len(p), pagedItemSize, lo, hi)
		}
	}
	total := pagedItems * pagedItemSize
	minPages := (total + megabyte - 1) / megabyte
	if len(pages) < minPages || len(pages) > minPages+1 {
		t.Errorf("%s: got %d pages, want %d (or %d with an empty last page)", what, len(pages), minPages, minPages+1)
	}
}

func TestQueryPaginator1MB(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	want := loadPaged(t, c, "PagedQuery")
	for _, forward := range []bool{true, false} {
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String("PagedQuery"),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: rvals(":p", s("p")),
			ScanIndexForward: aws.Bool(forward)})
		var pages [][]ritem
		last := ""
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, out.Items)
			for _, it := range out.Items {
				sk := rstr(it, "sk")
				if last != "" && (sk > last) != forward {
					t.Fatalf("forward=%v: %s after %s", forward, sk, last)
				}
				last = sk
			}
			if int(out.Count) != len(out.Items) || out.ScannedCount != out.Count {
				t.Errorf("page: got Count %d ScannedCount %d items %d", out.Count, out.ScannedCount, len(out.Items))
			}
		}
		checkPages(t, fmt.Sprintf("Query forward=%v", forward), want, pages)
	}
}

func TestScanPaginator1MB(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	want := loadPaged(t, c, "PagedScan")
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("PagedScan")})
	var pages [][]ritem
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, out.Items)
	}
	checkPages(t, "Scan", want, pages)

	// A filter that matches nothing still pages by 1 MB read.
	p = dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("PagedScan"),
		FilterExpression: aws.String("attribute_exists(nothing)")})
	n, scanned := 0, 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n++
		scanned += int(out.ScannedCount)
		if out.Count != 0 || len(out.Items) != 0 {
			t.Errorf("filtered page: got Count %d, want 0", out.Count)
		}
	}
	if minPages := (pagedItems*pagedItemSize + megabyte - 1) / megabyte; n < minPages || scanned != pagedItems {
		t.Errorf("filtered scan: got %d pages scanning %d, want >= %d pages scanning %d", n, scanned, minPages, pagedItems)
	}
}
