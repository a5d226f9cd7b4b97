import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../lib/ledger/ledger.js';
import { runMessageFromPayload } from '../../lib/webhook/workflow-run.js';
import { exitAnnotation, lostJob } from '../support/evidence.js';
import { INSTALLATION_ID, startHarness, TABLE, type Harness } from '../support/harness.js';
import { workflowRunPayload } from '../support/webhooks.js';
import type { SimMergeGroupSpec } from '../sim/index.js';
import { MERGE_QUEUE_PERMISSIONS } from '../sim/permissions.js';

const LIMITED_INSTALLATION = 5151;

let h: Harness;
let pr = 100;
beforeAll(async () => {
  h = await startHarness();
  h.sim.addInstallation({ id: INSTALLATION_ID, account: 'acme', permissions: MERGE_QUEUE_PERMISSIONS });
  // An organisation whose installation was never granted the merge-queue permissions.
  h.sim.addInstallation({ id: LIMITED_INSTALLATION, account: 'limited' });
});
afterAll(async () => h.close());
beforeEach(() => h.log.clear());

const lostGroup = (over: Partial<SimMergeGroupSpec> = {}) =>
  h.sim.addMergeGroupRun({
    repo: 'acme/queue',
    workflowName: 'CI',
    pullRequest: over.pullRequest ?? ++pr,
    jobs: [{ name: 'build', conclusion: 'success' }, lostJob('test', 'runs-on--i-0abc1234def567890')],
    ...over,
  });

async function decide(runId: number, over = {}, deliveryId?: string) {
  const res = await h.worker(over)(h.sqsEvent([h.message(runId, deliveryId)]));
  expect(res.batchItemFailures).toEqual([]);
  return h.log.named('decision').at(-1)!;
}

const sentFor = (number: number) => h.sim.enqueueRequests.filter((r) => r.pullRequest === number);
const rerunsOf = (runId: number) => h.sim.rerunTally(runId).received;

describe('merge queues: a pull request ejected by a lost runner', () => {
  it('a lost runner in a merge group puts the pull request back in the queue once: the mutation sent exactly once, with the tested head', async () => {
    const g = lostGroup();
    expect(h.sim.pullRequest('acme/queue', pr)?.inMergeQueue).toBe(false);

    const line = await decide(g.run.id);
    expect(line).toMatchObject({ decision: 'requeued', run_id: g.run.id });
    expect(String(line.reason)).toContain(`pull request #${pr} queued again with head ${g.testedHead.slice(0, 7)}`);
    const sent = sentFor(pr);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ expectedHeadOid: g.testedHead, jump: false, accepted: true });
    expect(h.sim.pullRequest('acme/queue', pr)?.inMergeQueue).toBe(true);
    // Nothing was re-run: the group GitHub dropped is not tested again.
    expect(rerunsOf(g.run.id)).toBe(0);
    expect(h.metrics.get('Requeue')).toBeGreaterThanOrEqual(1);

    // The same delivery again finds the attempt decided.
    expect(await decide(g.run.id)).toMatchObject({ decision: 'duplicate' });
    expect(sentFor(pr)).toHaveLength(1);
  });

  it('the head moved since the group was built: stale, nothing sent', async () => {
    const g = lostGroup();
    h.sim.addPullRequest('acme/queue', { number: pr, state: 'open', headSha: 'b'.repeat(40) });
    const line = await decide(g.run.id);
    expect(line).toMatchObject({ decision: 'stale' });
    expect(String(line.reason)).toMatch(new RegExp(`#${pr} head moved from ${g.testedHead.slice(0, 7)}`));
    expect(sentFor(pr)).toHaveLength(0);
    expect(rerunsOf(g.run.id)).toBe(0);
  });

  it('a closed pull request: stale, nothing sent', async () => {
    const g = lostGroup();
    h.sim.addPullRequest('acme/queue', { number: pr, state: 'closed', headSha: g.testedHead });
    expect(await decide(g.run.id)).toMatchObject({ decision: 'stale' });
    expect(sentFor(pr)).toHaveLength(0);
  });

  it('a genuine failure in a merge group: nothing sent, nothing re-run', async () => {
    const g = lostGroup({ jobs: [{ name: 'test', conclusion: 'failure', annotations: [exitAnnotation()] }] });
    expect(await decide(g.run.id)).toMatchObject({ decision: 'genuine_failure' });
    expect(sentFor(pr)).toHaveLength(0);
    expect(rerunsOf(g.run.id)).toBe(0);
  });

  it('the same head ejected again by a lost runner is attempt_cap: max_requeues is 1 per head', async () => {
    const first = lostGroup();
    expect(await decide(first.run.id)).toMatchObject({ decision: 'requeued' });
    // GitHub builds a new group for it; a runner is lost again and the pull request is out again.
    const again = lostGroup({ pullRequest: pr, prHead: first.testedHead });
    expect(h.sim.pullRequest('acme/queue', pr)?.inMergeQueue).toBe(false);
    const line = await decide(again.run.id);
    expect(line).toMatchObject({ decision: 'attempt_cap' });
    expect(String(line.reason)).toContain('max_requeues 1');
    expect(sentFor(pr)).toHaveLength(1);
    expect(rerunsOf(again.run.id)).toBe(0);
  });

  it('control: with a loop guard that always says yes, the same head ejected again is sent twice, and the count shows it', async () => {
    const yes = { claim: async () => 'claimed' as const, release: async () => undefined };
    const ledger = Object.assign(Object.create(h.ledger) as typeof h.ledger, { requeues: yes });
    const first = lostGroup();
    expect(await decide(first.run.id, { ledger })).toMatchObject({ decision: 'requeued' });
    const again = lostGroup({ pullRequest: pr, prHead: first.testedHead });
    expect(await decide(again.run.id, { ledger })).toMatchObject({ decision: 'requeued' });
    expect(sentFor(pr)).toHaveLength(2);
  });

  it('max_requeues 2 lets the same head back twice, then attempt_cap', async () => {
    const defaults = { maxRequeues: 2 };
    const first = lostGroup();
    expect(await decide(first.run.id, { defaults })).toMatchObject({ decision: 'requeued' });
    const second = lostGroup({ pullRequest: pr, prHead: first.testedHead });
    expect(await decide(second.run.id, { defaults })).toMatchObject({ decision: 'requeued' });
    const third = lostGroup({ pullRequest: pr, prHead: first.testedHead });
    expect(await decide(third.run.id, { defaults })).toMatchObject({ decision: 'attempt_cap' });
    expect(sentFor(pr)).toHaveLength(2);
  });

  it('the mutation refused (not mergeable): the configured fallback, the re-run, with the refusal in the reason', async () => {
    const g = lostGroup();
    h.sim.addPullRequest('acme/queue', { number: pr, state: 'open', headSha: g.testedHead, mergeable: false });
    const line = await decide(g.run.id);
    expect(line).toMatchObject({ decision: 'retried' });
    expect(String(line.reason)).toMatch(
      /not queued again: enqueuePullRequest refused: UNPROCESSABLE: Pull request is not mergeable/,
    );
    expect(sentFor(pr)).toEqual([expect.objectContaining({ accepted: false })]);
    expect(rerunsOf(g.run.id)).toBe(1);
    expect(h.metrics.get('RequeueRefused')).toBeGreaterThanOrEqual(1);
  });

  it('an installation without the merge-queue permissions: refused, re-run instead, the refusal in the reason', async () => {
    const g = h.sim.addMergeGroupRun({
      repo: 'limited/queue',
      pullRequest: 7,
      jobs: [lostJob('test', 'runs-on--i-0abc1234def567890')],
    });
    const msg = runMessageFromPayload(workflowRunPayload(h.sim, g.run.id, LIMITED_INSTALLATION), 'limited-1');
    const res = await h.worker()(h.sqsEvent([msg]));
    expect(res.batchItemFailures).toEqual([]);
    const line = h.log.named('decision').at(-1)!;
    expect(line).toMatchObject({ decision: 'retried' });
    expect(String(line.reason)).toMatch(
      /enqueuePullRequest refused: FORBIDDEN: Resource not accessible by integration/,
    );
    expect(
      h.sim.enqueueRequests.filter((r) => r.accepted === false && /FORBIDDEN|accessible/.test(r.message ?? '')),
    ).not.toHaveLength(0);
  });

  it("merge_queue: rerun in the repository file keeps today's behaviour: the failed jobs re-run, nothing sent", async () => {
    h.sim.setRepoFile('acme/rerun-mode', '.github/reprise.yml', 'merge_queue: rerun\n');
    const g = lostGroup({ repo: 'acme/rerun-mode' });
    const line = await decide(g.run.id);
    expect(line).toMatchObject({ decision: 'retried' });
    expect(String(line.reason)).not.toMatch(/queued/);
    expect(sentFor(pr)).toHaveLength(0);
    expect(rerunsOf(g.run.id)).toBe(1);
  });

  it('merge_queue: off leaves a merge-group run alone', async () => {
    const g = lostGroup();
    const line = await decide(g.run.id, { defaults: { mergeQueue: 'off' } });
    expect(line).toMatchObject({ decision: 'ignored' });
    expect(String(line.reason)).toContain('merge_queue: off');
    expect(sentFor(pr)).toHaveLength(0);
    expect(rerunsOf(g.run.id)).toBe(0);
  });

  it('a squash-method group names no tested head: re-run instead, and the reason says why', async () => {
    const g = lostGroup({ mergeMethod: 'squash' });
    const line = await decide(g.run.id);
    expect(line).toMatchObject({ decision: 'retried' });
    expect(String(line.reason)).toMatch(/has one parent \(squash or rebase merge method\)/);
    expect(sentFor(pr)).toHaveLength(0);
  });

  it('a run that is not a merge group is re-run as before, with no merge-queue read', async () => {
    const run = h.sim.addRun({
      repo: 'acme/queue',
      event: 'push',
      jobs: [lostJob('test', 'runs-on--i-0abc1234def567890')],
    });
    h.sim.resetRequests();
    expect(await decide(run.id)).toMatchObject({ decision: 'retried' });
    expect(
      h.sim.requests.filter((r) => r.path === '/graphql' && /repository|enqueue/.test(JSON.stringify(r.body ?? ''))),
    ).toHaveLength(0);
  });
});

describe('merge queues: once only', () => {
  it('two deliveries of one attempt at once, on two workers: one mutation', async () => {
    for (let i = 0; i < 5; i++) {
      const g = lostGroup();
      const [a, b] = [h.worker(), h.worker()];
      const [ra, rb] = await Promise.all([
        a(h.sqsEvent([h.message(g.run.id, `mq-d1-${i}`)])),
        b(h.sqsEvent([h.message(g.run.id, `mq-d2-${i}`)])),
      ]);
      expect([...ra.batchItemFailures, ...rb.batchItemFailures]).toEqual([]);
      expect(sentFor(pr)).toHaveLength(1);
    }
  });

  it('two required workflows of one merge group lost at once: one mutation', async () => {
    const first = lostGroup({ workflowName: 'CI', workflowPath: '.github/workflows/ci.yml' });
    const second = lostGroup({
      pullRequest: pr,
      prHead: first.testedHead,
      baseSha: first.baseSha,
      groupSha: first.groupSha,
      workflowName: 'Lint',
      workflowPath: '.github/workflows/lint.yml',
    });
    const [ra, rb] = await Promise.all([
      h.worker()(h.sqsEvent([h.message(first.run.id)])),
      h.worker()(h.sqsEvent([h.message(second.run.id)])),
    ]);
    expect([...ra.batchItemFailures, ...rb.batchItemFailures]).toEqual([]);
    const decisions = h.log.named('decision').map((l) => String(l.decision));
    expect(decisions.filter((d) => d === 'requeued')).toHaveLength(1);
    // The other finds the group handled (the loop guard), or, when it reads after the mutation,
    // the pull request already back in the queue.
    expect(decisions.filter((d) => d !== 'requeued')).toEqual([expect.stringMatching(/^(duplicate|stale)$/)]);
    expect(sentFor(pr)).toHaveLength(1);
  });
});

describe('merge queues: the pace', () => {
  it('covers the mutation: a second merge-group run waits for its turn before enqueuePullRequest is sent', async () => {
    const PACED = 6262;
    h.sim.addInstallation({ id: PACED, account: 'paced', permissions: MERGE_QUEUE_PERMISSIONS });
    let now = Date.parse('2026-12-03T10:00:00Z');
    const clock = () => now;
    const pacing = openLedger(h.dynamo.client, TABLE, clock).pacing({ perMinute: 1, perHour: 0, spacingMs: 350 });
    const deferred: number[] = [];
    const worker = h.worker({
      ledger: openLedger(h.dynamo.client, TABLE, clock),
      pacing,
      now: clock,
      defer: async (_r, seconds) => void deferred.push(seconds),
    });
    const message = (runId: number) => runMessageFromPayload(workflowRunPayload(h.sim, runId, PACED), `paced-${runId}`);
    const [a, b] = [
      h.sim.addMergeGroupRun({ repo: 'paced/app', pullRequest: 1, jobs: [lostJob('test', 'spot-1')] }),
      h.sim.addMergeGroupRun({ repo: 'paced/app', pullRequest: 2, jobs: [lostJob('test', 'spot-2')] }),
    ];
    const sent = (n: number) => h.sim.enqueueRequests.filter((r) => r.pullRequest === n);
    expect((await worker(h.sqsEvent([message(a.run.id)]))).batchItemFailures).toEqual([]);
    expect(sent(1)).toHaveLength(1);

    expect((await worker(h.sqsEvent([message(b.run.id)]))).batchItemFailures).toHaveLength(1);
    expect(deferred).toHaveLength(1);
    expect(h.sim.pullRequest('paced/app', 2)?.inMergeQueue).toBe(false);
    const beforeTurn = h.sim.enqueueRequests.length;

    // One a minute: its turn is the next window's, where its message comes back.
    now += deferred[0]! * 1000;
    expect((await worker(h.sqsEvent([message(b.run.id)]))).batchItemFailures).toEqual([]);
    expect(h.sim.enqueueRequests.length).toBe(beforeTurn + 1);
    expect(h.sim.pullRequest('paced/app', 2)?.inMergeQueue).toBe(true);
  });
});
