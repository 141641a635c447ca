import { defineConfig } from 'vitest/config';

process.env.DDBLOCAL_CONFIG = 'jest-dynalite-config.cjs';
// Per worker, fresh tables for every test file.
export default defineConfig({ test: { setupFiles: ['ddblocal/vitest/worker'], include: ['vitest/reset-*.test.mjs'], maxWorkers: 2 } });
