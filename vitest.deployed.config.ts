import { defineConfig } from 'vitest/config';

/**
 * `npm run test:deployed`: the bundled handlers against moto_server (an independent AWS
 * emulator) and the GitHub simulator. Kept out of `npm test`, which needs no Python.
 */
export default defineConfig({
  test: {
    include: ['test/deployed/**/*.test.ts'],
    // The handlers run from dist/lambda/, rebuilt first whenever a source is newer.
    globalSetup: ['test/support/build.ts'],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_DEV: 'false',
    },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
