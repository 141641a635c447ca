#!/usr/bin/env node
// Builds the npm packages from the repository: cross-compiles ddblocal for
// each platform into a package of its own (@ddblocal/<platform>-<arch>, with
// "os" and "cpu" so npm installs only the matching one), stamps the main
// package with the version and those optionalDependencies, and `npm pack`s
// them all into --out.
//
//   node npm/scripts/build.mjs [--out DIR] [--version 1.2.3] [--platforms all|host|linux-x64,...]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// npm's platform and arch names, and Go's.
export const PLATFORMS = {
  'linux-x64': ['linux', 'amd64'],
  'linux-arm64': ['linux', 'arm64'],
  'darwin-x64': ['darwin', 'amd64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'win32-x64': ['windows', 'amd64'],
  'win32-arm64': ['windows', 'arm64'],
};

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

function parseArgs(argv) {
  const a = { out: path.join(repo, 'npm/dist'), version: '0.0.0-dev', platforms: 'all' };
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, '');
    if (!(k in a) || argv[i + 1] === undefined) throw new Error(`usage: build.mjs [--out DIR] [--version V] [--platforms all|host|LIST]; bad ${argv[i]}`);
    a[k] = argv[i + 1];
  }
  if (a.platforms === 'all') a.platforms = Object.keys(PLATFORMS);
  else if (a.platforms === 'host') a.platforms = [`${process.platform}-${process.arch}`];
  else a.platforms = a.platforms.split(',');
  for (const p of a.platforms) if (!PLATFORMS[p]) throw new Error(`unknown platform ${p}; known: ${Object.keys(PLATFORMS).join(', ')}`);
  return a;
}

// buildPlatform compiles the binary into stage/<platform>/bin and writes the
// platform package's package.json.
function buildPlatform(p, stage, version) {
  const [goos, goarch] = PLATFORMS[p];
  const [os, cpu] = p.split('-');
  const dir = path.join(stage, p);
  const exe = path.join(dir, 'bin', goos === 'windows' ? 'ddblocal.exe' : 'ddblocal');
  const t0 = Date.now();
  execFileSync('go', ['build', '-tags', 'grpcnotrace', '-trimpath', '-ldflags', `-s -w -X main.version=v${version}`, '-o', exe, '.'], {
    cwd: repo, stdio: 'inherit', env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0' },
  });
  console.error(`build.mjs: ${p} built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  write(path.join(dir, 'package.json'), {
    name: `@ddblocal/${p}`, version, description: `The ddblocal binary for ${os} ${cpu}; installed by the ddblocal package`,
    repository: { type: 'git', url: 'git+https://github.com/ddblocal/ddblocal.git', directory: 'npm' },
    os: [os], cpu: [cpu], files: ['bin'], preferUnplugged: true,
  });
  return dir;
}

// stageMain copies npm/ddblocal and stamps its version and dependencies.
function stageMain(stage, version) {
  const dir = path.join(stage, 'ddblocal');
  fs.cpSync(path.join(repo, 'npm/ddblocal'), dir, { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  pkg.version = version;
  pkg.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((p) => [`@ddblocal/${p}`, version]));
  write(path.join(dir, 'package.json'), pkg);
  fs.copyFileSync(path.join(repo, 'docs/javascript.md'), path.join(dir, 'README.md'));
  return dir;
}

function write(file, obj) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(obj, null, 2) + '\n');
}

function main() {
  const a = parseArgs(process.argv.slice(2));
  const stage = path.join(a.out, 'stage');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(a.out, { recursive: true });
  const dirs = [stageMain(stage, a.version), ...a.platforms.map((p) => buildPlatform(p, stage, a.version))];
  for (const dir of dirs) {
    execFileSync('npm', ['pack', '--pack-destination', a.out, '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  }
}

main();
