'use strict';
// Jest setupFiles, run before each test file: in per-worker mode, point the
// SDK at this worker's port before the test file creates its clients (the
// server itself starts in setup-after-env.js, before the first test).
const { exportEndpoint } = require('../lib/config');

const ports = process.env.DDBLOCAL_WORKER_PORTS;
if (ports) {
  const list = ports.split(',').map(Number);
  const id = Number(process.env.JEST_WORKER_ID ?? 1);
  exportEndpoint(`http://127.0.0.1:${list[(id - 1) % list.length]}`, process.env.DDBLOCAL_REGION);
}
