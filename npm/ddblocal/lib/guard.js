'use strict';
// The process start() spawns: it runs ddblocal (argv[2..]) and stops it
// when the Node process that started it goes away for any reason (exit,
// signal, crash, SIGKILL), which closes this process's stdin. Test runners
// end their workers in ways that skip 'exit' handlers, and a Jest test
// file's `process` is a sandbox whose handlers never run, so the parent
// cannot be relied on to clean up.
const { spawn } = require('node:child_process');

const server = spawn(process.argv[2], process.argv.slice(3), { stdio: ['ignore', 'ignore', 'inherit'] });
const stop = (sig) => server.kill(sig);
process.stdin.on('close', () => stop('SIGTERM'));
process.stdin.on('end', () => stop('SIGTERM'));
process.stdin.resume();
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => stop(sig));
server.on('error', (err) => {
  console.error(`ddblocal: ${err.message}`);
  process.exit(1);
});
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
