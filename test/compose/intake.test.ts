/**
 * `POST /webhook` as the intake function and the local runtime assemble it, on dynalite and the
 * embedded queue, through API Gateway's real event shape: what `composeIntake` wires.
 */
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { composeIntake, type IntakeParts } from '../../lib/compose/intake.js';
import { intakeSettings } from '../../lib/config/function-settings.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { MemoryLog } from '../support/memory-log.js';
import { realExamples, webhookEvent } from '../support/webhooks.js';

const TABLE = 'compose-intake';
const SECRET = 'compose-secret';

let dynamo: EmbeddedDynamo;
let queue: EmbeddedFifoQueue;
let handler: ReturnType<typeof composeIntake>;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo?.close());
beforeEach(() => {
  queue = new EmbeddedFifoQueue({ name: 'compose-intake.fifo' });
  const parts: IntakeParts = {
    ledger: openLedger(dynamo.client, TABLE),
    queue: embeddedRunQueue(queue),
    secrets: async () => [SECRET],
    log: new MemoryLog(),
    metrics: new MemoryMetrics(),
  };
  handler = composeIntake(intakeSettings({}), parts);
});

async function deliver(event: string, payload: unknown, guid: string = randomUUID()) {
  const raw = JSON.stringify(payload);
  const headers = {
    'content-type': 'application/json',
    'X-GitHub-Event': event,
    'X-GitHub-Delivery': guid,
    'X-Hub-Signature-256': await sign(SECRET, raw),
  };
  const res = (await handler(webhookEvent(headers, { body: raw, isBase64Encoded: false }))) as {
    statusCode: number;
    body: string;
  };
  return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
}

const example = (event: 'workflow_run' | 'workflow_job', action: string) => {
  const p = realExamples(event).find((e) => e.action === action)!;
  p.installation = { id: 99, node_id: 'x' };
  return p;
};

function redRun() {
  const p = example('workflow_run', 'completed');
  (p.workflow_run as Record<string, unknown>).conclusion = 'failure';
  return p;
}

describe('composeIntake: the webhook intake as the function and the local runtime run it', () => {
  it('a signed red run is enqueued on the queue of the parts, in its run’s message group', async () => {
    const res = await deliver('workflow_run', redRun());
    expect(res).toMatchObject({ status: 202, body: { reason: 'enqueued' } });
    const [record] = queue.receive(1);
    const msg = JSON.parse(record!.body) as { runId: number; repository: { id: number } };
    expect(record!.attributes.MessageGroupId).toBe(`${msg.repository.id}#${msg.runId}`);
  });

  it('the same delivery again is a duplicate: the deliveries seen are the ledger’s of the parts', async () => {
    const guid = randomUUID();
    await deliver('workflow_run', redRun(), guid);
    expect(await deliver('workflow_run', redRun(), guid)).toMatchObject({
      status: 200,
      body: { reason: 'duplicate' },
    });
    expect(queue.size()).toBe(1);
  });

  it('a job waiting for a runner is recorded for the stuck-queued sweep', async () => {
    expect(await deliver('workflow_job', example('workflow_job', 'queued'))).toMatchObject({
      status: 202,
      body: { reason: 'job recorded as queued' },
    });
    expect(queue.size()).toBe(0);
  });

  it('a job that started is recorded on its runner, for the signals to find', async () => {
    expect(await deliver('workflow_job', example('workflow_job', 'in_progress'))).toMatchObject({
      status: 202,
      body: { reason: 'job recorded on its runner' },
    });
  });

  it('a delivery signed with another secret is refused', async () => {
    const raw = JSON.stringify(redRun());
    const headers = {
      'X-GitHub-Event': 'workflow_run',
      'X-GitHub-Delivery': randomUUID(),
      'X-Hub-Signature-256': await sign('another-secret', raw),
    };
    const res = (await handler(webhookEvent(headers, { body: raw, isBase64Encoded: false }))) as { statusCode: number };
    expect(res.statusCode).toBe(401);
    expect(queue.size()).toBe(0);
  });
});
