import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../lib/local/runtime.js';
import type { GitHubSimulator } from '../sim/index.js';
import { exitAnnotation, failureAnnotation, TEXT } from '../support/evidence.js';
import { startHarness, type Harness } from '../support/harness.js';
import { type LocalSetup, startLocal } from '../support/local.js';
import type { MemoryLog } from '../support/memory-log.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'e2e-secret';
const LOST = failureAnnotation(TEXT.selfHostedEmptyName);
const EXIT = exitAnnotation(2);

describe('end to end through the local runtime (HTTP server, embedded DynamoDB and queue, simulator)', () => {
  let local: LocalSetup;
  let sim: GitHubSimulator;
  let rt: Runtime;
  let outcomes: LocalSetup['outcomes'];
  let log: MemoryLog;

  beforeAll(async () => {
    local = await startLocal({ secret: SECRET, env: { SIGNAL_SECRET: 'agent-secret' } });
    ({ sim, rt, outcomes, log } = local);
  });
  afterAll(async () => local.close());

  const deliver = async (runId: number, guid?: string) =>
    post(`${rt.url}/webhook`, await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, runId), guid));

  it('AC1 over HTTP: a lost runner is re-run and the run moves to attempt 2', async () => {
    const run = sim.addRun({
      repo: 'acme/e2e',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [LOST] }],
    });
    expect((await deliver(run.id)).status).toBe(202);
    await rt.poller.drain(10_000);
    expect(outcomes.find((o) => o.message.runId === run.id)?.outcome.decision).toBe('retried');
    expect(sim.run(run.id).runAttempt).toBe(2);
  });

  it('AC2 over HTTP: a genuine failure is left alone', async () => {
    const run = sim.addRun({
      repo: 'acme/e2e',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [EXIT] }],
    });
    expect((await deliver(run.id)).status).toBe(202);
    await rt.poller.drain(10_000);
    expect(outcomes.find((o) => o.message.runId === run.id)?.outcome.decision).toBe('genuine_failure');
    expect(sim.rerunTally(run.id).received).toBe(0);
  });

  it('the same delivery three times (in parallel) makes exactly one rerun-failed-jobs call', async () => {
    const run = sim.addRun({
      repo: 'acme/e2e',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [LOST] }],
    });
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id));
    const answers = await Promise.all([1, 2, 3].map(() => post(`${rt.url}/webhook`, d)));
    expect(answers.every((a) => a.status === 200 || a.status === 202)).toBe(true);
    await rt.poller.drain(10_000);
    // Sequentially too, after the first was decided.
    expect((await post(`${rt.url}/webhook`, d)).body.reason).toBe('duplicate');
    await rt.poller.drain(10_000);
    // Every re-run POST GitHub received, refused ones included: a repeated call is answered 403
    // and would not show among the re-runs GitHub accepted.
    expect(sim.rerunTally(run.id)).toEqual({ received: 1, accepted: 1, repeats: 0 });
    expect(sim.count('POST', new RegExp(`/actions/runs/${run.id}/rerun-failed-jobs$`))).toBe(1);
  });

  it.each([
    [true, ['failed_jobs 201']],
    [false, ['failed_jobs 403', 'job 201']],
  ] as const)(
    'cancelled-only lost run, GitHub re-running cancelled jobs with rerun-failed-jobs: %s → requests %j, re-run once',
    async (includesCancelled, requests) => {
      sim.rerunFailedJobsIncludesCancelled = includesCancelled;
      try {
        const run = sim.addRun({
          repo: 'acme/e2e',
          jobs: [
            { name: 'build', conclusion: 'success' },
            { name: 'test', conclusion: 'cancelled', annotations: [LOST] },
          ],
        });
        expect((await deliver(run.id)).status).toBe(202);
        await rt.poller.drain(10_000);
        expect(outcomes.find((o) => o.message.runId === run.id)?.outcome.decision).toBe('retried');
        const received = sim.rerunRequests.filter((r) => r.runId === run.id).map((r) => `${r.kind} ${r.status}`);
        expect(received).toEqual(requests);
        expect(sim.run(run.id).runAttempt).toBe(2);
      } finally {
        sim.rerunFailedJobsIncludesCancelled = false;
      }
    },
  );

  it('a signal posted to /signals, then a webhook for a run whose job ran on that runner → re-run with source=signal', async () => {
    const pod = 'arc-runner-set-7x9k2-runner-abcde';
    const posted = await fetch(`${rt.url}/signals`, {
      method: 'POST',
      headers: { authorization: 'Bearer agent-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ runners: [pod], kind: 'node-termination', reason: 'spot interruption on ip-10-0-3-7' }),
    });
    expect(posted.status).toBe(202);
    // No annotation and no log: some spot losses leave neither.
    const run = sim.addRun({
      repo: 'acme/e2e',
      jobs: [
        {
          name: 'test',
          conclusion: 'failure',
          runnerName: pod,
          annotations: [],
          log: null,
          completedAt: new Date().toISOString(),
        },
      ],
    });
    expect((await deliver(run.id)).status).toBe(202);
    await rt.poller.drain(10_000);
    expect(outcomes.find((o) => o.message.runId === run.id)?.outcome.decision).toBe('retried');
    expect(log.named('job').find((l) => l.run_id === run.id)).toMatchObject({ verdict: 'infra', source: 'signal' });
  });

  it('GET /healthz names the GitHub it talks to', async () => {
    const res = await fetch(`${rt.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, github: sim.url });
  });

  it('logs where it listens and which GitHub it talks to', () => {
    expect(log.named('reprise local runtime listening')[0]).toMatchObject({ url: rt.url, github: sim.url });
  });
});

describe('concurrent workers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('the same run attempt under two deliveries, processed at once by two workers, makes exactly one rerun-failed-jobs call', async () => {
    for (let i = 0; i < 10; i++) {
      const run = h.sim.addRun({
        repo: 'acme/race',
        jobs: [{ name: 'test', conclusion: 'failure', annotations: [LOST] }],
      });
      const [a, b] = [h.worker(), h.worker()];
      const [ra, rb] = await Promise.all([
        a(h.sqsEvent([h.message(run.id, `d1-${i}`)])),
        b(h.sqsEvent([h.message(run.id, `d2-${i}`)])),
      ]);
      expect([...ra.batchItemFailures, ...rb.batchItemFailures]).toEqual([]);
      expect(h.sim.count('POST', new RegExp(`/actions/runs/${run.id}/rerun-failed-jobs$`))).toBe(1);
    }
    const decisions = h.log.named('decision').map((l) => l.decision);
    expect(decisions.filter((d) => d === 'retried')).toHaveLength(10);
    expect(decisions.filter((d) => d === 'duplicate')).toHaveLength(10);
  });
});
