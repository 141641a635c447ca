package table

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestPageScratchReuse checks that pages written through recycled scratch
// buffers are right, from many goroutines at once (run with -race), and
// that a response is not changed by the pages read, encoded and released
// after it.
func TestPageScratchReuse(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	for i := range 20 {
		item := attr.Item{"pk": sv(fmt.Sprintf("k%02d", i)), "v": sv(fmt.Sprintf("value %d", i))}
		if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	query := func(pk string) *ddb.ReadOutput {
		cond := "pk = :p"
		in := &ddb.QueryInput{TableName: "A", KeyConditionExpression: &cond}
		in.ExpressionAttributeValues = map[string]attr.Value{":p": sv(pk)}
		out, err := s.Query(ctx, "r", in)
		if err != nil {
			t.Error(err)
			return nil
		}
		return out
	}
	want := func(i int) []byte {
		item := attr.Item{"pk": sv(fmt.Sprintf("k%02d", i)), "v": sv(fmt.Sprintf("value %d", i))}
		return attr.AppendItemJSON(nil, item)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				i := (g*7 + n) % 20
				out := query(fmt.Sprintf("k%02d", i))
				if out == nil {
					return
				}
				// Another page is read (and, like the api layer does,
				// encoded and released) before this one is written.
				other := query("k19")
				if other == nil {
					return
				}
				otherJSON, err := append([]byte(nil), other.RenderedItems...), error(nil)
				other.Release()
				if w := want(19); err != nil || !bytes.HasPrefix(otherJSON, w) {
					t.Errorf("Query k19: got %s, %v; want prefix %s", otherJSON, err, w)
					return
				}
				got, err := append([]byte(nil), out.RenderedItems...), error(nil)
				out.Release()
				if w := want(i); err != nil || !bytes.HasPrefix(got, w) {
					t.Errorf("Query k%02d: got %s, %v; want prefix %s", i, got, err, w)
					return
				}
			}
		}()
	}
	wg.Wait()
}
