const { DescribeTableCommand, TransactWriteItemsCommand, ExecuteStatementCommand, ConditionalCheckFailedException } = require('@aws-sdk/client-dynamodb');
const { PutCommand, GetCommand, QueryCommand } = require('@aws-sdk/lib-dynamodb');
const { client, doc } = require('../client.cjs');

test('the preset points the SDK at ddblocal and created the config tables', async () => {
  expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: 'Orders' }));
  expect(Table.TableStatus).toBe('ACTIVE');
  expect(Table.GlobalSecondaryIndexes[0].IndexName).toBe('byStatus');
});

test('data items were loaded and a GSI answers', async () => {
  const { Items } = await doc.send(new QueryCommand({
    TableName: 'Orders', IndexName: 'byStatus', KeyConditionExpression: '#s = :s',
    ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'open' },
  }));
  expect(Items).toEqual([{ customer: 'c1', at: 1, status: 'open', total: 10.5 }]);
});

test('conditional writes fail with the SDK typed error', async () => {
  await doc.send(new PutCommand({ TableName: 'Users', Item: { id: 'u1', name: 'Ada' } }));
  await expect(doc.send(new PutCommand({ TableName: 'Users', Item: { id: 'u1' }, ConditionExpression: 'attribute_not_exists(id)' })))
    .rejects.toBeInstanceOf(ConditionalCheckFailedException);
  const { Item } = await doc.send(new GetCommand({ TableName: 'Users', Key: { id: 'u1' } }));
  expect(Item).toEqual({ id: 'u1', name: 'Ada' });
});

test('transactions and PartiQL, which dynalite lacks', async () => {
  await client.send(new TransactWriteItemsCommand({ TransactItems: [
    { Put: { TableName: 'Users', Item: { id: { S: 'u2' } } } },
    { Put: { TableName: 'Users', Item: { id: { S: 'u3' } } } },
  ] }));
  const { Items } = await client.send(new ExecuteStatementCommand({ Statement: 'SELECT id FROM "Users" WHERE id = ?', Parameters: [{ S: 'u3' }] }));
  expect(Items).toEqual([{ id: { S: 'u3' } }]);
});
