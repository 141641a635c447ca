package main

import (
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// newClient returns a DynamoDB client for endpoint that signs every request
// with SigV4 using fixed dummy credentials (local servers accept any key, and
// real DynamoDB would reject them, which is the point: this tool is for local
// endpoints). It never retries, so every failure is counted as an error, and
// keeps `concurrency` idle connections so workers do not redial.
func newClient(endpoint, region string, concurrency int) *dynamodb.Client {
	transport := &http.Transport{
		Proxy:               nil, // a benchmark of localhost must not go through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
	}
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDBENCH", "bench-secret", ""),
		HTTPClient:   &http.Client{Transport: transport, Timeout: 30 * time.Second},
		Retryer:      aws.NopRetryer{},
	})
}
