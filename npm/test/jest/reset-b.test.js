// Two files run this: with resetTables, each sees the counter at 0 however
// the other changed it, whether they share a worker or not.
const { UpdateCommand, GetCommand } = require('@aws-sdk/lib-dynamodb');
const { doc } = require('../client.cjs');

test('each test file starts from the config tables', async () => {
  const before = await doc.send(new GetCommand({ TableName: 'Counters', Key: { name: 'visits' } }));
  expect(before.Item).toEqual({ name: 'visits', n: 0 });
  await doc.send(new UpdateCommand({ TableName: 'Counters', Key: { name: 'visits' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
  const after = await doc.send(new GetCommand({ TableName: 'Counters', Key: { name: 'visits' } }));
  expect(after.Item.n).toBe(1);
});
