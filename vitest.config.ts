import { defineConfig } from 'vitest/config';

/**
 * Suites that hold a behaviour on the wall clock (a spot wave's drain, a restart's recovery, every
 * bench section in its --quick form) live in test/wall-clock/ and run last, one file at a time, so
 * their figures are the runtime's and not the other suites' load.
 */
const WALL_CLOCK = ['test/wall-clock/**/*.test.ts'];
// Run by `npm run test:deployed` (vitest.deployed.config.ts): they need moto_server.
const DEPLOYED = ['test/deployed/**', '**/node_modules/**'];
/**
 * Suites that get a process of their own: one mocks a module of reprise's own, one measures how
 * long the event loop is held, which an earlier file's leftover heap or timers would add to.
 */
const OWN_PROCESS = ['test/functions/rotation.test.ts', 'test/acceptance/hostile-repository.test.ts'];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...WALL_CLOCK, ...OWN_PROCESS, ...DEPLOYED],
          // Two files at a time on two cores: no suite's verdict depends on the machine's load.
          maxWorkers: 2,
          // The files of one worker share its loaded modules (the AWS SDK, Octokit, the CDK): each
          // file still starts its own servers, tables and clocks.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: OWN_PROCESS, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'wall-clock',
          include: WALL_CLOCK,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
