'use strict';
// Jest globalTeardown: stops the per-run server (per-worker servers stop
// when their worker exits).
module.exports = async function globalTeardown() {
  const server = globalThis.__DDBLOCAL_SERVER__;
  delete globalThis.__DDBLOCAL_SERVER__;
  if (server) await server.stop();
};
