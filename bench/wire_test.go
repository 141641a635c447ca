package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

func TestWithoutMember(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"first", `{"Items":[{"a":{"S":"x]}"}}],"Count":1}`, `{"Count":1}`},
		{"middle", `{"Count":2,"Items":[{},{"b":{"L":[{"S":"\"Items\":"}]}}],"ScannedCount":3}`, `{"Count":2,"ScannedCount":3}`},
		{"last", `{"Count":0,"Items":[]}`, `{"Count":0}`},
		{"spaced", `{"Count": 0, "Items": [ {"k": {"N": "1"}} ] }`, `{"Count": 0 }`},
		{"absent", `{"Count":0}`, `{"Count":0}`},
		{"nested name is kept", `{"LastEvaluatedKey":{"Items":{"S":"v"}},"Items":[]}`, `{"LastEvaluatedKey":{"Items":{"S":"v"}}}`},
		{"escaped quote in string", `{"Items":[{"s":{"S":"a\\\"]"}}],"Count":1}`, `{"Count":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := withoutMember([]byte(tt.in), "Items")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("result is not valid JSON: %s", got)
			}
		})
	}
}

func TestHasMember(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{}`, false},
		{`{"Item":{"pk":{"S":"p"}}}`, true},
		{`{"ConsumedCapacity":{"TableName":"t"},"Item":{}}`, true},
		{`{"Item":null}`, false},
		{`{"Other":{"Item":{"S":"x"}}}`, false},
		{`{"S":"\"Item\":{}"}`, false},
	}
	for _, tt := range tests {
		if got := hasMember([]byte(tt.in), "Item"); got != tt.want {
			t.Errorf("hasMember(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDecodePage(t *testing.T) {
	in := `{"Count":1,"Items":[{"pk":{"S":"p"}}],"LastEvaluatedKey":{"pk":{"S":"p"},"sk":{"S":"s"}},"ScannedCount":100}`
	var out pageOutput
	if err := decodeAnswer([]byte(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 || out.ScannedCount != 100 || out.LastEvaluatedKey["sk"].S != "s" {
		t.Errorf("decoded %+v", out)
	}
}

// TestWireClientSignsAndReportsErrors checks what a server sees (a SigV4
// Authorization header for dynamodb in the configured region, the target
// header, no compression asked) and how an error answer is reported.
func TestWireClientSignsAndReportsErrors(t *testing.T) {
	var got http.Header
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`)
	}))
	defer srv.Close()

	c := newWireClient(srv.URL, "eu-west-2")
	err := c.call(context.Background(), "GetItem", mustJSON(getItemInput{TableName: "t", Key: key("p", "s")}), &getItemOutput{})
	var api *apiError
	if !errors.As(err, &api) {
		t.Fatalf("err = %v, want *apiError", err)
	}
	if api.status != 400 || api.code != "ResourceNotFoundException" || api.message != "Requested resource not found" || api.retryable() {
		t.Errorf("apiError = %+v", api)
	}
	auth := regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDBENCH/\d{8}/eu-west-2/dynamodb/aws4_request, SignedHeaders=[a-z0-9;-]*x-amz-target[a-z0-9;-]*, Signature=[0-9a-f]{64}$`)
	if a := got.Get("Authorization"); !auth.MatchString(a) {
		t.Errorf("Authorization = %q", a)
	}
	if got.Get("X-Amz-Date") == "" || got.Get("X-Amz-Target") != "DynamoDB_20120810.GetItem" {
		t.Errorf("headers = %v", got)
	}
	if ae := got.Get("Accept-Encoding"); ae != "identity" {
		t.Errorf("Accept-Encoding = %q, want identity (no compression, as the SDK asks)", ae)
	}
	if want := `{"TableName":"t","Key":{"pk":{"S":"p"},"sk":{"S":"s"}}}`; body != want {
		t.Errorf("body = %s, want %s", body, want)
	}
}

func TestAPIErrorRetryable(t *testing.T) {
	for _, tt := range []struct {
		e    apiError
		want bool
	}{
		{apiError{status: 400, code: "ProvisionedThroughputExceededException"}, true},
		{apiError{status: 400, code: "ThrottlingException"}, true},
		{apiError{status: 500, code: "InternalServerError"}, true},
		{apiError{status: 400, code: "ValidationException"}, false},
	} {
		if got := tt.e.retryable(); got != tt.want {
			t.Errorf("%+v retryable = %v, want %v", tt.e, got, tt.want)
		}
	}
}

// TestWireClientHTTPS: an https endpoint is reached over TLS (here a test
// server with its own certificate, trusted for the test).
func TestWireClientHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(w, `{"Item":{"pk":{"S":"p"}}}`)
	}))
	defer srv.Close()
	c := newWireClient(srv.URL, "us-east-1")
	c.tls.RootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	var out getItemOutput
	if err := c.call(context.Background(), "GetItem", mustJSON(getItemInput{TableName: "t", Key: key("p", "s")}), &out); err != nil {
		t.Fatal(err)
	}
	if !out.found {
		t.Error("item not found in the answer")
	}
	c.close()
}
