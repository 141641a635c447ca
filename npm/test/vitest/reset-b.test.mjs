import { expect, test } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

test('each test file starts from the config tables', async () => {
  const before = await doc.send(new GetCommand({ TableName: 'Counters', Key: { name: 'visits' } }));
  expect(before.Item).toEqual({ name: 'visits', n: 0 });
  await doc.send(new UpdateCommand({ TableName: 'Counters', Key: { name: 'visits' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
  const after = await doc.send(new GetCommand({ TableName: 'Counters', Key: { name: 'visits' } }));
  expect(after.Item.n).toBe(1);
});
