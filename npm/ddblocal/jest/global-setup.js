'use strict';
// Jest globalSetup. Per run (the default): starts one server, creates the
// tables, exports the endpoint to the workers through the environment. Per
// worker: only reserves a free port for each worker; setup-file.js points
// the worker's test files at it and setup-after-env.js runs a server there
// for each test file.
const net = require('node:net');
const { start, createTables } = require('../index');
const { loadConfig, exportEndpoint } = require('../lib/config');

module.exports = async function globalSetup(globalConfig) {
  const cfg = await loadConfig(globalConfig.rootDir);
  if (cfg.perWorker) {
    const n = Math.max(1, globalConfig.maxWorkers ?? 1);
    const ports = cfg.basePort ? Array.from({ length: n }, (_, i) => cfg.basePort + i + 1) : await freePorts(n);
    process.env.DDBLOCAL_WORKER_PORTS = ports.join(',');
    process.env.DDBLOCAL_REGION = cfg.region;
    process.env.DDBLOCAL_ROOT_DIR = globalConfig.rootDir;
    return;
  }
  const server = await start({ port: cfg.port ?? 0, args: cfg.args });
  try {
    await createTables(server.endpoint, cfg.tables, cfg.region);
  } catch (err) {
    await server.stop();
    throw err;
  }
  globalThis.__DDBLOCAL_SERVER__ = server;
  exportEndpoint(server.endpoint, cfg.region);
};

// freePorts asks the system for n free ports, all held until each is known
// so they differ.
async function freePorts(n) {
  const servers = await Promise.all(Array.from({ length: n }, () => new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

module.exports.freePorts = freePorts;
