/**
 * Issue 32, item 3: the newest run of each workflow on each branch, as the intake records it from
 * every `workflow_run` event (real payloads from @octokit/webhooks-examples) on dynalite.
 */
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntake } from '../../lib/intake/webhook-intake.js';
import type { BranchRuns } from '../../lib/ledger/branch-runs.js';
import { keys, TTL } from '../../lib/ledger/keys.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { Table } from '../../lib/ledger/table.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { branchRunFrom } from '../../lib/webhook/workflow-run.js';
import { MemoryLog } from '../support/memory-log.js';
import { realExamples } from '../support/webhooks.js';

const TABLE = 'branch-runs-test';
const SECRET = 'branch-secret';
const NOW = Date.parse('2026-12-04T12:00:00Z');

let dynamo: EmbeddedDynamo;
let runs: BranchRuns;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
  runs = openLedger(dynamo.client, TABLE, () => NOW).branchRuns;
});
afterAll(async () => dynamo.close());

type Payload = Record<string, unknown>;

/** A real `workflow_run` payload of `action`, its run reshaped by `over`. */
function payload(action: string, over: Payload = {}, installation = 31): Payload {
  const p = realExamples('workflow_run').find((e) => e.action === action) ?? realExamples('workflow_run')[0]!;
  const repo = p.repository as Payload;
  const run = p.workflow_run as Payload;
  return {
    ...p,
    action,
    installation: { id: installation, node_id: 'x' },
    workflow_run: { ...run, head_repository: { ...repo }, ...over },
  };
}

describe('item 3: which workflow_run events report a branch run', () => {
  it('a push run of the repository’s own branch: its key and run', () => {
    const p = payload('completed', {
      id: 501,
      run_number: 40,
      event: 'push',
      head_branch: 'main',
      head_sha: 'a'.repeat(40),
    });
    const repo = p.repository as { id: number };
    const workflowId = (p.workflow_run as { workflow_id: number }).workflow_id;
    expect(branchRunFrom(p)).toEqual({
      key: { installationId: 31, repoId: repo.id, workflowId, branch: 'main' },
      run: { runId: 501, runNumber: 40, headSha: 'a'.repeat(40) },
    });
  });

  it.each([
    ['a pull request’s run', { event: 'pull_request' }, /not a branch run/],
    ['a merge group’s run', { event: 'merge_group' }, /not a branch run/],
    ['a run without a head branch (a tag)', { event: 'push', head_branch: null }, /no head branch/],
    [
      'a fork’s run from a branch of the same name',
      { event: 'push', head_repository: { id: 999_999_999, full_name: 'fork/app' } },
      /head repository is not the repository/,
    ],
    ['a run without its number', { event: 'push', run_number: undefined }, /no run id, number/],
  ])('%s is not recorded', (_label, over, reason) => {
    expect(branchRunFrom(payload('completed', over))).toMatch(reason);
  });
});

describe('item 3: the record keeps the newest run, whatever order the events come in', () => {
  const key = { installationId: 31, repoId: 7, workflowId: 11, branch: 'main' };
  const run = (n: number, sha = 'a') => ({ runId: 1000 + n, runNumber: n, headSha: sha.repeat(40) });

  it('nothing recorded: undefined', async () => {
    expect(await runs.newest({ ...key, branch: 'never' })).toBeUndefined();
  });

  it('a newer run replaces an older one; an older run’s late event never moves it back; the same run again changes nothing', async () => {
    expect(await runs.record(key, run(5))).toBe(true);
    expect(await runs.record(key, run(7, 'b'))).toBe(true);
    expect(await runs.record(key, run(6, 'c'))).toBe(false);
    expect(await runs.record(key, run(7, 'b'))).toBe(false);
    expect(await runs.newest(key)).toEqual(run(7, 'b'));
  });

  it('branches, workflows, repositories and installations are kept apart', async () => {
    await runs.record(key, run(9));
    for (const other of [
      { ...key, branch: 'release' },
      { ...key, workflowId: 12 },
      { ...key, repoId: 8 },
      { ...key, installationId: 32 },
    ]) {
      expect(await runs.newest(other)).toBeUndefined();
    }
  });

  it('every item carries a TTL of 31 days', async () => {
    const k = { ...key, branch: 'ttl' };
    await runs.record(k, run(1));
    const item = await new Table(dynamo.client, TABLE).get<{ ttl: number }>(
      keys.branchRun(k.installationId, k.repoId, k.workflowId, k.branch),
      true,
    );
    expect(item?.ttl).toBe(Math.floor(NOW / 1000) + TTL.branchRun);
  });
});

describe('item 3: the intake records every workflow_run event and enqueues only completed red runs', () => {
  it.each(['requested', 'in_progress', 'completed'])(
    '%s of a green push run: recorded, nothing enqueued',
    async (action) => {
      const queue = new EmbeddedFifoQueue({ name: `branch-${action}.fifo` });
      const intake = createIntake({
        secrets: async () => [SECRET],
        deliveries: openLedger(dynamo.client, TABLE).deliveries,
        queue: embeddedRunQueue(queue),
        log: new MemoryLog(),
        metrics: new MemoryMetrics(),
        branchRuns: runs,
      });
      const branch = `intake-${action}`;
      const p = payload(action, {
        id: 7001,
        run_number: 70,
        event: 'push',
        head_branch: branch,
        conclusion: action === 'completed' ? 'success' : null,
      });
      const body = JSON.stringify(p);
      const res = await intake({
        method: 'POST',
        path: '/webhook',
        headers: {
          'x-github-event': 'workflow_run',
          'x-github-delivery': `guid-${action}`,
          'x-hub-signature-256': await sign(SECRET, body),
        },
        body: Buffer.from(body),
      });
      expect(res.status).toBe(202);
      expect(queue.size()).toBe(0);
      const reported = branchRunFrom(p);
      if (typeof reported === 'string') throw new Error(reported);
      expect(await runs.newest(reported.key)).toEqual({ runId: 7001, runNumber: 70, headSha: reported.run.headSha });
    },
  );
});
