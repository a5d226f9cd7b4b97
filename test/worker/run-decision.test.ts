/**
 * The orchestrator over in-memory stores, GitHub being the simulator: what a fault undoes at
 * each point of a decision (the claim, the budget unit), and the three kinds of result.
 */
import { noDeliveryLog } from '../../lib/decide/delivery-gap.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../lib/errors.js';
import { createClientFactory } from '../../lib/github/client.js';
import { RepoConfigSource } from '../../lib/github/repo-config-source.js';
import type { RunMessage } from '../../lib/model.js';
import { runDecision } from '../../lib/worker/run-decision.js';
import { runMessageFromPayload } from '../../lib/webhook/workflow-run.js';
import { GitHubSimulator, simAppPrivateKey } from '../sim/index.js';
import { lostJob, TEXT } from '../support/evidence.js';
import { fakeWorld, type WorldOptions } from '../support/fakes/context.js';
import { MemoryLog } from '../support/memory-log.js';
import { workflowRunPayload } from '../support/webhooks.js';

const INSTALLATION = 5151;
let sim: GitHubSimulator;
let seq = 0;

beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION, account: 'stages' });
});
afterAll(async () => sim?.close());

/** A world whose GitHub is the simulator; one unit of budget an hour unless told otherwise. */
function world(o: WorldOptions = {}) {
  const w = fakeWorld({ budgetPerHour: 1, ...o });
  const client = createClientFactory({
    apiUrl: sim.url,
    credentials: { kind: 'app', appId: '1234567', privateKey: simAppPrivateKey() },
    log: new MemoryLog(),
    retryBaseMs: 1,
    requestTimeoutMs: 60_000,
  });
  const ctx = {
    ...w.ctx,
    stores: { ...w.ctx.stores, repoConfig: new RepoConfigSource() },
    github: { client, graphqlUrl: sim.graphqlUrl, deliveryLog: noDeliveryLog },
  };
  return { ...w, ctx };
}

/** A run lost to its runner, as its completion is delivered. */
function lostRun(): { readonly msg: RunMessage; readonly runId: number } {
  const run = sim.addRun({
    repo: `stages/app-${++seq}`,
    jobs: [
      { name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: TEXT.selfHostedEmptyName }] },
    ],
  });
  return {
    msg: runMessageFromPayload(workflowRunPayload(sim, run.id, INSTALLATION), `delivery-${seq}`),
    runId: run.id,
  };
}

/** A pull request ejected from its merge queue by a lost runner, as its group's run completion is delivered. */
function lostMergeGroup(): { readonly msg: RunMessage; readonly runId: number } {
  const group = sim.addMergeGroupRun({
    repo: `stages/queue-${++seq}`,
    workflowName: 'CI',
    pullRequest: 100 + seq,
    jobs: [lostJob('test', 'runs-on--i-0abc1234def567890')],
  });
  return {
    msg: runMessageFromPayload(workflowRunPayload(sim, group.run.id, INSTALLATION), `delivery-${seq}`),
    runId: group.run.id,
  };
}

/**
 * The decision's GraphQL requests, in order: the jobs' annotations, the merge group's read, the
 * mutation. A 422 is not retried.
 */
const graphqlFault = (nth: 'read' | 'mutation', status: number, retryAfter?: number) =>
  sim.injectFault({ method: 'POST', path: /\/graphql$/, status, after: nth === 'read' ? 1 : 2, times: 1, retryAfter });

const rerunPath = (runId: number) => new RegExp(`/runs/${runId}/rerun-failed-jobs$`);

describe('a decision over in-memory stores', () => {
  it('a re-run keeps its claim decided and its unit of the budget', async () => {
    const w = world();
    const { msg } = lostRun();
    const result = await runDecision(msg, w.ctx);
    expect(result).toMatchObject({ kind: 'decided', outcome: { decision: 'retried' } });
    expect(w.attempts.of(msg)).toMatchObject({ state: 'decided', decision: 'retried' });
    expect(w.budget.held(INSTALLATION)).toHaveLength(1);
  });

  it('GitHub refused the re-run: decided rerun_rejected, and the unit goes back', async () => {
    const w = world();
    const { msg, runId } = lostRun();
    sim.injectFault({ method: 'POST', path: new RegExp(`/runs/${runId}/rerun`), status: 403, times: 3 });
    expect(await runDecision(msg, w.ctx)).toMatchObject({ kind: 'decided', outcome: { decision: 'rerun_rejected' } });
    expect(w.budget.takes).toHaveLength(1);
    expect(w.budget.held(INSTALLATION)).toEqual([]);
  });

  it('a rate limit on the call: thrown, the claim released and the unit given back, so the retry decides afresh', async () => {
    const w = world();
    const { msg, runId } = lostRun();
    sim.injectFault({ method: 'POST', path: rerunPath(runId), status: 429, retryAfter: 30, times: 1 });
    await expect(runDecision(msg, w.ctx)).rejects.toBeInstanceOf(RateLimitedError);
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
    expect(w.budget.takes).toHaveLength(1);
    expect(w.budget.held(INSTALLATION)).toEqual([]);
  });

  it('a call whose outcome is unknown (502): thrown, the claim kept and noted, the unit kept', async () => {
    const w = world();
    const { msg, runId } = lostRun();
    sim.injectFault({ method: 'POST', path: rerunPath(runId), status: 502, times: 1 });
    await expect(runDecision(msg, w.ctx)).rejects.toThrow();
    expect(w.attempts.of(msg)).toMatchObject({
      state: 'claimed',
      owner: w.ctx.owner,
      callError: expect.stringMatching(/502/),
    });
    expect(w.budget.held(INSTALLATION)).toHaveLength(1);
  });

  it('a merge-queue mutation that faults counts as sent: thrown, the claim kept and not noted, the unit kept', async () => {
    const w = world();
    const { msg, runId } = lostMergeGroup();
    graphqlFault('mutation', 422);
    await expect(runDecision(msg, w.ctx)).rejects.toThrow();
    const held = w.attempts.of(msg);
    expect(held).toMatchObject({ state: 'claimed', owner: w.ctx.owner });
    expect(held?.callError).toBeUndefined();
    expect(w.budget.held(INSTALLATION)).toHaveLength(1);
    expect(sim.rerunTally(runId).received).toBe(0);
  });

  it('a 502 on the merge-queue mutation is sent once, never again in-process (GitHub may have acted): the claim kept', async () => {
    const w = world();
    const { msg } = lostMergeGroup();
    sim.resetRequests();
    graphqlFault('mutation', 502);
    await expect(runDecision(msg, w.ctx)).rejects.toThrow();
    const mutations = sim.requests.filter(
      (r) =>
        r.method === 'POST' && /\/graphql$/.test(r.path) && /enqueuePullRequest/.test(JSON.stringify(r.body ?? '')),
    );
    expect(mutations).toHaveLength(1);
    expect(w.attempts.of(msg)).toMatchObject({ state: 'claimed', owner: w.ctx.owner });
  });

  it('a rate limit on the merge-queue mutation: thrown, the claim released and the unit given back', async () => {
    const w = world();
    const { msg } = lostMergeGroup();
    graphqlFault('mutation', 429, 30);
    await expect(runDecision(msg, w.ctx)).rejects.toBeInstanceOf(RateLimitedError);
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
    expect(w.budget.takes).toHaveLength(1);
    expect(w.budget.held(INSTALLATION)).toEqual([]);
  });

  it('a fault reading the merge group, before the mutation: the claim and the unit given back', async () => {
    const w = world();
    const { msg } = lostMergeGroup();
    graphqlFault('read', 422);
    await expect(runDecision(msg, w.ctx)).rejects.toThrow();
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
    expect(w.budget.held(INSTALLATION)).toEqual([]);
  });

  it('a fault before any call gives the claim back and takes no unit', async () => {
    const w = world();
    const { msg, runId } = lostRun();
    sim.injectFault({ method: 'GET', path: new RegExp(`/runs/${runId}/jobs`), status: 404, times: 1 });
    await expect(runDecision(msg, w.ctx)).rejects.toThrow();
    expect(await w.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
    expect(w.budget.takes).toEqual([]);
  });

  it('a copy under another delivery while the attempt is held is a duplicate, and changes nothing', async () => {
    const w = world();
    const { msg } = lostRun();
    await w.attempts.claim(msg, 'worker-b', 60_000);
    const result = await runDecision({ ...msg, deliveryId: 'copy' }, w.ctx);
    expect(result).toEqual({ kind: 'duplicate', reason: 'attempt is being decided by another worker' });
    expect(w.attempts.of(msg)).toMatchObject({ state: 'claimed', owner: 'worker-b' });
    expect(sim.rerunTally(msg.runId).received).toBe(0);
  });

  it('a turn ahead defers the run: the claim waits with its slot, nothing is released, no unit is taken', async () => {
    const w = world({ spacingMs: 10_000 });
    const { msg } = lostRun();
    await w.pacing.reserve(INSTALLATION);
    const result = await runDecision(msg, w.ctx);
    expect(result).toMatchObject({ kind: 'deferred', untilMs: w.clock.now() + 10_000, metric: 'RerunWaiting' });
    expect(w.attempts.of(msg)).toMatchObject({ state: 'waiting', slotAt: w.clock.now() + 10_000 });
    expect(w.attempts.count('release')).toBe(0);
    expect(w.budget.takes).toEqual([]);
    expect(sim.rerunTally(msg.runId).received).toBe(0);
  });

  it('operator pause: a lost run is decided paused, with who, why and until when, no re-run sent and no unit taken', async () => {
    const w = world();
    const { msg } = lostRun();
    w.pauses.held = {
      scope: 'stages',
      by: 'ops@host',
      reason: 'drill',
      since: '2026-10-02T16:00:00.000Z',
      until: null,
    };
    const result = await runDecision(msg, w.ctx);
    expect(result).toMatchObject({ kind: 'decided', outcome: { decision: 'paused' } });
    const { reason } = w.attempts.of(msg)!;
    expect(reason).toMatch(/stages paused by ops@host since 2026-10-02T16:00:00.000Z, until resumed: drill/);
    expect(reason).toContain(`reprise replay ${msg.repository.owner}/${msg.repository.name}#${msg.runId}@1`);
    expect(w.events.published).toEqual([expect.objectContaining({ decision: 'paused', final_failure: false })]);
    expect(sim.rerunTally(msg.runId).received).toBe(0);
    expect(w.budget.takes).toEqual([]);
  });

  it('operator pause: a genuine failure is still decided genuine_failure (the pause holds only re-runs)', async () => {
    const w = world();
    w.pauses.held = { scope: '*', by: 'ops', reason: 'drill', since: '2026-10-02T16:00:00.000Z', until: null };
    const run = sim.addRun({
      repo: `stages/app-${++seq}`,
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [{ level: 'failure', message: TEXT.exitCode() }] }],
    });
    const msg = runMessageFromPayload(workflowRunPayload(sim, run.id, INSTALLATION), `delivery-${seq}`);
    expect(await runDecision(msg, w.ctx)).toMatchObject({ outcome: { decision: 'genuine_failure' } });
  });
});
