import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunMessage } from '../../lib/model.js';
import {
  PRIMARY_MESSAGE,
  RATE_LIMIT_SHAPES,
  SECONDARY_MESSAGE,
  type RateLimitShape,
  type SimFault,
  type SimJobSpec,
} from '../sim/index.js';
import { lostAnnotation, SHUTDOWN_LOG } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';

const LOST = lostAnnotation('r');
/** Longer than the client waits in process, so every shape goes back to the queue. */
const SECONDS = 30;

/** The fault a shape makes, with the headers it names and nothing else. */
function fault(shape: RateLimitShape, path: RegExp, method?: string): SimFault {
  return {
    ...(method && { method }),
    path,
    status: shape.status,
    message: shape.message ?? SECONDARY_MESSAGE,
    times: 20,
    ...(shape.signal === 'retry-after' && { retryAfter: SECONDS }),
    ...(shape.signal === 'reset' && { resetAfter: SECONDS }),
  };
}

/** What the worker should defer by: the named time, or GitHub's "at least a minute". */
const expectedDelay = (shape: RateLimitShape): [number, number] =>
  shape.signal === 'message' ? [60, 60] : [SECONDS - 2, SECONDS + 1];

const SHAPES: readonly RateLimitShape[] = [
  ...RATE_LIMIT_SHAPES,
  // A spent primary limit told in words only.
  { status: 403, signal: 'message', message: PRIMARY_MESSAGE },
];

const shapeName = (s: RateLimitShape): string =>
  `${s.status} ${s.signal}${s.message === PRIMARY_MESSAGE ? ' (primary)' : ''}`;

/**
 * Every place a decision reads from or writes to GitHub: the faults that put a rate limit there,
 * and a run whose right decision (a re-run) depends on reading past it.
 */
interface CallSite {
  readonly name: string;
  readonly jobs: SimJobSpec[];
  faults(shape: RateLimitShape, runId: number): SimFault[];
}

const CALL_SITES: readonly CallSite[] = [
  {
    name: 'job listing',
    jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    faults: (s, runId) => [fault(s, new RegExp(`/actions/runs/${runId}/jobs$`), 'GET')],
  },
  {
    name: 'GraphQL annotations',
    jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    faults: (s) => [fault(s, /^\/graphql$/, 'POST')],
  },
  {
    // GraphQL fails otherwise, so the annotations are read over REST; unreadable, the neutral
    // log would make the job genuine.
    name: 'REST annotations',
    jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    faults: (s) => [
      { path: /^\/graphql$/, status: 502, times: 20 },
      fault(s, /\/check-runs\/\d+\/annotations$/, 'GET'),
    ],
  },
  {
    name: 'job-log redirect',
    jobs: [{ name: 't', conclusion: 'failure', annotations: [], log: SHUTDOWN_LOG }],
    faults: (s) => [fault(s, /\/actions\/jobs\/\d+\/logs$/, 'GET')],
  },
  {
    name: 're-run call',
    jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    faults: (s, runId) => [fault(s, new RegExp(`/actions/runs/${runId}/rerun-failed-jobs$`), 'POST')],
  },
];

describe('every rate-limit shape at every call site: the message waits, and the later decision is right', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.sim.clearFaults());

  const table = CALL_SITES.flatMap((site) =>
    SHAPES.map((shape) => [site.name, shapeName(shape), site, shape] as const),
  );

  it.each(table)('%s answering %s', async (_site, _shape, site, shape) => {
    const run = h.sim.addRun({ repo: `acme/shape-${++seq}`, jobs: site.jobs });
    for (const f of site.faults(shape, run.id)) h.sim.injectFault(f);
    const message = h.message(run.id);
    const deferred: number[] = [];
    const first = await h.worker({ defer: async (_r, s) => void deferred.push(s) })(h.sqsEvent([message]));

    // Deferred by the time the answer names, and nothing recorded: no refusal, no verdict.
    expect(first.batchItemFailures).toHaveLength(1);
    const [low, high] = expectedDelay(shape);
    expect(deferred).toHaveLength(1);
    expect(deferred[0]).toBeGreaterThanOrEqual(low);
    expect(deferred[0]).toBeLessThanOrEqual(high);
    expect(await h.ledger.attempts.get(message.repository.id, run.id, 1)).toBeUndefined();
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(0);

    // The limit over, the same message decides the run as lost: one re-run.
    h.sim.clearFaults();
    const second = await h.worker()(h.sqsEvent([message]));
    expect(second.batchItemFailures).toHaveLength(0);
    expect((await h.ledger.attempts.get(message.repository.id, run.id, 1))?.decision).toBe('retried');
    expect(h.sim.reruns.filter((r) => r.runId === run.id)).toHaveLength(1);
  });

  it('a GraphQL rate limit told in a 200 (points spent) → the message waits for the reset', async () => {
    const run = h.sim.addRun({
      repo: `acme/shape-${++seq}`,
      jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
    });
    const message = h.message(run.id);
    const deferred: number[] = [];
    h.sim.setRateLimit('graphql', 10, 10);
    try {
      const first = await h.worker({ defer: async (_r, s) => void deferred.push(s) })(h.sqsEvent([message]));
      expect(first.batchItemFailures).toHaveLength(1);
      expect(deferred[0]).toBeGreaterThan(60);
      expect(await h.ledger.attempts.get(message.repository.id, run.id, 1)).toBeUndefined();
    } finally {
      h.sim.setRateLimit('graphql', 5000, 0);
    }
    await h.worker()(h.sqsEvent([message]));
    expect((await h.ledger.attempts.get(message.repository.id, run.id, 1))?.decision).toBe('retried');
  });
});

describe("GitHub's secondary limit on re-runs", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    h.sim.setSecondaryLimit(null);
    await h?.close();
  });

  it.each([
    ['with retry-after', { status: 403, signal: 'retry-after' } as const],
    ['with the message alone', { status: 403, signal: 'message' } as const],
  ])(
    'past the limit (%s): the refused re-runs wait and are made later, none recorded rejected',
    async (name, answer) => {
      const RUNS = 9;
      const MAX = 3;
      const WINDOW_MS = 1_500;
      h.sim.setSecondaryLimit({ limit: MAX, windowMs: WINDOW_MS, answer });
      const runs = Array.from({ length: RUNS }, (_, i) =>
        h.sim.addRun({
          repo: `acme/secondary-${name.length}-${i}`,
          jobs: [{ name: 't', conclusion: 'failure', annotations: [LOST] }],
        }),
      );
      const messages = runs.map((r) => h.message(r.id));
      let pending = messages;
      for (let round = 0; pending.length > 0 && round < 10; round++) {
        const deferred: number[] = [];
        const event = h.sqsEvent(pending);
        const res = await h.worker({ defer: async (_r, s) => void deferred.push(s) })(event);
        const failed = new Set(res.batchItemFailures.map((f) => f.itemIdentifier));
        const again = new Set(
          event.Records.filter((r) => failed.has(r.messageId)).map((r) => (JSON.parse(r.body) as RunMessage).runId),
        );
        pending = pending.filter((m) => again.has(m.runId));
        expect(deferred.every((s) => s >= 1)).toBe(true);
        if (pending.length > 0) await new Promise((r) => setTimeout(r, WINDOW_MS));
      }
      expect(pending).toHaveLength(0);
      for (const [i, r] of runs.entries()) {
        const m = messages[i]!;
        expect((await h.ledger.attempts.get(m.repository.id, r.id, 1))?.decision).toBe('retried');
        expect(h.sim.reruns.filter((x) => x.runId === r.id)).toHaveLength(1);
      }
      // The limit was met: some POSTs were refused on the way.
      const refused = h.sim.requests.filter(
        (q) => q.method === 'POST' && /rerun-failed-jobs$/.test(q.path) && q.status === 403,
      );
      expect(refused.length).toBeGreaterThan(0);
      h.sim.setSecondaryLimit(null);
    },
    60_000,
  );
});
