'use strict';
// `preset: 'ddblocal'` in a Jest config: one in-memory ddblocal per run (or
// per test file on its worker's port, with perWorker or resetTables in the
// config), the config's
// tables created, and AWS_ENDPOINT_URL_DYNAMODB pointing the SDK v3 at it.
module.exports = {
  globalSetup: require.resolve('./jest/global-setup.js'),
  globalTeardown: require.resolve('./jest/global-teardown.js'),
  setupFiles: [require.resolve('./jest/setup-file.js')],
  setupFilesAfterEnv: [require.resolve('./jest/setup-after-env.js')],
};
