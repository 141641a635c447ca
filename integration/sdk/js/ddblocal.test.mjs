// The JavaScript SDK v3 (client-dynamodb and lib-dynamodb) against a running
// ddblocal. Run by integration/sdk_test.go (TestSDKJavaScript) with
// `node --test`, DDBLOCAL_ENDPOINT and the AWS_* credentials and region a
// fresh machine lacks.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand, UpdateTableCommand, DeleteTableCommand,
  ListTablesCommand, waitUntilTableExists, waitUntilTableNotExists,
  ConditionalCheckFailedException, ResourceNotFoundException, TransactionCanceledException,
  ResourceInUseException, DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, UpdateCommand, DeleteCommand, QueryCommand,
  BatchWriteCommand, TransactWriteCommand, TransactGetCommand, paginateQuery, paginateScan,
} from "@aws-sdk/lib-dynamodb";

const client = new DynamoDBClient({ endpoint: process.env.DDBLOCAL_ENDPOINT, maxAttempts: 1 });
const doc = DynamoDBDocumentClient.from(client);
const waiter = { client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 };

async function create(name) {
  await client.send(new CreateTableCommand({
    TableName: name, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "N" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
  }));
  await waitUntilTableExists(waiter, { TableName: name });
}

test("table lifecycle with waiters", async () => {
  await create("js-life");
  const d = await client.send(new DescribeTableCommand({ TableName: "js-life" }));
  assert.equal(d.Table.TableStatus, "ACTIVE");
  assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames.includes("js-life"), true);
  await client.send(new UpdateTableCommand({
    TableName: "js-life", AttributeDefinitions: [{ AttributeName: "g", AttributeType: "S" }],
    GlobalSecondaryIndexUpdates: [{ Create: { IndexName: "byG", KeySchema: [{ AttributeName: "g", KeyType: "HASH" }], Projection: { ProjectionType: "KEYS_ONLY" } } }],
  }));
  await waitUntilTableExists(waiter, { TableName: "js-life" });
  const u = await client.send(new DescribeTableCommand({ TableName: "js-life" }));
  assert.deepEqual(u.Table.GlobalSecondaryIndexes.map((g) => g.IndexName), ["byG"]);
  await client.send(new DeleteTableCommand({ TableName: "js-life" }));
  await waitUntilTableNotExists(waiter, { TableName: "js-life" });
});

test("CRUD with conditions", async () => {
  await create("js-crud");
  const key = { pk: "a", sk: 1 };
  await doc.send(new PutCommand({ TableName: "js-crud", Item: { ...key, n: 5, tags: new Set(["x"]), m: { deep: [1, "two", null] } }, ConditionExpression: "attribute_not_exists(pk)" }));
  await assert.rejects(
    doc.send(new PutCommand({ TableName: "js-crud", Item: key, ConditionExpression: "attribute_not_exists(pk)" })),
    (err) => err instanceof ConditionalCheckFailedException && err.message === "The conditional request failed" && err.$metadata.httpStatusCode === 400);
  const up = await doc.send(new UpdateCommand({
    TableName: "js-crud", Key: key, UpdateExpression: "SET n = n + :d", ConditionExpression: "n = :five",
    ExpressionAttributeValues: { ":d": 2, ":five": 5 }, ReturnValues: "ALL_NEW",
  }));
  assert.equal(up.Attributes.n, 7);
  const got = await doc.send(new GetCommand({ TableName: "js-crud", Key: key, ConsistentRead: true }));
  assert.deepEqual(got.Item.m, { deep: [1, "two", null] });
  assert.deepEqual([...got.Item.tags], ["x"]);
  await assert.rejects(doc.send(new DeleteCommand({ TableName: "js-crud", Key: key, ConditionExpression: "n = :x", ExpressionAttributeValues: { ":x": 0 } })),
    ConditionalCheckFailedException);
  await doc.send(new DeleteCommand({ TableName: "js-crud", Key: key, ConditionExpression: "attribute_exists(pk)" }));
  assert.equal((await doc.send(new GetCommand({ TableName: "js-crud", Key: key }))).Item, undefined);
});

test("batch writes, then Query and Scan paginators", async () => {
  await create("js-pages");
  for (let b = 0; b < 4; b++) {
    let items = { "js-pages": Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { pk: "p", sk: b * 25 + i } } })) };
    for (let attempt = 0; Object.keys(items).length > 0; attempt++) {
      assert.ok(attempt < 10, "UnprocessedItems did not drain");
      items = (await doc.send(new BatchWriteCommand({ RequestItems: items }))).UnprocessedItems ?? {};
    }
  }
  const sks = [];
  let pages = 0;
  for await (const page of paginateQuery({ client: doc, pageSize: 30 }, {
    TableName: "js-pages", KeyConditionExpression: "pk = :p AND sk >= :s", ExpressionAttributeValues: { ":p": "p", ":s": 10 },
  })) {
    pages++;
    sks.push(...page.Items.map((i) => i.sk));
  }
  assert.deepEqual(sks, Array.from({ length: 90 }, (_, i) => i + 10));
  // The third page is full, so it carries LastEvaluatedKey, as DynamoDB's
  // does; an empty fourth page ends the query.
  assert.equal(pages, 4);
  const desc = await doc.send(new QueryCommand({ TableName: "js-pages", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": "p" }, ScanIndexForward: false, Limit: 3 }));
  assert.deepEqual(desc.Items.map((i) => i.sk), [99, 98, 97]);
  let scanned = 0;
  for await (const page of paginateScan({ client: doc, pageSize: 13 }, { TableName: "js-pages" })) scanned += page.Count;
  assert.equal(scanned, 100);
});

test("transactions", async () => {
  await create("js-tx");
  await doc.send(new TransactWriteCommand({ TransactItems: [
    { Put: { TableName: "js-tx", Item: { pk: "t", sk: 1, v: 10 } } },
    { Put: { TableName: "js-tx", Item: { pk: "t", sk: 2, v: 20 } } },
  ] }));
  await assert.rejects(doc.send(new TransactWriteCommand({ TransactItems: [
    { Update: { TableName: "js-tx", Key: { pk: "t", sk: 1 }, UpdateExpression: "SET v = v - :d", ExpressionAttributeValues: { ":d": 5 } } },
    { ConditionCheck: { TableName: "js-tx", Key: { pk: "t", sk: 2 }, ConditionExpression: "v > :big", ExpressionAttributeValues: { ":big": 100 } } },
  ] })), (err) => {
    assert.ok(err instanceof TransactionCanceledException);
    assert.deepEqual(err.CancellationReasons.map((r) => r.Code), ["None", "ConditionalCheckFailed"]);
    return true;
  });
  const got = await doc.send(new TransactGetCommand({ TransactItems: [
    { Get: { TableName: "js-tx", Key: { pk: "t", sk: 1 } } }, { Get: { TableName: "js-tx", Key: { pk: "t", sk: 2 } } },
  ] }));
  assert.deepEqual(got.Responses.map((r) => r.Item.v), [10, 20]);
});

test("typed errors", async () => {
  await assert.rejects(client.send(new DescribeTableCommand({ TableName: "js-missing" })),
    (err) => err instanceof ResourceNotFoundException && err.name === "ResourceNotFoundException");
  await create("js-errors");
  await assert.rejects(create("js-errors"), ResourceInUseException);
  await assert.rejects(doc.send(new PutCommand({ TableName: "js-errors", Item: { pk: "a" } })), (err) =>
    err instanceof DynamoDBServiceException && err.name === "ValidationException" &&
    err.message === "One or more parameter values were invalid: Missing the key sk in the item");
});
