import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

// The layer rules live in eslint.config.js; these rows prove each kind of breach is caught,
// so a rule that silently stopped matching would fail here rather than let the code drift.
const eslint = new ESLint({ cwd: process.cwd() });

async function rulesHit(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint: layers point down and the pure core does no I/O', () => {
  it.each([
    [
      'core → adapter',
      'lib/decide/probe.ts',
      "import { GitHubDoor } from '../github/client.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'core → settings',
      'lib/classify/probe.ts',
      "import { loadSettings } from '../config/env.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'settings → adapter',
      'lib/config/probe.ts',
      "import { openLedger } from '../ledger/ledger.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'adapter → flow',
      'lib/ledger/probe.ts',
      "import { runDecision } from '../worker/run-decision.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'ledger → signals (adapters side by side)',
      'lib/ledger/probe.ts',
      "import { RunnerKeys } from '../signals/runner-keys.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'signals → ledger (adapters side by side)',
      'lib/signals/probe.ts',
      "import type { RunnerJobs } from '../ledger/runner-jobs.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'flow → entry point',
      'lib/worker/probe.ts',
      "import { main } from '../cli/main.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'flow → compose',
      'lib/worker/probe.ts',
      "import { composeWorker } from '../compose/worker.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'compose → entry point',
      'lib/compose/probe.ts',
      "import { startRuntime } from '../local/runtime.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'compose → functions',
      'lib/compose/probe.ts',
      "import { handler } from '../../functions/worker.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'entry point → entry point',
      'lib/local/probe.ts',
      "import { main } from '../cli/main.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'lib → functions',
      'lib/worker/probe.ts',
      "import { handler } from '../../functions/worker.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'the local runtime → a flow, past lib/compose',
      'lib/local/probe.ts',
      "import { sweepAfterRestart } from '../reconcile/restart.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'the local runtime → a flow type, past lib/compose',
      'lib/local/probe.ts',
      "import type { RunOutcome } from '../worker/result.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'the local runtime → an embedded queue file, past its entry point',
      'lib/local/probe.ts',
      "import type { EmbeddedFifoQueue } from '../queue/embedded/fifo-queue.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'a flow → an embedded queue file, past its entry point',
      'lib/worker/probe.ts',
      "import { QueuePoller } from '../queue/embedded/poller.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'a function → an SQS queue file, past its entry point',
      'functions/probe.ts',
      "import { sqsRunQueue } from '../lib/queue/sqs/sqs-run-queue.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'the CLI → an SQS queue file, past its entry point',
      'lib/cli/probe.ts',
      "import { sqsRunQueue } from '../queue/sqs/sqs-run-queue.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'a function → the embedded queue',
      'functions/probe.ts',
      "import { openRunQueue } from '../lib/queue/open-embedded.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'the SQS queue → the embedded queue',
      'lib/queue/sqs/probe.ts',
      "import { QueuePoller } from '../embedded/poller.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'the embedded queue → the local runtime',
      'lib/queue/embedded/probe.ts',
      "import { startDynamo } from '../../local/dynamo.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'core → node I/O',
      'lib/decide/probe.ts',
      "import { readFileSync } from 'node:fs';",
      '@typescript-eslint/no-restricted-imports',
    ],
    [
      'core → AWS SDK',
      'lib/classify/probe.ts',
      "import { SQSClient } from '@aws-sdk/client-sqs';",
      '@typescript-eslint/no-restricted-imports',
    ],
    [
      'a DynamoDB command outside the table owner',
      'lib/reconcile/probe.ts',
      "import { PutCommand } from '@aws-sdk/lib-dynamodb';",
      '@typescript-eslint/no-restricted-imports',
    ],
    [
      'a table key outside the table owner',
      'lib/signals/probe.ts',
      "import { keys } from '../ledger/keys.js';",
      '@typescript-eslint/no-restricted-imports',
    ],
    [
      'core → YAML parser',
      'lib/decide/probe.ts',
      "import { parse } from 'yaml';",
      '@typescript-eslint/no-restricted-imports',
    ],
  ])('%s is refused', async (_name, filePath, code, rule) => {
    expect(await rulesHit(filePath, `${code}\nexport const probe = 1;\n`)).toContain(rule);
  });

  it.each([
    ['flow → adapter', 'lib/worker/probe.ts', "import { openLedger } from '../ledger/ledger.js';"],
    [
      'a DynamoDB client passed by type',
      'lib/worker/probe.ts',
      "import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
    ],
    ['entry point → flow', 'functions/probe.ts', "import { runDecision } from '../lib/worker/run-decision.js';"],
    ['compose → flow', 'lib/compose/probe.ts', "import { createWorkerHandler } from '../worker/handler.js';"],
    ['a function → compose', 'functions/probe.ts', "import { composeWorker } from '../lib/compose/worker.js';"],
    ['the local runtime → compose', 'lib/local/probe.ts', "import { composeIntake } from '../compose/intake.js';"],
    ['core → core', 'lib/decide/probe.ts', "import { globMatch } from '../util/glob.js';"],
    [
      'the local runtime → the embedded entry point',
      'lib/local/probe.ts',
      "import { QueuePoller } from '../queue/open-embedded.js';",
    ],
    [
      'a function → the SQS entry point',
      'functions/probe.ts',
      "import { sqsRunQueue } from '../lib/queue/open-sqs.js';",
    ],
    ['a flow → the queue contract', 'lib/intake/probe.ts', "import type { RunQueue } from '../queue/run-queue.js';"],
    [
      'an entry point → its implementation',
      'lib/queue/probe.ts',
      "import { QueuePoller } from './embedded/poller.js';",
    ],
    [
      'the queue journal → its own table',
      'lib/queue/embedded/journal-store.ts',
      "import { PutCommand } from '@aws-sdk/lib-dynamodb';",
    ],
  ])('%s is allowed (the control: the rule is not refusing everything)', async (_name, filePath, code) => {
    const hits = await rulesHit(filePath, `${code}\nexport const probe = 1;\n`);
    expect(hits.filter((r) => r.startsWith('import-x/') || r.includes('no-restricted-imports'))).toEqual([]);
  });

  const dir = mkdtempSync(join(process.cwd(), 'test/lint/.cycle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an import cycle is refused', async () => {
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = (): number => b + 1;\n");
    writeFileSync(join(dir, 'b.ts'), "import { a } from './a.js';\nexport const b = 1;\nexport const c = a;\n");
    const results = await eslint.lintFiles([join(dir, 'a.ts')]);
    expect(results.flatMap((r) => r.messages.map((m) => m.ruleId))).toContain('import-x/no-cycle');
  });
});
