// The application's client, built as an application would: the SDK v3 reads
// AWS_ENDPOINT_URL_DYNAMODB, which the ddblocal presets set.
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient } = require('@aws-sdk/lib-dynamodb');

const client = new DynamoDBClient({});
module.exports = { client, doc: DynamoDBDocumentClient.from(client) };
