// Per run: one server for all workers, tables from jest-dynamodb-config.js.
module.exports = { preset: 'ddblocal', testMatch: ['<rootDir>/jest/shared.test.js'] };
