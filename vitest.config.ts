import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Run by `npm run test:deployed` (vitest.deployed.config.ts): they need moto_server.
    exclude: ['test/deployed/**', '**/node_modules/**'],
    // Tests that start `npm start`, the `reprise` command or the packed package run the compiled build.
    globalSetup: ['test/support/build.ts'],
    env: {
      // Only the SDK's Node 20 notice is silenced; every other warning still prints.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_DEV: 'false',
    },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
