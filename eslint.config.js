import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import tseslint from 'typescript-eslint';
import { repriseRules } from './test/lint/eslint-rules.mjs';

// Layers point down: pure core ← settings ← adapters ← flows ← compose ← entry points. A module may import
// from its own layer or any layer below it, never from one above.
const layers = {
  core: ['lib/model.ts', 'lib/errors.ts', 'lib/records.ts', 'lib/util', 'lib/classify', 'lib/decide'],
  config: ['lib/config'],
  adapters: [
    'lib/github',
    'lib/ledger',
    'lib/queue',
    'lib/signals',
    'lib/webhook',
    'lib/http',
    'lib/obs',
    'lib/events',
  ],
  flows: ['lib/intake', 'lib/worker', 'lib/reconcile', 'lib/replay', 'lib/backtest'],
  // Assembles each process's flow from its settings and clients, once for Lambda and the local runtime.
  compose: ['lib/compose'],
  entryPoints: ['lib/cli', 'lib/local', 'functions', 'infra'],
};
const above = {
  core: [...layers.config, ...layers.adapters, ...layers.flows, ...layers.compose, ...layers.entryPoints],
  config: [...layers.adapters, ...layers.flows, ...layers.compose, ...layers.entryPoints],
  adapters: [...layers.flows, ...layers.compose, ...layers.entryPoints],
  flows: [...layers.compose, ...layers.entryPoints],
  compose: layers.entryPoints,
};
const zones = [
  ...Object.entries(above).flatMap(([layer, from]) =>
    layers[layer].map((target) => ({
      target: `./${target}`,
      from: from.map((f) => `./${f}`),
      message: `${layer} never imports a layer above it`,
    })),
  ),
  // The ledger stores what the signal paths found, under the keys their callers derive: neither
  // adapter leans on the other (a store takes keys, not the policy that makes them).
  {
    target: './lib/ledger',
    from: './lib/signals',
    message: 'the ledger takes runner keys from its caller: no import from lib/signals',
  },
  {
    target: './lib/signals',
    from: './lib/ledger',
    message: 'signals read the ledger through the records (lib/records.ts): no import from lib/ledger',
  },
  // Entry points stand side by side: the CLI and the local runtime share code through the layers below.
  {
    target: './lib/cli',
    from: ['./lib/local', './functions', './infra'],
    message: 'entry points do not import each other',
  },
  {
    target: './lib/local',
    from: ['./lib/cli', './functions', './infra'],
    message: 'entry points do not import each other',
  },
  {
    target: './functions',
    from: ['./infra', './lib/cli', './lib/local'],
    message: 'entry points do not import each other',
  },
  { target: './infra', from: ['./lib/cli', './lib/local'], message: 'entry points do not import each other' },
  // The local runtime only composes: it takes each process, and what runs beside them (the restart
  // sweep, the dead letters, a replay, the sweep timer), from lib/compose, as the functions do.
  {
    target: './lib/local',
    from: layers.flows.map((f) => `./${f}`),
    message: 'the local runtime only composes: take the flow from lib/compose',
  },
  // The run queue's implementations stay behind their entry points (lib/queue/open-embedded.ts, open-sqs.ts):
  // outside lib/queue/ a caller names the contract (run-queue.ts) or an entry point, never an implementation's
  // file. What only tests use of SQS (the whole queue, its receive, its dead letters) lives in test/support/sqs/.
  {
    target: ['./lib/!(queue)/**', './lib/*.ts', './functions/**', './infra/**'],
    from: ['./lib/queue/embedded', './lib/queue/sqs'],
    message: 'reach the queue through its entry point: lib/queue/open-embedded.ts or lib/queue/open-sqs.ts',
  },
  // The deployed functions run on SQS: the embedded queue is the local runtime's.
  {
    target: ['./functions/**', './infra/**'],
    from: ['./lib/queue/open-embedded.ts'],
    message: 'the deployed functions use the SQS queue',
  },
  // The two implementations stand side by side; what they share is in lib/queue/ itself.
  {
    target: './lib/queue/sqs',
    from: './lib/queue/embedded',
    message: 'queue implementations do not import each other',
  },
  {
    target: './lib/queue/embedded',
    from: './lib/queue/sqs',
    message: 'queue implementations do not import each other',
  },
];

// The pure core takes facts and returns decisions: no network, disk, clock-bound SDKs or parsers of I/O formats.
const ioModules = [
  'node:*',
  'fs',
  'http',
  'https',
  'net',
  'child_process',
  '@aws-sdk/*',
  '@octokit/*',
  '@aws-lambda-powertools/*',
  'yaml',
  'aws-cdk-lib',
  'aws-cdk-lib/*',
];

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'bench/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      ...Object.fromEntries(
        Object.entries(importX.flatConfigs.typescript.settings).filter(([k]) => k !== 'import-x/resolver'),
      ),
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
    },
  },
  {
    // One owner per resource: only lib/ledger/ talks to the table (the local runtime creates it,
    // the CLI builds the client); everyone else passes a client through, by type. The local
    // queue's journal is a table of its own, owned by its store, on the ledger's table adapter.
    files: ['lib/**/*.ts'],
    ignores: ['lib/ledger/**', 'lib/local/dynamo.ts', 'lib/cli/aws.ts', 'lib/queue/embedded/journal-store.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
              allowTypeImports: true,
              message: 'the table has one owner: use lib/ledger/',
            },
            {
              group: ['**/ledger/table.js', '**/ledger/keys.js'],
              message: 'keys and commands stay inside lib/ledger/: use its ports',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'lib/classify/**/*.ts',
      'lib/decide/**/*.ts',
      'lib/model.ts',
      'lib/errors.ts',
      'lib/records.ts',
      'lib/util/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ioModules, message: 'the pure core does no I/O: take the fact as an argument' }] },
      ],
    },
  },
  {
    // A function of lib/ is read whole: past 60 lines it holds more than one step; name the steps.
    files: ['lib/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Every export of lib/ says what it is for, in TSDoc right above it.
    files: ['lib/**/*.ts'],
    plugins: { reprise: repriseRules },
    rules: { 'reprise/exports-have-tsdoc': 'error' },
  },
);
