package main

import (
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/ddblocal/ddblocal/sdkhttp"
)

// TestNewClientSendsReadOnlyBodies: setup's client sends through
// sdkhttp.ReadOnly over the SDK's own HTTP client.
func TestNewClientSendsReadOnlyBodies(t *testing.T) {
	c := newClient("http://127.0.0.1:8000", "us-east-1")
	hc, ok := c.Options().HTTPClient.(sdkhttp.ReadOnlyBodies)
	if _, sdk := hc.Next.(*awshttp.BuildableClient); !ok || !sdk {
		t.Errorf("HTTPClient is %T over %T, want sdkhttp.ReadOnlyBodies over the SDK's *BuildableClient", c.Options().HTTPClient, hc.Next)
	}
}
