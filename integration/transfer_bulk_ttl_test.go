package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestBulkPutItemsTTLStreamsIndexes: items a bulk load writes are items
// like any other: the table's global index holds them, its stream has an
// INSERT record for each (Time to Live may already have removed the two
// expired at the start), and Time to Live deletes those that expire
// (exactly those TestTimeToLiveDeletes sees deleted when PutItem wrote
// them), each with a REMOVE record by the service.
func TestBulkPutItemsTTLStreamsIndexes(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	srv := startClockServer(t, table.Options{S3: st})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	createSessions(t, c)
	now := streamStart.Unix()
	var src strings.Builder
	for name, exp := range map[string]string{"past": fmt.Sprintf(`{"N":"%d"}`, now-10), "soon": fmt.Sprintf(`{"N":"%d.5"}`, now+3600),
		"string": `{"S":"` + strconv.FormatInt(now-10, 10) + `"}`, "ancient": fmt.Sprintf(`{"N":"%d"}`, now-6*365*86400),
		"no-ttl": "", "decimals": `{"N":"1.8e9"}`} {
		it := fmt.Sprintf(`"pk":{"S":%q},"sk":{"S":"x"},"user":{"S":"u"}`, name)
		if exp != "" {
			it += `,"exp":` + exp
		}
		src.WriteString(`{"Item":{` + it + "}}\n")
	}
	putObject(t, st, "src", "ttl/1.json", src.String())
	out, err := c.StartBulkPutItems(context.Background(), bulkInput("Sessions", "ttl/", "ttl"))
	if err != nil {
		t.Fatal(err)
	}
	if d := waitBulk(t, c, out.BulkOperationDescription.BulkOperationArn); d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 6 {
		t.Fatalf("load: %s, %d items", d.BulkOperationStatus, d.ProcessedItemCount)
	}
	recs, _ := walkStream(t, sc, streamARN(t, c, "Sessions"))
	inserts := 0
	for _, r := range recs {
		if r.EventName == stypes.OperationTypeInsert {
			inserts++
		}
	}
	if inserts != 6 {
		t.Errorf("stream after the load: %d INSERT records, want 6", inserts)
	}
	advanceClock(t, srv.URL, time.Second)
	if got := sessionsPresent(t, c); got["past"] || got["decimals"] || len(got) != 4 {
		t.Fatalf("after 1s: items present %v; want all but past and decimals", got)
	}
	advanceClock(t, srv.URL, time.Hour+time.Second)
	if got := sessionsPresent(t, c); got["soon"] || len(got) != 3 {
		t.Fatalf("after an hour: items present %v; want string, ancient, no-ttl", got)
	}
	ttlRemoves(t, c, sc)
}
