import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FunctionName } from '../../lib/config/settings-schema.js';
import { leadingKeyOf, tableGrant, type TableAction } from '../../lib/ledger/access.js';
import { keys } from '../../lib/ledger/keys.js';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';
import { ledgerMessage } from './support.js';

const TABLE = 'access-test';
const T = Date.parse('2026-11-03T08:00:00Z');
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());
afterEach(() => vi.restoreAllMocks());

const ACTION: Record<string, TableAction> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
};

interface Request {
  readonly action: TableAction;
  /** The partition key the request names; none for a Scan. */
  readonly pk?: string;
}

/** Every request the table's document client sends while `run` runs. */
async function requestsOf(run: (ledger: Ledger) => Promise<unknown>): Promise<Request[]> {
  const seen: Request[] = [];
  const send = DynamoDBDocumentClient.prototype.send;
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (
    this: DynamoDBDocumentClient,
    command: { constructor: { name: string }; input: Record<string, unknown> },
  ) {
    const input = command.input as {
      Key?: { pk: string };
      Item?: { pk: string };
      ExpressionAttributeValues?: { ':pk'?: string };
    };
    const pk = input.Key?.pk ?? input.Item?.pk ?? input.ExpressionAttributeValues?.[':pk'];
    seen.push({ action: ACTION[command.constructor.name]!, ...(pk !== undefined && { pk }) });
    return (send as (c: unknown) => unknown).call(this, command);
  } as unknown as typeof send);
  await run(openLedger(dynamo.client, TABLE, () => T));
  vi.restoreAllMocks();
  return seen;
}

/** IAM's `StringLike`: `*` is any run of characters. */
const like = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

/** True when the function's grant lets it send this request, as IAM's `StringLike` on the leading key would. */
function allowed(fn: FunctionName, r: Request): boolean {
  const grant = tableGrant(fn);
  if (r.action === 'Scan') return grant.scan;
  return grant.keyed.some((g) => g.actions.includes(r.action) && g.leadingKeys.some((k) => like(k).test(r.pk ?? '')));
}

const msg = (runId: number, runAttempt = 1): RunMessage => ledgerMessage(runId, { runAttempt });
const BREAKER = { minOutcomes: 1, lostShare: 1, windowMs: 3_600_000, coolDownMs: 600_000 };
const PACE = { perMinute: 10, perHour: 0, spacingMs: 100 };
const branch = { installationId: 7, repoId: 9, workflowId: 1, branch: 'main' };
const job = { jobId: 5, runId: 1, runnerName: 'runner-i-0abc12345', repository: 'acme/web' };
const window = { beforeMs: 60_000, afterMs: 60_000 };
const signal = {
  runnerKey: 'i-0abc12345',
  kind: 'spot-interruption' as const,
  eventTime: new Date(T).toISOString(),
  eventId: 'e-1',
  source: 'aws.ec2',
};
const queuedJob = {
  installationId: 7,
  repoId: 9,
  repository: 'acme/web',
  runId: 1,
  runAttempt: 1,
  jobId: 5,
  name: 'build',
  workflowName: 'ci',
  headSha: 'abc',
  labels: [],
};

/** What each function's compose has its stores do (lib/compose/*.ts), store by store. */
const WORK: Record<FunctionName, (l: Ledger) => Promise<unknown>> = {
  intake: async (l) => {
    await l.deliveries.isSeen('g-1');
    await l.deliveries.markSeen('g-1', 'workflow_job');
    await l.runnerJobs().started(job, [job.runnerName]);
    await l.runnerJobs().finished(job, [job.runnerName]);
    await l.queuedJobs.queued(queuedJob);
    await l.queuedJobs.clear(queuedJob);
    expect(await l.outcomes(BREAKER).recordIfRerun({ ...queuedJob, runId: 40, runAttempt: 2 }, 'lost_again')).toBe(
      'recorded',
    );
    await l.branchRuns.record(branch, { runId: 1, runNumber: 1, headSha: 'abc' });
  },
  worker: async (l) => {
    const m = msg(41);
    await l.attempts.claim(m, 'w', 60_000);
    await l.attempts.wait(m, 'w', T, T, 60_000);
    await l.attempts.claim(m, 'x', 60_000);
    await l.attempts.noteCallFailed(m, 'x', '502');
    await l.attempts.finalise(m, 'x', 'retried', 'lost');
    await l.attempts.claim(msg(42), 'w', 60_000);
    await l.attempts.release(msg(42), 'w');
    const ref = { repoId: 9, pullRequest: 1, headSha: 'h', groupSha: 'g' };
    await l.requeues.claim(ref, 2);
    await l.requeues.release(ref);
    await l.budget(2).take(7, 'k');
    await l.budget(2).giveBack(7, 'k');
    await l.budget(2).usage(7);
    await l.pacing(PACE).reserve(7);
    await l.pacing(PACE).reserveTurn(7, T + 60_000, { repository: 9, aheadMs: 30_000 });
    await l.outcomes(BREAKER).state(7, { id: 9, name: 'acme/web' });
    await l.outcomes(BREAKER).look(7, { id: 9, name: 'acme/web' });
    await l.runnerSignals(3600).around([job.runnerName], null, window);
    await l.branchRuns.newest(branch);
  },
  ec2Signal: async (l) => {
    await l.runnerSignals(3600).record(signal);
    await l.runnerJobs().runningOn(['i-0abc12345']);
  },
  signalIntake: async (l) => {
    await l.runnerSignals(3600).firstSeen('post-1', T, 60_000);
    await l.runnerSignals(3600).firstSeen('post-1', T + 1, 60_000);
    await l.runnerSignals(3600).firstUse('sig-1', T + 60_000);
    await l.runnerSignals(3600).record({ ...signal, eventId: 'e-2', scope: ['acme'] });
  },
  reconciler: async (l) => {
    const store = l.reconcile(() => T + 120_000);
    await store.cursor('sweep');
    await store.saveCursor('sweep', { n: 1 });
    const { items } = await store.scanAttempts(undefined, 100, T + 120_000);
    await store.scanHeld(undefined, 100);
    const rec = items.find((r) => r.state !== 'decided');
    if (rec) {
      await store.markReclaim(rec, 9);
      await store.releaseOrphan(rec);
      await store.restoreClaim(rec);
      await store.recordOrphan(rec, 'retried', 'went through', {});
    }
    const decided = items.find((r) => r.state === 'decided');
    if (decided) await store.markFollowUp(decided, 'completed', 'green');
    await store.claimRedelivery('g-2', 1);
    await store.noteRedelivery('g-2', 'ok');
    await store.releaseRedelivery('g-2');
    await l.attempts.get(9, 41, 1);
    await l.deliveries.isSeen('g-1');
    await l.outcomes(BREAKER).recordIfRerun({ ...queuedJob, runId: 41, runAttempt: 2 }, 'lost_again');
    await l.outcomes(BREAKER).state(7);
    for (const j of await l.queuedJobs.sweepShare(50)) {
      await l.queuedJobs.markReported(j);
      await l.queuedJobs.clear(j);
    }
    await l.pacing(PACE).reserve(7);
  },
};

describe("each function's stores send only the requests its table grant allows", () => {
  beforeAll(async () => {
    // An expired claim and a decided re-run for the reconciler to find; a queued job for its sweep.
    const l = openLedger(dynamo.client, TABLE, () => T);
    await l.attempts.claim(msg(43), 'dead', 1_000);
    await l.attempts.claim(msg(44), 'w', 1_000);
    await l.attempts.finalise(msg(44), 'w', 'retried', 'lost');
    // A re-run by reprise whose next attempt's outcome the intake records, and the worker's breaker reads.
    await l.attempts.claim(msg(40), 'w', 1_000);
    await l.attempts.finalise(msg(40), 'w', 'retried', 'lost');
  });

  it.each(['intake', 'worker', 'ec2Signal', 'signalIntake'] as const)('%s', async (fn) => {
    const requests = await requestsOf(WORK[fn]);
    expect(requests.filter((r) => !allowed(fn, r))).toEqual([]);
    expect(requests.length).toBeGreaterThan(1);
  });

  it('reconciler, its Scan of run attempts among them', async () => {
    // The grant it needs beyond its own store: the queued job is the intake's write.
    await openLedger(dynamo.client, TABLE, () => T).queuedJobs.queued(queuedJob);
    const requests = await requestsOf(WORK.reconciler);
    expect(requests.filter((r) => r.action === 'Scan').length).toBeGreaterThan(0);
    expect(requests.filter((r) => !allowed('reconciler', r))).toEqual([]);
  });

  it('a request outside the grant is told apart: the signal intake may not read run attempts', async () => {
    const requests = await requestsOf((l) => l.attempts.get(9, 41, 1));
    expect(requests).toEqual([{ action: 'GetItem', pk: 'RUN#9#41' }]);
    expect(allowed('signalIntake', requests[0]!)).toBe(false);
    expect(allowed('worker', requests[0]!)).toBe(true);
  });
});

describe('grants', () => {
  it('a key’s leading-key pattern is its prefix to the first #, or the whole key', () => {
    expect(leadingKeyOf(keys.runAttempt(1, 2, 3))).toBe('RUN#*');
    expect(leadingKeyOf({ pk: 'QUEUEDINST', sk: 'x' })).toBe('QUEUEDINST');
  });

  it('merges a function’s actions per key and groups the keys that share one set of actions', () => {
    const grant = tableGrant('ec2Signal');
    expect(grant).toEqual({
      keyed: [
        // The signals and each EKS cluster's last pod listing: the same action, one grant.
        { actions: ['PutItem'], leadingKeys: ['EKSLISTING', 'RUNNER#*'] },
        { actions: ['Query'], leadingKeys: ['RUNNERJOB#*'] },
      ],
      scan: false,
    });
    const worker = tableGrant('worker');
    const run = worker.keyed.find((g) => g.leadingKeys.includes('RUN#*'))!;
    // The attempts' writes and the outcomes' reads of the prior attempt, one grant.
    expect(run.actions).toEqual(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']);
    expect(worker.keyed.flatMap((g) => g.leadingKeys).filter((k) => k === 'RUN#*')).toHaveLength(1);
    expect(tableGrant('reconciler').scan).toBe(true);
  });
});
