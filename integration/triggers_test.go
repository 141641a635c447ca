package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// lambdaEvent is the part of Lambda's DynamoDB stream event the test reads.
type lambdaEvent struct {
	Records []struct {
		EventID        string `json:"eventID"`
		EventName      string `json:"eventName"`
		EventSource    string `json:"eventSource"`
		EventSourceARN string `json:"eventSourceARN"`
		Dynamodb       struct {
			Keys           map[string]map[string]string `json:"Keys"`
			NewImage       map[string]map[string]string `json:"NewImage"`
			SequenceNumber string                       `json:"SequenceNumber"`
			StreamViewType string                       `json:"StreamViewType"`
		} `json:"dynamodb"`
	} `json:"Records"`
}

// TestTriggerDeliversWithRetry registers a trigger whose endpoint fails the
// first POST: the same batch is retried, nothing is skipped, and every
// change arrives once in order as a Lambda-shaped event.
func TestTriggerDeliversWithRetry(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c := srv.client("us-east-1")
	arn := createStreamTable(t, c, "Orders", types.StreamViewTypeNewImage)

	var mu sync.Mutex
	var posts []lambdaEvent // every POST, failed ones included
	var accepted []string   // sk of every record in an accepted POST
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev lambdaEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Errorf("event is not JSON: %v: %s", err, b)
		}
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, ev)
		if len(posts) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		for _, r := range ev.Records {
			accepted = append(accepted, r.Dynamodb.Keys["sk"]["S"])
		}
	}))
	defer hook.Close()

	body := fmt.Sprintf(`{"table":"Orders","url":%q,"batchSize":2,"startingPosition":"TRIM_HORIZON"}`, hook.URL)
	resp, err := http.Post(srv.URL+"/_ddblocal/triggers", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || created.ID == "" {
		t.Fatalf("POST /_ddblocal/triggers: got %d, id %q", resp.StatusCode, created.ID)
	}
	for i := range 5 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item("p", fmt.Sprint(i), "1")}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(accepted)
		mu.Unlock()
		if n >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: %d of 5 records accepted", n)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(accepted, ","), "0,1,2,3,4"; got != want {
		t.Errorf("accepted records: got %s, want %s", got, want)
	}
	if len(posts) < 2 || len(posts[0].Records) == 0 || posts[0].Records[0].EventID != posts[1].Records[0].EventID {
		t.Fatalf("the failed batch was not retried as is: %d posts", len(posts))
	}
	r := posts[1].Records[0]
	if r.EventName != "INSERT" || r.EventSource != "aws:dynamodb" || r.EventSourceARN != arn || r.Dynamodb.StreamViewType != "NEW_IMAGE" ||
		r.Dynamodb.NewImage["v"]["N"] != "1" || len(r.Dynamodb.SequenceNumber) != 21 {
		t.Errorf("first record: got %+v", r)
	}

	mu.Unlock()
	// The trigger records a delivery once the POST has returned.
	type status struct {
		ID        string `json:"id"`
		Delivered int    `json:"delivered"`
		Attempts  int    `json:"attempts"`
	}
	var got []status
	for deadline := time.Now().Add(10 * time.Second); ; {
		list, err := http.Get(srv.URL + "/_ddblocal/triggers")
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Triggers []status }
		json.NewDecoder(list.Body).Decode(&body)
		list.Body.Close()
		got = body.Triggers
		if len(got) == 1 && got[0].Delivered == 5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	mu.Lock()
	if len(got) != 1 || got[0].Delivered != 5 || got[0].Attempts != len(posts) {
		t.Errorf("GET /_ddblocal/triggers: got %+v, want 1 trigger, 5 delivered, %d attempts", got, len(posts))
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/_ddblocal/triggers/"+created.ID, nil)
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if del.StatusCode != http.StatusOK {
		t.Errorf("DELETE trigger: got %d, want 200", del.StatusCode)
	}
}
