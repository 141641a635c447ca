// The jest-dynalite format (tables as a function, data as plain objects,
// basePort), with resetTables: each test file starts from these tables.
module.exports = {
  tables: async () => [
    {
      TableName: 'Counters',
      KeySchema: [{ AttributeName: 'name', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'name', AttributeType: 'S' }],
      data: [{ name: 'visits', n: 0 }],
    },
  ],
  resetTables: true,
};
