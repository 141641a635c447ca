// The @shelf/jest-dynamodb format: switching to ddblocal is `preset: 'ddblocal'`.
module.exports = {
  tables: [
    {
      TableName: 'Users',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
    },
    {
      TableName: 'Orders',
      KeySchema: [
        { AttributeName: 'customer', KeyType: 'HASH' },
        { AttributeName: 'at', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'customer', AttributeType: 'S' },
        { AttributeName: 'at', AttributeType: 'N' },
        { AttributeName: 'status', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byStatus',
          KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      data: [
        { customer: 'c1', at: 1, status: 'open', total: 10.5 },
        { customer: 'c1', at: 2, status: 'shipped', total: 99 },
      ],
    },
  ],
};
