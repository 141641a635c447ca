package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Endpoint is a DynamoDB-compatible endpoint the tools call with
// DynamoDB's own JSON 1.0 protocol, so a tool's input and output are the
// request and response shapes an agent already knows from the API
// reference, and items stay in DynamoDB JSON ({"S": "x"}) without a
// conversion that could lose a number's digits.
type Endpoint struct {
	// URL is the server's base URL (http://127.0.0.1:8000).
	URL string
	// Region goes into the SigV4 credential scope; tables are per region.
	Region string
	// Credentials sign every request (a server started with --credentials
	// verifies them; others ignore them).
	Credentials aws.Credentials
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
}

// APIError is DynamoDB's error reply: its __type without the namespace and
// its message.
type APIError struct {
	Type    string
	Message string
	Status  int
}

func (e *APIError) Error() string { return e.Type + ": " + e.Message }

// Call sends operation op (PutItem, Query, ...) with in as its JSON body
// and decodes the reply into out (nil discards it). It returns *APIError
// when the server answers with an error, or the transport's error.
func (e *Endpoint) Call(ctx context.Context, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(e.URL, "/")+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	if err := e.sign(ctx, req, body); err != nil {
		return err
	}
	data, status, err := e.do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if status != http.StatusOK {
		return decodeError(data, status)
	}
	if out == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // a Count or ConsumedCapacity stays exact
	if err := d.Decode(out); err != nil {
		return fmt.Errorf("decode %s reply: %w", op, err)
	}
	return nil
}

// Admin sends a bodiless request with method to a /_ddblocal/ path
// (signed like an API call) and decodes the JSON reply into out.
func (e *Endpoint) Admin(ctx context.Context, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(e.URL, "/")+path, nil)
	if err != nil {
		return err
	}
	if err := e.sign(ctx, req, nil); err != nil {
		return err
	}
	data, status, err := e.do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s %s: status %d: %s", method, path, status, bytes.TrimSpace(data))
	}
	return json.Unmarshal(data, out)
}

func (e *Endpoint) sign(ctx context.Context, req *http.Request, body []byte) error {
	sum := sha256.Sum256(body)
	region := e.Region
	if region == "" {
		region = "us-east-1"
	}
	return v4.NewSigner().SignHTTP(ctx, e.Credentials, req, hex.EncodeToString(sum[:]), "dynamodb", region, time.Now())
}

func (e *Endpoint) do(req *http.Request) ([]byte, int, error) {
	c := e.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return data, resp.StatusCode, err
}

// decodeError turns DynamoDB's {"__type": "...#Code", "message": "..."}
// into *APIError.
func decodeError(data []byte, status int) error {
	var e struct {
		Type     string `json:"__type"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	if err := json.Unmarshal(data, &e); err != nil || e.Type == "" {
		return &APIError{Type: "HTTP" + fmt.Sprint(status), Message: string(bytes.TrimSpace(data)), Status: status}
	}
	_, code, ok := strings.Cut(e.Type, "#")
	if !ok {
		code = e.Type
	}
	msg := e.Message
	if msg == "" {
		msg = e.MessageU
	}
	return &APIError{Type: code, Message: msg, Status: status}
}
