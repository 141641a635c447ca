// Vitest setup file (`setupFiles: ['ddblocal/vitest/worker']`): one
// in-memory ddblocal per worker on a free port, started before the worker's
// first test file; with resetTables in the config, every later test file
// gets fresh tables. The server stops when the worker exits.
import ddblocal from '../index.js';
import config from '../lib/config.js';

const cfg = await config.loadConfig(process.env.DDBLOCAL_ROOT_DIR ?? process.cwd());
const started = process.env.DDBLOCAL_WORKER_STARTED;
if (!started) {
  const server = await ddblocal.start({ port: 0, args: cfg.args, unref: true });
  process.env.DDBLOCAL_WORKER_STARTED = server.endpoint;
  await ddblocal.createTables(server.endpoint, cfg.tables, cfg.region);
  config.exportEndpoint(server.endpoint, cfg.region);
} else if (cfg.resetTables) {
  await ddblocal.resetTables(started, cfg.tables, cfg.region);
}
