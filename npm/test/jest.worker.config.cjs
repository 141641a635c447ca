// Per worker, fresh tables for every test file (resetTables).
process.env.DDBLOCAL_CONFIG = 'jest-dynalite-config.cjs';
module.exports = { preset: 'ddblocal', testMatch: ['<rootDir>/jest/reset-*.test.js'], maxWorkers: 2 };
