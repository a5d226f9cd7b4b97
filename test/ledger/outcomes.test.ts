import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakerSettings } from '../../lib/decide/breaker.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import type { RerunOutcomes } from '../../lib/ledger/outcomes.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { createIntake } from '../../lib/intake/webhook-intake.js';
import { lostAnnotation } from '../support/evidence.js';
import { startHarness, TABLE, type Harness } from '../support/harness.js';
import { signedDelivery, workflowRunPayload } from '../support/webhooks.js';
import { unpaced } from '../support/fakes/unpaced.js';

const SECRET = 'outcome-secret';
const MINUTE = 60_000;
const BREAKER: BreakerSettings = { minOutcomes: 4, windowMs: 30 * MINUTE, lostShare: 0.5, coolDownMs: 30 * MINUTE };

let h: Harness;
let clock: number;
let installation = 7000;
let outcomes: RerunOutcomes;
let deferred: { record: SQSRecord; seconds: number }[];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => {
  h.log.clear();
  h.sim.resetRequests();
  clock = Date.now();
  deferred = [];
  outcomes = openLedger(h.dynamo.client, TABLE, () => clock).outcomes(BREAKER);
  // A fresh installation per test: the breaker's evidence is per installation.
  h.sim.addInstallation({ id: ++installation, account: 'acme' });
});

const worker = () =>
  h.worker({
    // Text evidence may re-run twice, so a run lost on every attempt is re-run twice.
    defaults: { textOnlyMaxAttempts: 3 },
    outcomes,
    // The clock stands still between decisions, so no pace could let a batch go: the pace has its own suite.
    pacing: unpaced(() => clock),
    now: () => clock,
    defer: async (record, seconds) => void deferred.push({ record, seconds }),
  });

const message = (runId: number): RunMessage => h.message(runId, undefined, installation);
const decide = (messages: RunMessage[]) => worker()(h.sqsEvent(messages));

let repoSeq = 0;
function lostRun(onRerun: 'same' | 'success') {
  return h.sim.addRun({
    repo: `acme/outcome-${++repoSeq}`,
    onRerun,
    jobs: [{ name: 'build', conclusion: 'failure', annotations: [lostAnnotation('r')] }],
  });
}

/** The intake as deployed, with the outcome ledger: a delivery goes in, an answer comes out. */
async function deliver(runId: number, guid?: string) {
  const intake = createIntake({
    secrets: async () => [SECRET],
    deliveries: h.ledger.deliveries,
    queue: embeddedRunQueue(new EmbeddedFifoQueue({ name: 'outcomes-test.fifo' })),
    outcomes,
    log: h.log,
    metrics: h.metrics,
  });
  const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(h.sim, runId, installation), guid);
  return intake({ method: 'POST', path: '/webhook', headers: d.headers, body: Buffer.from(d.body) });
}

const rerunPosts = (runId?: number) =>
  h.sim.requests.filter(
    (r) =>
      r.method === 'POST' &&
      /\/rerun(-failed-jobs)?$/.test(r.path) &&
      (runId === undefined || r.path.includes(`/${runId}/`)),
  ).length;

describe('re-run outcomes', () => {
  it('a re-run that goes green is recovered: recorded by the intake without a decision, once per attempt', async () => {
    const run = lostRun('success');
    const attempt1 = message(run.id);
    await decide([attempt1]);
    expect(h.sim.run(run.id)).toMatchObject({ runAttempt: 2, conclusion: 'success' });
    const before = h.metrics.get('RerunOutcome{outcome=recovered}');

    const first = await deliver(run.id);
    expect(first).toMatchObject({ status: 202, body: { reason: 'outcome recorded: recovered' } });
    await deliver(run.id);
    expect(await outcomes.get(attempt1.repository.id, run.id, 2)).toMatchObject({ outcome: 'recovered' });
    expect(h.metrics.get('RerunOutcome{outcome=recovered}') - before).toBe(1);
    // No decision, no GitHub call besides the decision of attempt 1.
    expect(h.log.named('decision')).toHaveLength(1);
  });

  it('a green later attempt reprise did not re-run is no outcome', async () => {
    const run = lostRun('success');
    const { repository } = message(run.id);
    const res = await fetch(`${h.sim.url}/repos/${run.repo}/actions/runs/${run.id}/rerun`, {
      method: 'POST',
      headers: { authorization: `token ${h.sim.issueToken(installation)}`, accept: 'application/vnd.github+json' },
    });
    expect(res.status).toBe(201);
    expect(await deliver(run.id)).toMatchObject({ status: 202, body: { reason: 'ignored: not a re-run by reprise' } });
    expect(await outcomes.get(repository.id, run.id, 2)).toBeUndefined();
  });

  it('a re-run that dies again is lost_again: the decision on the next attempt records it', async () => {
    const run = lostRun('same');
    await decide([message(run.id)]);
    expect(h.sim.run(run.id)).toMatchObject({ runAttempt: 2, conclusion: 'failure' });
    await decide([message(run.id)]);
    expect(await outcomes.get(message(run.id).repository.id, run.id, 2)).toMatchObject({ outcome: 'lost_again' });
    expect(h.log.named('re-run outcome').at(-1)).toMatchObject({ outcome: 'lost_again', run_attempt: 2 });
  });
});

describe('the breaker', () => {
  it('a broken fleet trips it after the threshold: runs wait out the cool-down, then go; none dropped, none doubled', async () => {
    const runs = Array.from({ length: 8 }, () => lostRun('same'));
    await decide(runs.map((r) => message(r.id)));
    expect(rerunPosts()).toBe(8);

    // Every re-run attempt ends lost again. The first four decisions see fewer than four outcomes.
    h.sim.resetRequests();
    const second = runs.map((r) => message(r.id));
    for (const m of second) await decide([m]);
    expect(rerunPosts()).toBe(4);
    expect(h.metrics.get('BreakerOpen')).toBe(1);
    expect(deferred).toHaveLength(4);
    for (const d of deferred) expect(d.seconds).toBe(30 * 60);
    const waiting = h.log.named('decision deferred');
    expect(waiting).toHaveLength(4);
    expect(String(waiting[0]!.reason)).toMatch(
      /paused until .*: 4 of the last 4 re-run attempts within 30 min were lost again/,
    );
    const paused = runs.slice(4);
    for (const r of paused) expect(h.sim.run(r.id).runAttempt).toBe(2);

    // During the pause they wait again, untouched.
    clock += 10 * MINUTE;
    h.sim.resetRequests();
    await decide(paused.map((r) => message(r.id)));
    expect(rerunPosts()).toBe(0);
    expect(deferred).toHaveLength(8);
    expect(deferred[7]!.seconds).toBe(20 * 60);

    // After the cool-down they go, each exactly once; their outcomes are not counted twice.
    clock += 20 * MINUTE + 1000;
    h.sim.resetRequests();
    await decide(paused.map((r) => message(r.id)));
    expect(rerunPosts()).toBe(4);
    for (const r of paused) expect(rerunPosts(r.id)).toBe(1);
    for (const r of runs) expect(h.sim.run(r.id).runAttempt).toBe(3);
    expect(h.sim.reruns.filter((x) => runs.some((r) => r.id === x.runId))).toHaveLength(16);
    expect(h.log.named('decision').filter((l) => l.decision === 'retried')).toHaveLength(16);
    expect(h.metrics.get('BreakerOpen')).toBe(1);
  });

  it('recovered re-runs keep it closed: the share of lost attempts, not their number, trips it', async () => {
    const runs = Array.from({ length: 6 }, () => lostRun('success'));
    await decide(runs.map((r) => message(r.id)));
    for (const r of runs) await deliver(r.id);
    const state = await outcomes.state(installation);
    expect(state).toMatchObject({ openUntil: null, outcomes: 6, lostAgain: 0, tripped: false });
  });

  it("one repository's lost re-runs open its own breaker (with a fake clock): its runs wait out the cool-down, a neighbour's go", async () => {
    outcomes = openLedger(h.dynamo.client, TABLE, () => clock).outcomes({ ...BREAKER, minRepositories: 3 });
    const repo = `acme/outcome-${++repoSeq}`;
    const runs = Array.from({ length: 5 }, () =>
      h.sim.addRun({
        repo,
        onRerun: 'same',
        jobs: [{ name: 'build', conclusion: 'failure', annotations: [lostAnnotation('r')] }],
      }),
    );
    await decide(runs.map((r) => message(r.id)));
    h.sim.resetRequests();
    // Four outcomes lost again, all of one repository: the fifth decision finds its breaker open.
    for (const r of runs) await decide([message(r.id)]);
    expect(rerunPosts()).toBe(4);
    expect(String(h.log.named('decision deferred').at(-1)!.reason)).toMatch(
      new RegExp(`re-runs of the repository ${repo} are paused .*: 4 of the last 4`),
    );
    const neighbour = lostRun('same');
    h.sim.resetRequests();
    await decide([message(neighbour.id)]);
    expect(rerunPosts(neighbour.id)).toBe(1);
    expect(await outcomes.state(installation)).toMatchObject({ openUntil: null, lostAgain: 5, lostRepositories: 1 });

    clock += 30 * MINUTE + 1000;
    h.sim.resetRequests();
    await decide([message(runs[4]!.id)]);
    expect(rerunPosts(runs[4]!.id)).toBe(1);
  });
});
