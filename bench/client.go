package main

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/ddblocal/ddblocal/sdkhttp"
)

// newClient returns the SDK's DynamoDB client for endpoint, used by setup for
// the table's control plane (delete, create, wait). It never retries, so
// every failure is reported, and it sends through sdkhttp.ReadOnly, so the
// SDK's early close of a request body cannot fail a call on a loaded
// machine.
func newClient(endpoint, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKeyID, secretAccessKey, ""),
		Retryer:      aws.NopRetryer{},
	}, func(o *dynamodb.Options) { o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient) })
}
