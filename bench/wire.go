package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Dummy credentials: local servers accept any key, and real DynamoDB would
// reject them, which is the point: this tool is for local endpoints.
const (
	accessKeyID     = "AKIDBENCH"
	secretAccessKey = "bench-secret"
)

// wireClient sends DynamoDB JSON requests as plain HTTP, each signed with
// aws-sdk-go-v2's SigV4 signer. The timed workloads use it instead of the
// SDK's client because the SDK's per-call middleware costs several times
// what a fast server spends on the request; on a machine where load
// generator and server share the cores, that leaves the server idle between
// requests and inflates its CPU per operation (measured: a trivial handler
// costs 20 µs per request under this client, 46 µs under the SDK's).
type wireClient struct {
	http   *http.Client
	url    string
	region string
	signer *v4.Signer
	creds  aws.Credentials
}

// newWireClient keeps `concurrency` idle connections so workers never redial.
func newWireClient(endpoint, region string, concurrency int) *wireClient {
	transport := &http.Transport{
		Proxy:               nil, // a benchmark of localhost must not go through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		// Like the SDK's DynamoDB client (EnableAcceptEncodingGzip is off by
		// default), ask for uncompressed answers.
		DisableCompression: true,
	}
	return &wireClient{
		http:   &http.Client{Transport: transport, Timeout: 30 * time.Second},
		url:    strings.TrimSuffix(endpoint, "/") + "/",
		region: region,
		signer: v4.NewSigner(),
		creds:  aws.Credentials{AccessKeyID: accessKeyID, SecretAccessKey: secretAccessKey, Source: "bench"},
	}
}

// apiError is a DynamoDB error answer: its HTTP status, the exception name
// (the part of __type after '#') and its message.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.status, e.code, e.message)
}

// retryable reports whether DynamoDB's documentation says the request may be
// sent again: server errors and throttling.
func (e *apiError) retryable() bool {
	switch e.code {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
		return true
	}
	return e.status >= 500
}

// call sends body as operation op ("GetItem", ...) and decodes a successful
// answer into out (when out is not nil).
func (c *wireClient) call(ctx context.Context, op string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, c.creds, req, hex.EncodeToString(sum[:]), "dynamodb", c.region, time.Now()); err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := decodeAnswer(data, out); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", op, err)
	}
	return nil
}

// decodeAnswer decodes data into out. A Query or Scan answer is mostly Items,
// which the workloads only count, so for pageOutput the other members are
// cut out first and Items is skipped unparsed: decoding 100 items per call
// with encoding/json would make the load generator, not the server, the
// bottleneck on a shared machine.
func decodeAnswer(data []byte, out any) error {
	if _, ok := out.(*pageOutput); !ok {
		return json.Unmarshal(data, out)
	}
	slim, err := withoutMember(data, "Items")
	if err != nil {
		return err
	}
	return json.Unmarshal(slim, out)
}

// withoutMember returns the JSON object data without its top-level member
// name. It trusts data to be valid JSON (the server's answer) and finds the
// member's end by counting brackets outside strings.
func withoutMember(data []byte, name string) ([]byte, error) {
	needle := []byte(`"` + name + `":`)
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			if depth == 1 && bytes.HasPrefix(data[i:], needle) {
				end, err := valueEnd(data, i+len(needle))
				if err != nil {
					return nil, err
				}
				// Drop the member and one comma next to it.
				if end < len(data) && data[end] == ',' {
					end++
				} else if j := bytes.LastIndexByte(data[:i], ','); j >= 0 && strings.TrimSpace(string(data[j+1:i])) == "" {
					i = j
				}
				return append(append([]byte(nil), data[:i]...), data[end:]...), nil
			}
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return data, nil
}

// valueEnd returns the index just after the JSON value starting at or after i.
func valueEnd(data []byte, i int) (int, error) {
	depth, inString, started := 0, false, false
	for ; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
				if depth == 0 {
					return i + 1, nil
				}
			}
		case c == '"':
			inString, started = true, true
		case c == '{' || c == '[':
			depth, started = depth+1, true
		case c == '}' || c == ']':
			if depth == 0 { // end of the enclosing object: a scalar ended
				return i, nil
			}
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case c == ',' && depth == 0:
			return i, nil
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if started && depth == 0 {
				return i, nil
			}
		default:
			started = true
		}
	}
	return 0, errors.New("unterminated value")
}

// decodeError turns a non-200 answer into an apiError. DynamoDB's __type is
// "namespace#Name" and the message member is spelled "message" or "Message".
func decodeError(status int, data []byte) error {
	var body struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	_ = json.Unmarshal(data, &body) // a body that is not JSON leaves code empty
	code := body.Type[strings.LastIndexByte(body.Type, '#')+1:]
	msg := body.Message
	if msg == "" {
		msg = body.Upper
	}
	if code == "" && msg == "" {
		msg = strings.TrimSpace(string(data))
	}
	return &apiError{status: status, code: code, message: msg}
}

// The request and answer members the workloads use, in DynamoDB JSON.

// value is an AttributeValue of type S or N (the only ones the data uses).
type value struct {
	S string `json:"S,omitempty"`
	N string `json:"N,omitempty"`
}

// item is an item or key in DynamoDB JSON.
type item map[string]value

type getItemInput struct {
	TableName string `json:"TableName"`
	Key       item   `json:"Key"`
}

type getItemOutput struct {
	Item item `json:"Item"`
}

type putItemInput struct {
	TableName string `json:"TableName"`
	Item      item   `json:"Item"`
}

type queryInput struct {
	TableName                 string `json:"TableName"`
	KeyConditionExpression    string `json:"KeyConditionExpression"`
	ExpressionAttributeValues item   `json:"ExpressionAttributeValues"`
	Limit                     int    `json:"Limit"`
}

type scanInput struct {
	TableName                 string `json:"TableName"`
	FilterExpression          string `json:"FilterExpression"`
	ExpressionAttributeValues item   `json:"ExpressionAttributeValues"`
	ExclusiveStartKey         item   `json:"ExclusiveStartKey,omitempty"`
}

// pageOutput holds the members of a Query or Scan answer the workloads count;
// Items is skipped, not decoded.
type pageOutput struct {
	Count            int  `json:"Count"`
	ScannedCount     int  `json:"ScannedCount"`
	LastEvaluatedKey item `json:"LastEvaluatedKey"`
}

type putRequest struct {
	Item item `json:"Item"`
}

type writeRequest struct {
	PutRequest putRequest `json:"PutRequest"`
}

type batchWriteInput struct {
	RequestItems map[string][]writeRequest `json:"RequestItems"`
}

type batchWriteOutput struct {
	UnprocessedItems map[string][]writeRequest `json:"UnprocessedItems"`
}

// mustJSON encodes v, which is always one of the shapes above.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the shapes above always encode
	}
	return b
}
