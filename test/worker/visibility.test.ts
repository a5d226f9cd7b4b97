/**
 * Issue 23 point 5: every deferral the worker asks for ends within SQS's 12 hours from the
 * message's first receive (ApproximateFirstReceiveTimestamp); a wait that cannot fit is decided
 * with a clear reason instead of being refused and coming back early.
 */
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_VISIBILITY_TIMEOUT_SECONDS } from '../../lib/queue/sqs-limits.js';
import {
  firstReceiveMs,
  fitBackoff,
  planWait,
  VISIBILITY_MARGIN_SECONDS,
  visibilityLeftSeconds,
} from '../../lib/worker/visibility.js';
import { lostJob } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';

const HOUR_S = 3600;
const T0 = Date.parse('2026-12-03T00:00:00Z');

describe('the visibility window, on a fake clock', () => {
  it('a message first received 11 h ago has an hour left, less the margin', () => {
    expect(visibilityLeftSeconds(T0, T0 + 11 * HOUR_S * 1000)).toBe(HOUR_S - VISIBILITY_MARGIN_SECONDS);
    expect(visibilityLeftSeconds(T0, T0 + 12 * HOUR_S * 1000)).toBe(0);
  });

  it('a wait that fits is deferred whole; one ending past 12 h from the first receive cannot fit, with the reason', () => {
    expect(planWait(1800, T0, T0 + 11 * HOUR_S * 1000)).toEqual({ kind: 'defer', seconds: 1800 });
    const plan = planWait(2 * HOUR_S, T0, T0 + 11 * HOUR_S * 1000);
    expect(plan).toMatchObject({ kind: 'cannot_fit', leftSeconds: HOUR_S - VISIBILITY_MARGIN_SECONDS });
    expect(plan.kind === 'cannot_fit' && plan.reason).toMatch(
      /12-hour visibility limit.*first received 2026-12-03T00:00:00.000Z/,
    );
  });

  it('a wait of 12 h asked on the first receive is not asked as 43200 s (which SQS refuses once any time has passed)', () => {
    const plan = planWait(MAX_VISIBILITY_TIMEOUT_SECONDS, T0, T0 + 1000);
    expect(plan.kind).toBe('cannot_fit');
    const fits = planWait(MAX_VISIBILITY_TIMEOUT_SECONDS - VISIBILITY_MARGIN_SECONDS - 1, T0, T0 + 1000);
    expect(fits).toEqual({ kind: 'defer', seconds: MAX_VISIBILITY_TIMEOUT_SECONDS - VISIBILITY_MARGIN_SECONDS - 1 });
  });

  it('a backoff is cut to the window, and none is asked once the window is spent', () => {
    expect(fitBackoff(900, T0, T0 + 1000)).toBe(900);
    expect(fitBackoff(900, T0, T0 + (12 * HOUR_S - VISIBILITY_MARGIN_SECONDS - 300) * 1000)).toBe(300);
    expect(fitBackoff(900, T0, T0 + 12 * HOUR_S * 1000)).toBeUndefined();
  });

  it('the first receive comes from ApproximateFirstReceiveTimestamp, else the send time, else now', () => {
    const rec = (a: Record<string, string>) => ({ attributes: a }) as unknown as SQSRecord;
    expect(
      firstReceiveMs(rec({ ApproximateFirstReceiveTimestamp: String(T0), SentTimestamp: String(T0 - 5) }), T0 + 9),
    ).toBe(T0);
    expect(firstReceiveMs(rec({ ApproximateFirstReceiveTimestamp: '', SentTimestamp: String(T0) }), T0 + 9)).toBe(T0);
    expect(firstReceiveMs(rec({}), T0 + 9)).toBe(T0 + 9);
  });
});

describe('the worker plans its deferrals inside the window', () => {
  let h: Harness;
  let deferred: { id: string; seconds: number }[];
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());
  beforeEach(() => {
    deferred = [];
    h.log.clear();
  });

  /** One re-run a minute: the second lost run of the installation waits about a minute for its turn. */
  const paced = () =>
    h.worker({
      pacing: h.ledger.pacing({ perMinute: 1, perHour: 0, spacingMs: 350 }),
      defer: async (r, seconds) => {
        deferred.push({ id: r.messageId, seconds });
      },
    });

  const receivedAt = (records: SQSRecord[], firstReceive: number) =>
    records.map((r) => ({
      ...r,
      attributes: { ...r.attributes, ApproximateFirstReceiveTimestamp: String(firstReceive) },
    }));

  async function twoLostRuns(repo: string, firstReceive: number) {
    // Each the head of its own branch: neither superseded the other.
    const runs = [1, 2].map((n) =>
      h.sim.addRun({ repo, headBranch: `lost-${n}`, jobs: [lostJob('test', 'runner-i-0abc1234def567890')] }),
    );
    const event = h.sqsEvent(runs.map((r) => h.message(r.id)));
    const res = await paced()({ Records: receivedAt(event.Records, firstReceive) });
    return { runs, event, res };
  }

  it('a turn that fits: the waiting run is deferred for its turn, within the window', async () => {
    const { runs, event, res } = await twoLostRuns('acme/vis-fits', Date.now());
    expect(h.sim.rerunTally(runs[0]!.id).received).toBe(1);
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([event.Records[1]!.messageId]);
    expect(deferred).toHaveLength(1);
    expect(deferred[0]!.seconds).toBeGreaterThan(30);
    expect(deferred[0]!.seconds).toBeLessThanOrEqual(MAX_VISIBILITY_TIMEOUT_SECONDS - VISIBILITY_MARGIN_SECONDS);
    expect(h.log.named('visibility change refused')).toEqual([]);
  });

  it('a turn that cannot fit (first received almost 12 h ago) is decided expired with the reason, not deferred', async () => {
    const { runs, res } = await twoLostRuns('acme/vis-late', Date.now() - (12 * HOUR_S - 30) * 1000);
    expect(res.batchItemFailures).toEqual([]);
    expect(deferred).toEqual([]);
    expect(h.sim.rerunTally(runs[1]!.id).received).toBe(0);
    const expired = h.log.named('decision').find((l) => l.run_id === runs[1]!.id);
    expect(expired).toMatchObject({ decision: 'expired' });
    expect(String(expired?.reason)).toMatch(/waiting for a re-run turn.*12-hour visibility limit/);
    const rec = await h.ledger.attempts.get(h.sim.repoId('acme/vis-late'), runs[1]!.id, 1);
    expect(rec).toMatchObject({ decision: 'expired' });
  });

  it('a transient fault near the end of the window backs off only as long as fits', async () => {
    const run = h.sim.addRun({ repo: 'acme/vis-fault', jobs: [lostJob('test', 'runner-i-0abc1234def567890')] });
    h.sim.injectFault({ path: /\/actions\/runs\/\d+/, status: 500, times: 100 });
    try {
      const first = Date.now() - (12 * HOUR_S - VISIBILITY_MARGIN_SECONDS - 4) * 1000;
      const event = h.sqsEvent([h.message(run.id)]);
      const res = await paced()({ Records: receivedAt(event.Records, first) });
      expect(res.batchItemFailures).toHaveLength(1);
      expect(deferred).toHaveLength(1);
      expect(deferred[0]!.seconds).toBeLessThanOrEqual(4);
    } finally {
      h.sim.clearFaults();
    }
  });

  it('a copy whose wait cannot fit, of an attempt another message waits for, is acknowledged and leaves that wait alone', async () => {
    const { runs, event } = await twoLostRuns('acme/vis-copy', Date.now());
    expect(await h.ledger.attempts.get(h.sim.repoId('acme/vis-copy'), runs[1]!.id, 1)).toMatchObject({
      state: 'waiting',
    });
    // A copy of the waiting run's message, first received almost 12 h ago, reaches another worker.
    const copy = h.sqsEvent([h.message(runs[1]!.id, `${event.Records[1]!.messageId}-copy`)]);
    const res = await paced()({ Records: receivedAt(copy.Records, Date.now() - (12 * HOUR_S - 30) * 1000) });
    expect(res.batchItemFailures).toEqual([]);
    // Settled at once as a copy: the message that holds the attempt comes back at its turn itself.
    expect(h.log.named('decision').at(-1)).toMatchObject({
      decision: 'duplicate',
      reason: expect.stringMatching(/waits for its re-run turn .* under another delivery/),
    });
    const rec = await h.ledger.attempts.get(h.sim.repoId('acme/vis-copy'), runs[1]!.id, 1);
    expect(rec).toMatchObject({ state: 'waiting' });
    expect(rec?.decision).toBeUndefined();
  });
});
