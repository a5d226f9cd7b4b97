/**
 * The two signal recorders as their functions and the local runtime assemble them, on dynalite:
 * `composeSignalIntake` records an agent's post in the table with the settings' time to live,
 * and `composeEc2SignalRecorder` records an EC2 warning and finds the jobs the webhook intake
 * recorded on that instance's runner, in the same table.
 */
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeIntake } from '../../lib/compose/intake.js';
import { composeEc2SignalRecorder, composeSignalIntake } from '../../lib/compose/signals.js';
import { intakeSettings } from '../../lib/config/function-settings.js';
import { ANY_OWNER } from '../../lib/config/signal-scope.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { MemoryLog } from '../support/memory-log.js';
import { realExamples, webhookEvent } from '../support/webhooks.js';
import { freshTable as signalsTable, scanTable, spotInterruptionWarning } from '../signals/fixtures.js';

const TABLE = 'compose-signals';
const SECRET = 'compose-signal-secret-0123456789abcdef';
const TTL_SECONDS = 3 * 86_400;

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo?.close());

/** A table of its own for each test (ACTIVE before it is written), so a scan sees only what that test wrote. */
const freshTable = async (): Promise<string> => (await signalsTable(dynamo)).table;

const post = (body: unknown) => ({
  version: '2.0',
  rawPath: '/signals',
  headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
  requestContext: { http: { method: 'POST' } },
  body: JSON.stringify(body),
  isBase64Encoded: false,
});

describe('composeSignalIntake: POST /signals as the function runs it', () => {
  it('records an agent’s signal under each runner, once, with the time to live of the settings', async () => {
    const table = await freshTable();
    const handle = composeSignalIntake(
      { ttlSeconds: TTL_SECONDS, toleranceMs: 300_000 },
      {
        ledger: openLedger(dynamo.client, table),
        secrets: async () => [{ secret: SECRET, scope: ANY_OWNER }],
        log: new MemoryLog(),
        metrics: new MemoryMetrics(),
      },
    );
    const body = {
      runners: ['runner-a', 'runner-b'],
      kind: 'spot-interruption',
      event_time: new Date().toISOString(),
      event_id: randomUUID(),
    };
    const first = (await handle(post(body) as never)) as { statusCode: number; body: string };
    expect(first.statusCode).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({ recorded: 2 });
    const again = (await handle(post(body) as never)) as { statusCode: number; body: string };
    expect(JSON.parse(again.body)).toMatchObject({ recorded: 0 });

    const signals = (await scanTable(dynamo.client, table)).filter((i) => i.kind === 'spot-interruption');
    expect(signals.map((i) => i.runnerKey).sort()).toEqual(['runner-a', 'runner-b']);
    for (const item of signals) {
      // The time to live is the settings': days away, where the default would be another figure.
      const days = (Number(item.ttl) - Date.now() / 1000) / 86_400;
      expect(days).toBeGreaterThan(2.9);
      expect(days).toBeLessThan(3.1);
    }
  });
});

describe('composeEc2SignalRecorder: the EventBridge target', () => {
  it('records a spot warning, and finds the job the webhook intake recorded on that instance’s runner', async () => {
    const table = await freshTable();
    const instanceId = 'i-0fedcba9876543210';
    const intake = composeIntake(intakeSettings({}), {
      ledger: openLedger(dynamo.client, table),
      queue: { send: async () => undefined },
      secrets: async () => ['s'],
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
    });
    const payload = realExamples('workflow_job').find((p) => p.action === 'in_progress')!;
    (payload.workflow_job as Record<string, unknown>).runner_name = `runner-${instanceId}`;
    const raw = JSON.stringify(payload);
    const headers = {
      'X-GitHub-Event': 'workflow_job',
      'X-GitHub-Delivery': randomUUID(),
      'X-Hub-Signature-256': await sign('s', raw),
    };
    const started = (await intake(webhookEvent(headers, { body: raw, isBase64Encoded: false }))) as {
      statusCode: number;
    };
    expect(started.statusCode).toBe(202);

    const metrics = new MemoryMetrics();
    const log = new MemoryLog();
    const record = composeEc2SignalRecorder(
      { ttlSeconds: TTL_SECONDS, tagKeys: [] },
      { ledger: openLedger(dynamo.client, table), describe: async () => undefined, log, metrics },
    );
    const out = await record(spotInterruptionWarning(new Date().toISOString(), instanceId));
    expect(out.recorded).toBeGreaterThan(0);
    expect(metrics.get('InterruptedJobs')).toBe(1);
    expect(log.named('EC2 signal recorded')[0]).toMatchObject({
      interrupted_jobs: [expect.objectContaining({ job_id: (payload.workflow_job as { id: number }).id })],
    });
  });
});
