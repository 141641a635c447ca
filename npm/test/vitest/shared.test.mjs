import { expect, inject, test } from 'vitest';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { start } from 'ddblocal';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

test('the global setup provides the endpoint and created the tables', async () => {
  expect(inject('ddblocalEndpoint')).toBe(process.env.AWS_ENDPOINT_URL_DYNAMODB);
  const { TableNames } = await doc.send(new ListTablesCommand({}));
  expect(TableNames).toEqual(['Orders', 'Users']);
});

test('items round-trip through the document client', async () => {
  await doc.send(new PutCommand({ TableName: 'Users', Item: { id: 'v1', tags: new Set(['a', 'b']), n: 12345678901234567890n } }));
  const { Item } = await new DynamoDBDocumentClient(new DynamoDBClient({}), { unmarshallOptions: { wrapNumbers: true } })
    .send(new GetCommand({ TableName: 'Users', Key: { id: 'v1' } }));
  expect(Item.tags).toEqual(new Set(['a', 'b']));
  expect(Item.n.value).toBe('12345678901234567890');
});

test('start() runs a second, independent server on a free port', async () => {
  const server = await start();
  try {
    const c = new DynamoDBClient({ endpoint: server.endpoint });
    expect((await c.send(new ListTablesCommand({}))).TableNames).toEqual([]);
  } finally {
    await server.stop();
  }
});
