import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunnerKeys } from '../../lib/signals/runner-keys.js';
import { createEc2SignalHandler } from '../../lib/intake/record-ec2-signal.js';
import { httpLambda } from '../../lib/http/lambda-http.js';
import { createIntake } from '../../lib/intake/webhook-intake.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { startHarness, type Harness } from '../support/harness.js';
import { realExamples } from '../support/webhooks.js';
import { sign } from '@octokit/webhooks-methods';
import { spotInterruptionWarning } from './fixtures.js';

const LOST = failureAnnotation(TEXT.selfHostedEmptyName);

let h: Harness;
let seq = 0;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => h.log.clear());

const instanceId = () => `i-0${(++seq).toString(16).padStart(16, '0')}`;

async function spot(runnerKey: string, at: string) {
  await h.signals.record({
    runnerKey,
    kind: 'spot-interruption',
    eventTime: at,
    eventId: `ev-${++seq}`,
    source: 'aws.ec2',
  });
}

async function decide(runId: number, defaults = {}) {
  await h.worker({ defaults })(h.sqsEvent([h.message(runId)]));
  return { line: h.log.named('decision').at(-1)!, jobs: h.log.named('job') };
}

describe('exact signal in the worker', () => {
  it('a lost job whose runner has a spot record and no annotation is re-run (source signal)', async () => {
    const id = instanceId();
    const completedAt = new Date(Date.now() - 60_000).toISOString();
    await spot(id, new Date(Date.now() - 3 * 60_000).toISOString());
    const run = h.sim.addRun({
      repo: 'acme/sig',
      jobs: [
        { name: 't', conclusion: 'failure', runnerName: `runs-on--${id}`, annotations: [], log: null, completedAt },
      ],
    });
    const { line, jobs } = await decide(run.id);
    expect(line.decision).toBe('retried');
    expect(jobs[0]).toMatchObject({ verdict: 'infra', source: 'signal' });
    expect(h.metrics.get('ExactSignalRetry')).toBeGreaterThan(0);
  });

  it('the same job with no record and no annotation is genuine', async () => {
    const run = h.sim.addRun({
      repo: 'acme/sig',
      jobs: [{ name: 't', conclusion: 'failure', runnerName: `runs-on--${instanceId()}`, annotations: [], log: null }],
    });
    const { line, jobs } = await decide(run.id);
    expect(line.decision).toBe('genuine_failure');
    expect(jobs[0]).toMatchObject({ verdict: 'genuine' });
  });

  it('a record outside the window around completed_at does not count', async () => {
    const id = instanceId();
    await spot(id, new Date(Date.now() - 60 * 60_000).toISOString());
    const run = h.sim.addRun({
      repo: 'acme/sig',
      jobs: [
        {
          name: 't',
          conclusion: 'failure',
          runnerName: id,
          annotations: [],
          log: null,
          completedAt: new Date().toISOString(),
        },
      ],
    });
    expect((await decide(run.id)).line.decision).toBe('genuine_failure');
  });

  it('the text-only cap and the exact cap differ: attempt 2 with text only stops, with a signal goes on', async () => {
    const text = h.sim.addRun({
      repo: 'acme/sig',
      runAttempt: 2,
      jobs: [{ name: 't', conclusion: 'failure', runnerName: 'r-text', annotations: [LOST] }],
    });
    expect((await decide(text.id)).line).toMatchObject({
      decision: 'attempt_cap',
      reason: expect.stringContaining('text_only_max_attempts'),
    });

    const id = instanceId();
    await spot(id, new Date(Date.now() - 60_000).toISOString());
    /** A run at `runAttempt` whose one job was lost on the interrupted instance. */
    const lostAt = (runAttempt: number) =>
      h.sim.addRun({
        repo: 'acme/sig',
        runAttempt,
        jobs: [
          {
            name: 't',
            conclusion: 'failure',
            runnerName: id,
            annotations: [LOST],
            completedAt: new Date().toISOString(),
          },
        ],
      });
    expect((await decide(lostAt(2).id)).line.decision).toBe('retried');
    expect((await decide(lostAt(3).id)).line.decision).toBe('attempt_cap');
  });

  it('require_exact_signal blocks text-only re-runs', async () => {
    const run = h.sim.addRun({
      repo: 'acme/sig',
      jobs: [{ name: 't', conclusion: 'failure', runnerName: 'r-x', annotations: [LOST] }],
    });
    expect((await decide(run.id, { requireExactSignal: true })).line).toMatchObject({
      decision: 'no_infra_evidence',
      reason: expect.stringContaining('require_exact_signal'),
    });
  });

  it('a signal lookup failure degrades to text evidence and never blocks the decision', async () => {
    const run = h.sim.addRun({
      repo: 'acme/sig',
      jobs: [{ name: 't', conclusion: 'failure', runnerName: 'r-y', annotations: [LOST] }],
    });
    const broken = { forRunner: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')) };
    await h.worker({ signals: broken })(h.sqsEvent([h.message(run.id)]));
    expect(h.log.named('decision').at(-1)).toMatchObject({ decision: 'retried' });
    expect(h.log.named('signal lookup failed; deciding on text evidence')).toHaveLength(1);
  });
});

describe('workflow_job events', () => {
  it('in_progress records the job on its runner; a spot warning for that instance counts it as InterruptedJobs', async () => {
    const jobs = h.ledger.runnerJobs();
    const intake = httpLambda(
      createIntake({
        secrets: async () => ['s'],
        deliveries: h.ledger.deliveries,
        queue: { send: async () => undefined },
        jobs,
        log: h.log,
        metrics: h.metrics,
      }),
    );
    const id = 'i-0fedcba9876543210';
    const payload = realExamples('workflow_job').find((p) => p.action === 'in_progress')!;
    (payload.workflow_job as Record<string, unknown>).runner_name = `runner-${id}`;
    const body = JSON.stringify(payload);
    const res = (await intake({
      version: '2.0',
      rawPath: '/webhook',
      headers: {
        'x-github-event': 'workflow_job',
        'x-github-delivery': 'job-1',
        'x-hub-signature-256': await sign('s', body),
      },
      requestContext: { http: { method: 'POST' } },
      body,
      isBase64Encoded: false,
    } as never)) as { statusCode: number };
    expect(res.statusCode).toBe(202);

    const record = createEc2SignalHandler({
      store: h.signals,
      describe: async () => undefined,
      tagKeys: [],
      log: h.log,
      metrics: h.metrics,
      jobs,
    });
    await record(spotInterruptionWarning(new Date().toISOString(), id));
    expect(h.metrics.get('InterruptedJobs')).toBe(1);

    await jobs.finished(
      { jobId: (payload.workflow_job as { id: number }).id, runId: 0, runnerName: `runner-${id}`, repository: '' },
      new RunnerKeys().for(`runner-${id}`),
    );
    expect(await jobs.runningOn([id])).toEqual([]);
  });
});
