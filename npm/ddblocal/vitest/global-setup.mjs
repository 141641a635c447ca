// Vitest globalSetup (`globalSetup: ['ddblocal/vitest']`): starts one
// in-memory ddblocal for the run, creates the config's tables, and exports
// the endpoint to the test workers through the environment and
// provide('ddblocalEndpoint'). With perWorker or resetTables in the config,
// use the setup file 'ddblocal/vitest/worker' instead.
import ddblocal from '../index.js';
import config from '../lib/config.js';

export default async function setup(project) {
  const cfg = await config.loadConfig(project?.config?.root ?? process.cwd());
  const server = await ddblocal.start({ port: cfg.port ?? 0, args: cfg.args });
  try {
    await ddblocal.createTables(server.endpoint, cfg.tables, cfg.region);
  } catch (err) {
    await server.stop();
    throw err;
  }
  config.exportEndpoint(server.endpoint, cfg.region);
  project?.provide?.('ddblocalEndpoint', server.endpoint);
  return () => server.stop();
}
