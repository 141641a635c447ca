/** Options of start(). */
export interface StartOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Keep nothing after stop (default true). */
  inMemory?: boolean;
  /** With inMemory: false, the database file (default ./ddblocal.db). */
  dbPath?: string;
  /** More command-line flags, e.g. ['--throttling', '--eventual-lag', '50ms']. */
  args?: string[];
  /** Extra environment variables for the server (DDBLOCAL_...). */
  env?: Record<string, string>;
  /** The executable to run (default: the platform package's, or DDBLOCAL_BINARY). */
  binary?: string;
  /** Give up if the server has not started after this long (default 10000). */
  timeoutMs?: number;
  /** Do not keep the Node process alive for the server (test runners set it). */
  unref?: boolean;
}

/** A running server. */
export interface Server {
  /** http://127.0.0.1:PORT: pass it as the SDK's endpoint. */
  endpoint: string;
  port: number;
  /** The process id of the launcher that runs the server and stops it when this process ends. */
  pid: number;
  /** Stops the server and resolves when it has exited. */
  stop(): Promise<void>;
}

/** A table of the config: a CreateTable input, with optional plain-object items. */
export interface TableConfig {
  TableName: string;
  KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  AttributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
  /** Items to write after creating the table, as plain objects (jest-dynalite's data). */
  data?: Record<string, unknown>[];
  [member: string]: unknown;
}

/**
 * The test-runner config (ddblocal.config.js, jest-dynamodb-config.js or
 * jest-dynalite-config.js): the formats of @shelf/jest-dynamodb and
 * jest-dynalite, plus perWorker, resetTables, region and ddblocalArgs.
 */
export interface Config {
  tables?: TableConfig[] | (() => TableConfig[] | Promise<TableConfig[]>);
  /** Per-run server's port (@shelf/jest-dynamodb); default a free one. */
  port?: number;
  /** Per-worker servers listen on basePort + worker id (jest-dynalite); default free ports. */
  basePort?: number;
  /** One server per test worker instead of one per run. */
  perWorker?: boolean;
  /** Fresh tables for every test file (implies perWorker). */
  resetTables?: boolean;
  /** Region the tables are created in (default AWS_REGION or us-east-1). */
  region?: string;
  /** More ddblocal flags (@shelf/jest-dynamodb's `options` are passed on too). */
  ddblocalArgs?: string[];
}

/** Starts ddblocal; resolves when it accepts requests. */
export function start(options?: StartOptions): Promise<Server>;
/** Creates the tables (and writes their data) on the server at endpoint. */
export function createTables(endpoint: string, tables: TableConfig[], region?: string): Promise<void>;
/** Deletes every table in region, then creates tables anew. */
export function resetTables(endpoint: string, tables: TableConfig[], region?: string): Promise<void>;
/** The path of the platform's ddblocal executable. */
export function binaryPath(): string;
