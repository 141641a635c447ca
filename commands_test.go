package main

import (
	"context"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/ddblocal/ddblocal/sdkhttp"
)

// TestClientSendsReadOnlyBodies: the subcommands' SDK client sends through
// sdkhttp.ReadOnly, over the SDK's own client (its default timeouts kept).
func TestClientSendsReadOnlyBodies(t *testing.T) {
	e := &endpointFlags{endpoint: "http://127.0.0.1:8000", region: "us-east-1"}
	c, err := e.client(context.Background(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	hc, ok := c.Options().HTTPClient.(sdkhttp.ReadOnlyBodies)
	if _, sdk := hc.Next.(*awshttp.BuildableClient); !ok || !sdk {
		t.Errorf("HTTPClient is %T over %T, want sdkhttp.ReadOnlyBodies over the SDK's *BuildableClient", c.Options().HTTPClient, hc.Next)
	}
}
