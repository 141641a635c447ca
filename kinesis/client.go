package kinesis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Client speaks to a Kinesis-compatible endpoint the two calls delivery
// needs, in Kinesis's JSON 1.1 protocol, signed with aws-sdk-go-v2's SigV4
// signer (service/kinesis would add megabytes to the binary for them).
type Client struct {
	// Endpoint is the base URL (http://127.0.0.1:4567).
	Endpoint    string
	Credentials aws.CredentialsProvider
	// HTTP sends the requests; nil means a client with a 10 s timeout.
	HTTP *http.Client
}

// APIError is an error answer of the Kinesis endpoint.
type APIError struct {
	Status  int
	Code    string // the __type, without its namespace
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("kinesis: %s (%d): %s", e.Code, e.Status, e.Message)
}

// IsNotFound reports whether err is Kinesis's ResourceNotFoundException.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code == "ResourceNotFoundException"
}

// StreamARN is a Kinesis data stream's ARN, split.
type StreamARN struct {
	Region, Account, Name string
}

// ParseStreamARN splits arn:PARTITION:kinesis:REGION:ACCOUNT:stream/NAME.
func ParseStreamARN(arn string) (StreamARN, bool) {
	p := strings.SplitN(arn, ":", 6)
	if len(p) != 6 || p[0] != "arn" || p[2] != "kinesis" || p[3] == "" {
		return StreamARN{}, false
	}
	name, ok := strings.CutPrefix(p[5], "stream/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return StreamARN{}, false
	}
	return StreamARN{Region: p[3], Account: p[4], Name: name}, true
}

// StreamStatus returns the StreamStatus of stream s (ACTIVE, CREATING...).
func (c *Client) StreamStatus(ctx context.Context, s StreamARN) (string, error) {
	var out struct {
		StreamDescription struct{ StreamStatus string }
	}
	err := c.call(ctx, s.Region, "DescribeStream", map[string]any{"StreamName": s.Name, "Limit": 1}, &out)
	return out.StreamDescription.StreamStatus, err
}

// putEntry is one record of a PutRecords request.
type putEntry struct {
	Data         []byte // base64 in JSON, as Kinesis wants it
	PartitionKey string
}

// PutRecords sends entries to stream s in one call and returns the indexes
// of the ones Kinesis did not take (throttled or failed), to be sent again.
func (c *Client) PutRecords(ctx context.Context, s StreamARN, entries []Entry) ([]int, error) {
	in := struct {
		StreamName string
		Records    []putEntry
	}{StreamName: s.Name, Records: make([]putEntry, len(entries))}
	for i, e := range entries {
		in.Records[i] = putEntry{Data: e.Data, PartitionKey: e.PartitionKey}
	}
	var out struct {
		FailedRecordCount int
		Records           []struct{ ErrorCode string }
	}
	if err := c.call(ctx, s.Region, "PutRecords", in, &out); err != nil {
		return nil, err
	}
	var failed []int
	for i, r := range out.Records {
		if r.ErrorCode != "" {
			failed = append(failed, i)
		}
	}
	if out.FailedRecordCount > 0 && len(failed) == 0 {
		return nil, fmt.Errorf("kinesis: PutRecords: %d records failed, none named", out.FailedRecordCount)
	}
	return failed, nil
}

// call sends operation op with body in to the endpoint, signed for region,
// and decodes the answer into out.
func (c *Client) call(ctx context.Context, region, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.Endpoint, "/")+"/", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("kinesis: endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "Kinesis_20131202."+op)
	sum := sha256.Sum256(body)
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return err
	}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "kinesis", region, time.Now()); err != nil {
		return err
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return apiError(resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

// apiError decodes an error answer: {"__type": "...#Code", "message": "..."}.
func apiError(status int, b []byte) error {
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	_ = json.Unmarshal(b, &e)
	code := e.Type
	if i := strings.LastIndex(code, "#"); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = http.StatusText(status)
	}
	msg := e.Message
	if msg == "" {
		msg = e.Upper
	}
	return &APIError{Status: status, Code: code, Message: msg}
}
