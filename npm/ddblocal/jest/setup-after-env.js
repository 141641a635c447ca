'use strict';
// Jest setupFilesAfterEnv, in per-worker mode: each test file gets its own
// server on its worker's port, started with the config's tables before the
// file's first test and stopped after its last (jest-dynalite's lifecycle).
// Stopping it closes the SDK's keep-alive connections, which would
// otherwise keep the worker from exiting; so every file starts from the
// config's tables, whether or not resetTables is set.
const { start, createTables } = require('../index');
const { loadConfig } = require('../lib/config');

// Starting takes milliseconds, but a loaded CI machine can take seconds to
// start the processes: more than Jest's default 5 s for a hook.
const HOOK_TIMEOUT = 60000;

if (process.env.DDBLOCAL_WORKER_PORTS) {
  let server;
  beforeAll(async () => {
    const cfg = await loadConfig(process.env.DDBLOCAL_ROOT_DIR ?? process.cwd());
    server = await start({ port: Number(new URL(process.env.DDBLOCAL_ENDPOINT).port), args: cfg.args, unref: true });
    await createTables(server.endpoint, cfg.tables, cfg.region);
  }, HOOK_TIMEOUT);
  afterAll(async () => {
    await server?.stop();
  }, HOOK_TIMEOUT);
}
