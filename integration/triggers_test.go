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

	h := &failOnceHook{t: t}
	hook := httptest.NewServer(h)
	defer hook.Close()
	id := registerTrigger(t, srv.URL, fmt.Sprintf(`{"table":"Orders","url":%q,"batchSize":2,"startingPosition":"TRIM_HORIZON"}`, hook.URL))
	for i := range 5 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item("p", fmt.Sprint(i), "1")}); err != nil {
			t.Fatal(err)
		}
	}
	h.waitAccepted(5)
	h.mu.Lock()
	if got, want := strings.Join(h.accepted, ","), "0,1,2,3,4"; got != want {
		t.Errorf("accepted records: got %s, want %s", got, want)
	}
	if len(h.posts) < 2 || len(h.posts[0].Records) == 0 || h.posts[0].Records[0].EventID != h.posts[1].Records[0].EventID {
		h.mu.Unlock()
		t.Fatalf("the failed batch was not retried as is: %d posts", len(h.posts))
	}
	r := h.posts[1].Records[0]
	h.mu.Unlock()
	if r.EventName != "INSERT" || r.EventSource != "aws:dynamodb" || r.EventSourceARN != arn || r.Dynamodb.StreamViewType != "NEW_IMAGE" ||
		r.Dynamodb.NewImage["v"]["N"] != "1" || len(r.Dynamodb.SequenceNumber) != 21 {
		t.Errorf("first record: got %+v", r)
	}

	// The trigger records a delivery once the POST has returned.
	got := waitTriggersDelivered(t, srv.URL, 5)
	h.mu.Lock()
	if len(got) != 1 || got[0].Delivered != 5 || got[0].Attempts != len(h.posts) {
		t.Errorf("GET /_ddblocal/triggers: got %+v, want 1 trigger, 5 delivered, %d attempts", got, len(h.posts))
	}
	h.mu.Unlock()
	deleteTrigger(t, srv.URL, id)
}

// failOnceHook is a trigger endpoint that fails the first POST and accepts
// the others, keeping every POST and the sort key of every accepted record.
type failOnceHook struct {
	t        *testing.T
	mu       sync.Mutex
	posts    []lambdaEvent // every POST, failed ones included
	accepted []string      // sk of every record in an accepted POST
}

func (h *failOnceHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var ev lambdaEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		h.t.Errorf("event is not JSON: %v: %s", err, b)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.posts = append(h.posts, ev)
	if len(h.posts) == 1 {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	for _, r := range ev.Records {
		h.accepted = append(h.accepted, r.Dynamodb.Keys["sk"]["S"])
	}
}

// waitAccepted waits up to 10 s until n records were accepted.
func (h *failOnceHook) waitAccepted(n int) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.mu.Lock()
		got := len(h.accepted)
		h.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("after 10s: %d of %d records accepted", got, n)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
}

// registerTrigger registers the trigger body through POST
// /_ddblocal/triggers and returns its id.
func registerTrigger(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url+"/_ddblocal/triggers", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || created.ID == "" {
		t.Fatalf("POST /_ddblocal/triggers: got %d, id %q", resp.StatusCode, created.ID)
	}
	return created.ID
}

// triggerStatus is a trigger as GET /_ddblocal/triggers lists it.
type triggerStatus struct {
	ID        string `json:"id"`
	Delivered int    `json:"delivered"`
	Attempts  int    `json:"attempts"`
}

// waitTriggersDelivered lists the triggers until there is one that has
// delivered n records, for up to 10 s, and returns the last list.
func waitTriggersDelivered(t *testing.T, url string, n int) []triggerStatus {
	t.Helper()
	var got []triggerStatus
	for deadline := time.Now().Add(10 * time.Second); ; {
		list, err := http.Get(url + "/_ddblocal/triggers")
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Triggers []triggerStatus }
		json.NewDecoder(list.Body).Decode(&body)
		list.Body.Close()
		got = body.Triggers
		if len(got) == 1 && got[0].Delivered == n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
}

// deleteTrigger deletes trigger id through DELETE /_ddblocal/triggers/id.
func deleteTrigger(t *testing.T, url, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url+"/_ddblocal/triggers/"+id, nil)
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if del.StatusCode != http.StatusOK {
		t.Errorf("DELETE trigger: got %d, want 200", del.StatusCode)
	}
}
