import { defineConfig } from 'vitest/config';

// Per run: one server from the global setup, tables from jest-dynamodb-config.js.
export default defineConfig({ test: { globalSetup: ['ddblocal/vitest'], include: ['vitest/shared.test.mjs'] } });
