package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
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

// wireClient sends DynamoDB JSON requests as plain HTTP/1.1 over
// keep-alive connections, each request signed with aws-sdk-go-v2's SigV4
// signer. The timed workloads use it instead of the SDK's client because
// the SDK's per-call middleware, and even net/http's Transport (two
// goroutines and channel hand-offs per request), cost more than a fast
// server spends on the request; on a machine where load generator and
// server share the cores, that leaves the server idle between requests and
// inflates its CPU per operation (measured here: a trivial handler costs 46
// µs per request under the SDK's client and 20 µs under a lean one).
type wireClient struct {
	addr   string      // host:port
	tls    *tls.Config // for an https endpoint; nil for http
	url    string
	region string
	signer *v4.Signer
	creds  aws.Credentials

	mu   sync.Mutex
	idle []*wireConn // connections not in use; each call takes one
}

// wireConn is one keep-alive connection with its buffers.
type wireConn struct {
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	buf []byte // the last answer's body, reused
}

// callTimeout bounds one request and its answer.
const callTimeout = 30 * time.Second

// newWireClient returns a client for endpoint (http://host:port). It opens
// connections as workers need them and keeps them for reuse.
func newWireClient(endpoint, region string) *wireClient {
	u, err := url.Parse(endpoint)
	addr := endpoint
	var tlsConf *tls.Config
	if err == nil && u.Host != "" {
		addr = u.Host
		port := "80"
		if u.Scheme == "https" {
			port, tlsConf = "443", &tls.Config{ServerName: u.Hostname()}
		}
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), port)
		}
	}
	return &wireClient{
		addr:   addr,
		tls:    tlsConf,
		url:    strings.TrimSuffix(endpoint, "/") + "/",
		region: region,
		signer: v4.NewSigner(),
		creds:  aws.Credentials{AccessKeyID: accessKeyID, SecretAccessKey: secretAccessKey, Source: "bench"},
	}
}

func (c *wireClient) conn() (*wireConn, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		wc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return wc, nil
	}
	c.mu.Unlock()
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	var nc net.Conn
	var err error
	if c.tls != nil {
		nc, err = tls.DialWithDialer(dialer, "tcp", c.addr, c.tls)
	} else {
		nc, err = dialer.Dial("tcp", c.addr)
	}
	if err != nil {
		return nil, err
	}
	return &wireConn{c: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}, nil
}

func (c *wireClient) release(wc *wireConn) {
	c.mu.Lock()
	c.idle = append(c.idle, wc)
	c.mu.Unlock()
}

// close closes the idle connections.
func (c *wireClient) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, wc := range c.idle {
		_ = wc.c.Close()
	}
	c.idle = nil
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
	req.Header["Content-Type"] = []string{"application/x-amz-json-1.0"}
	req.Header["X-Amz-Target"] = []string{"DynamoDB_20120810." + op}
	// Like the SDK's DynamoDB client (EnableAcceptEncodingGzip is off by
	// default), ask for an uncompressed answer.
	req.Header["Accept-Encoding"] = []string{"identity"}
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, c.creds, req, hex.EncodeToString(sum[:]), "dynamodb", c.region, time.Now()); err != nil {
		return err
	}
	wc, err := c.conn()
	if err != nil {
		return err
	}
	data, status, keep, err := wc.roundTrip(req)
	if err == nil {
		// data lives in wc's buffer: use it before the connection is reused.
		switch {
		case status != http.StatusOK:
			err = decodeError(status, data)
		case out != nil:
			if dErr := decodeAnswer(data, out); dErr != nil {
				err = fmt.Errorf("%s: decoding the answer: %w", op, dErr)
			}
		}
	}
	if !keep {
		_ = wc.c.Close()
	} else {
		c.release(wc)
	}
	return err
}

// roundTrip writes req and reads its answer on wc; keep reports whether the
// connection may be reused. body is valid until wc's next round trip.
func (wc *wireConn) roundTrip(req *http.Request) (body []byte, status int, keep bool, err error) {
	if err := wc.c.SetDeadline(time.Now().Add(callTimeout)); err != nil {
		return nil, 0, false, err
	}
	if err := req.Write(wc.w); err != nil {
		return nil, 0, false, err
	}
	if err := wc.w.Flush(); err != nil {
		return nil, 0, false, err
	}
	resp, err := http.ReadResponse(wc.r, req)
	if err != nil {
		return nil, 0, false, err
	}
	defer resp.Body.Close()
	if n := resp.ContentLength; n >= 0 && n <= 64<<20 {
		if int64(cap(wc.buf)) < n {
			wc.buf = make([]byte, n)
		}
		body = wc.buf[:n]
		_, err = io.ReadFull(resp.Body, body)
	} else {
		body, err = io.ReadAll(resp.Body)
	}
	if err != nil {
		return nil, 0, false, err
	}
	return body, resp.StatusCode, !resp.Close, nil
}

// decodeAnswer decodes data into out. A Query or Scan answer is mostly Items,
// which the workloads only count, so for pageOutput the other members are
// cut out first and Items is skipped unparsed: decoding 100 items per call
// with encoding/json would make the load generator, not the server, the
// bottleneck on a shared machine.
func decodeAnswer(data []byte, out any) error {
	switch o := out.(type) {
	case *getItemOutput:
		// The get workload only counts found items: look for the member
		// rather than decode the item.
		o.found = hasMember(data, "Item")
		return nil
	case *pageOutput:
	default:
		return json.Unmarshal(data, out)
	}
	slim, err := withoutMember(data, "Items")
	if err != nil {
		return err
	}
	return json.Unmarshal(slim, out)
}

// hasMember reports whether the JSON object data has a top-level member
// name whose value is not null.
func hasMember(data []byte, name string) bool {
	_, vstart, vend, found, err := findMember(data, name)
	return err == nil && found && string(bytes.TrimSpace(data[vstart:vend])) != "null"
}

// withoutMember returns the JSON object data without its top-level member
// name (data itself if there is none).
func withoutMember(data []byte, name string) ([]byte, error) {
	start, _, end, found, err := findMember(data, name)
	if err != nil || !found {
		return data, err
	}
	// Drop the member and one comma next to it.
	if end < len(data) && data[end] == ',' {
		end++
	} else if j := bytes.LastIndexByte(data[:start], ','); j >= 0 && len(bytes.TrimSpace(data[j+1:start])) == 0 {
		start = j
	}
	return append(append([]byte(nil), data[:start]...), data[end:]...), nil
}

// findMember locates the top-level member name of the JSON object data: the
// member starts at start (its opening quote), its value spans
// [vstart, vend). It trusts data to be valid JSON (the server's answer) and
// finds the value's end by counting brackets outside strings.
func findMember(data []byte, name string) (start, vstart, vend int, found bool, err error) {
	needle := []byte(`"` + name + `":`)
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			i = stringEnd(data, i)
			inString = false
		case c == '"':
			if depth == 1 && bytes.HasPrefix(data[i:], needle) {
				vstart = i + len(needle)
				vend, err = valueEnd(data, vstart)
				return i, vstart, vend, err == nil, err
			}
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return 0, 0, 0, false, nil
}

// stringEnd returns the index of the quote that ends the JSON string whose
// contents start at i (len(data) if it never ends), jumping from quote to
// quote rather than stepping byte by byte: item values are long strings.
func stringEnd(data []byte, i int) int {
	for {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		i += j
		// The quote is escaped if an odd number of backslashes precede it.
		n := 0
		for k := i - 1; k >= 0 && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		i++
	}
}

// valueEnd returns the index just after the JSON value starting at or after i.
func valueEnd(data []byte, i int) (int, error) {
	depth, inString, started := 0, false, false
	for ; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			i = stringEnd(data, i)
			inString = false
			if depth == 0 {
				return i + 1, nil
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

// getItemOutput says whether a GetItem answer holds an item.
type getItemOutput struct {
	found bool
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
