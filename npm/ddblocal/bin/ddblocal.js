#!/usr/bin/env node
'use strict';
// `npx ddblocal ...`: runs the platform's binary with the same arguments,
// standard streams and exit status.
const { spawn } = require('node:child_process');
const { binaryPath } = require('../lib/binary');

let bin;
try {
  bin = binaryPath();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (err) => {
  console.error(`ddblocal: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
