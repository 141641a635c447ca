'use strict';
// Reads the table configuration the test runners share. The formats are
// those of @shelf/jest-dynamodb (jest-dynamodb-config.js: tables, port,
// options) and jest-dynalite (jest-dynalite-config.js: tables, possibly a
// function, with `data`, basePort), plus ddblocal's own keys.
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const NAMES = ['ddblocal.config', 'jest-dynamodb-config', 'jest-dynalite-config'];
const EXTS = ['.js', '.cjs', '.mjs', '.json'];

/** configFile returns the config file to read from dir, or undefined. */
function configFile(dir) {
  const named = process.env.DDBLOCAL_CONFIG ?? process.env.JEST_DYNAMODB_CONFIG;
  if (named) return path.resolve(dir, named);
  for (const n of NAMES) for (const e of EXTS) {
    const p = path.join(dir, n + e);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/**
 * loadConfig reads the config from dir (Jest's rootDir, or the working
 * directory) and resolves functions in it. The result:
 * { file, tables, port, basePort, region, perWorker, resetTables, args }.
 */
async function loadConfig(dir = process.cwd()) {
  const file = configFile(dir);
  let raw = {};
  if (file) {
    const mod = await load(file);
    raw = mod.default ?? mod;
    if (typeof raw === 'function') raw = await raw();
  }
  let tables = raw.tables ?? [];
  if (typeof tables === 'function') tables = await tables();
  const region = raw.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  return {
    file,
    tables,
    port: raw.port,
    basePort: raw.basePort,
    region,
    perWorker: Boolean(raw.perWorker || raw.resetTables),
    resetTables: Boolean(raw.resetTables),
    args: raw.ddblocalArgs ?? raw.options ?? [],
  };
}

// load reads a config module: require for CommonJS and JSON (Jest's test
// environment has no dynamic import without --experimental-vm-modules),
// import for ES modules.
async function load(file) {
  try {
    return require(file);
  } catch (err) {
    if (err.code !== 'ERR_REQUIRE_ESM' && err.code !== 'ERR_REQUIRE_ASYNC_MODULE') throw err;
    return import(pathToFileURL(file).href);
  }
}

/**
 * exportEndpoint sets the variables the SDK v3 and the older packages' users
 * read: AWS_ENDPOINT_URL_DYNAMODB (the SDK's own), MOCK_DYNAMODB_ENDPOINT
 * (@shelf/jest-dynamodb and jest-dynalite), DDBLOCAL_ENDPOINT; and a region
 * and dummy credentials when none are set, so a fresh machine needs no AWS
 * profile.
 */
function exportEndpoint(endpoint, region) {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.MOCK_DYNAMODB_ENDPOINT = endpoint;
  process.env.DDBLOCAL_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= region;
  if (!process.env.AWS_ACCESS_KEY_ID && !process.env.AWS_PROFILE) {
    process.env.AWS_ACCESS_KEY_ID = 'ddblocal';
    process.env.AWS_SECRET_ACCESS_KEY = 'ddblocal';
  }
}

module.exports = { loadConfig, configFile, exportEndpoint };
