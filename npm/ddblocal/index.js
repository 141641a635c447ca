'use strict';
// The JavaScript API: start an in-memory ddblocal on a free port and stop it.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { binaryPath } = require('./lib/binary');
const { createTables, resetTables } = require('./lib/tables');

// The binary's start-up log line names the address it listens on.
const LISTENING = /msg="ddblocal listening" addr="?\S*:(\d+)"?/;

/**
 * Starts ddblocal and resolves once it listens. See index.d.ts for options.
 */
function start(options = {}) {
  const host = options.host ?? '127.0.0.1';
  const args = ['--host', host, '--port', String(options.port ?? 0)];
  if (options.inMemory === false) {
    if (options.dbPath) args.push('--db-path', options.dbPath);
  } else {
    args.push('--in-memory');
  }
  args.push(...(options.args ?? []));
  // The guard stops the server when this process goes away (lib/guard.js).
  const child = spawn(process.execPath, [path.join(__dirname, 'lib/guard.js'), options.binary ?? binaryPath(), ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => fail(new Error(`ddblocal did not start within ${options.timeoutMs ?? 10000} ms`)), options.timeoutMs ?? 10000);
    const fail = (err) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n${log}`.trim()));
    };
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`ddblocal exited with status ${code} before listening (arguments: ${args.join(' ')})`)));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', function onData(chunk) {
      log += chunk;
      const m = LISTENING.exec(log);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stderr.off('data', onData);
      child.stderr.resume(); // keep draining so the server never blocks on a full pipe
      if (options.unref) {
        child.unref();
        child.stdin.unref();
        child.stderr.unref();
      }
      const server = running(child, `http://${host.includes(':') ? `[${host}]` : host}:${m[1]}`, Number(m[1]));
      resolve(server);
    });
  });
}

// running is the handle start resolves with.
function running(child, endpoint, port) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    endpoint,
    port,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

module.exports = { start, createTables, resetTables, binaryPath };
