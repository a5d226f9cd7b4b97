/**
 * The local runtime's processes, composed as the Lambda functions are and sharing one table, one
 * ledger and one queue: a delivery the intake accepts is on the queue the worker receives from,
 * the worker decides it with the shared GitHub clients, and the signal intake refuses every post
 * when no signal secret is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedQueue } from '../../lib/queue/embedded/queue.js';
import { type LocalProcesses, localProcesses } from '../../lib/local/processes.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { lostAnnotation } from '../support/evidence.js';
import { APP_ID, type Harness, startHarness, testPrivateKey } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';
import { signedDelivery, webhookEvent, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'processes-secret';

describe('localProcesses', () => {
  let h: Harness;
  let queue: EmbeddedFifoQueue;
  let processes: LocalProcesses;
  const outcomes: { message: RunMessage; outcome: RunOutcome }[] = [];
  const log = new MemoryLog();

  beforeAll(async () => {
    h = await startHarness();
    queue = new EmbeddedFifoQueue({ name: 'processes.fifo', maxReceiveCount: 4 });
    processes = localProcesses({
      settings: h.settings,
      credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
      webhookSecrets: [SECRET],
      signalSecrets: [],
      signalToleranceMs: 300_000,
      ledger: h.ledger,
      queue: embeddedQueue(queue),
      maxReceiveCount: queue.maxReceiveCount,
      owner: 'local-g1-test',
      log,
      metrics: new MemoryMetrics(),
      github: { retryBaseMs: 1, requestTimeoutMs: 10 * 60_000 },
      onOutcome: (message, outcome) => outcomes.push({ message, outcome }),
    });
  });
  afterAll(async () => h?.close());

  it('a delivery the intake accepts is a message on the shared queue, which the worker decides: a lost run is re-run once', async () => {
    const run = h.sim.addRun({
      repo: 'acme/web',
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [lostAnnotation()] }],
    });
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(h.sim, run.id));
    const res = await processes.intake(
      webhookEvent(d.headers, { body: Buffer.from(d.body).toString('base64'), isBase64Encoded: true }),
    );
    expect(typeof res === 'object' && res.statusCode).toBe(202);
    expect(queue.stats()).toMatchObject({ visible: 1 });

    const records = queue.receive(10);
    expect(records).toHaveLength(1);
    const msg = JSON.parse(records[0]!.body) as RunMessage;
    expect(msg.runId).toBe(run.id);
    expect(await processes.worker({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(outcomes.map((o) => [o.message.runId, o.outcome.decision])).toEqual([[run.id, 'retried']]);
    expect(h.sim.rerunTally(run.id)).toMatchObject({ received: 1, accepted: 1 });
    expect(await h.ledger.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toMatchObject({
      state: 'decided',
      decision: 'retried',
    });
  });

  it('a delivery signed with another secret is refused, and nothing reaches the queue', async () => {
    const before = queue.stats();
    const run = h.sim.addRun({ repo: 'acme/web', jobs: [{ name: 'build', conclusion: 'failure' }] });
    const d = await signedDelivery('not-the-secret', 'workflow_run', workflowRunPayload(h.sim, run.id));
    const res = await processes.intake(
      webhookEvent(d.headers, { body: Buffer.from(d.body).toString('base64'), isBase64Encoded: true }),
    );
    expect(typeof res === 'object' && res.statusCode).toBe(401);
    expect(queue.stats()).toEqual(before);
  });

  it('with no signal secret the signal intake refuses every post: 503, not configured, and says so in the log', async () => {
    const res = await processes.signalIntake({
      ...webhookEvent({ 'content-type': 'application/json' }, { body: '{}', isBase64Encoded: false }),
      routeKey: 'POST /signals',
      rawPath: '/signals',
    });
    expect(res).toMatchObject({ statusCode: 503 });
    expect(JSON.parse((res as { body: string }).body)).toEqual({ error: 'signal intake not configured' });
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'no signal secret configured; refusing POST /signals' }),
    );
  });
});
