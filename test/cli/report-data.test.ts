import { describe, expect, it } from 'vitest';
import { recoveredShare, summarise } from '../../lib/cli/report-data.js';
import { DEAD_LETTERED } from '../../lib/replay/dead-letters.js';
import { reportHtml, reportText } from '../../lib/cli/report-render.js';
import type { DecidedAttempt } from '../../lib/records.js';

const T0 = Date.parse('2026-10-09T12:00:00Z');

/** A decided attempt whose details list its jobs as the worker records them: name, verdict, source. */
const decided = (
  runId: number,
  jobs: { verdict: string; source: string; family?: string; pattern?: string }[],
): DecidedAttempt => ({
  state: 'decided',
  owner: 'worker-1',
  claimedAt: T0 - 60_000,
  leaseUntil: T0,
  repository: 'acme/web',
  runId,
  runAttempt: 1,
  installationId: 42,
  decision: 'retried',
  reason: 'lost',
  decidedAt: T0 - 30_000,
  details: { workflow: 'CI', jobs: jobs.map((j, i) => ({ name: `job-${i}`, ...j })) },
});

describe('reprise report counts the lost jobs by the evidence that judged them lost', () => {
  const facts = {
    decisions: [
      decided(1, [{ verdict: 'infra', source: 'platform' }]),
      decided(2, [
        { verdict: 'infra', source: 'platform' },
        { verdict: 'infra', source: 'annotations' },
      ]),
      decided(3, [
        { verdict: 'infra', source: 'signal' },
        { verdict: 'genuine', source: 'annotations' },
      ]),
    ],
    outcomes: [],
    signals: [],
  };
  const r = summarise(facts, { sinceMs: T0 - 3_600_000, untilMs: T0, pricePerMinute: 0.008, top: 10 });

  it('GitHub’s platform failures are counted apart from runner losses; genuine jobs not at all', () => {
    expect(r.lostByEvidence).toEqual([
      { name: 'platform', count: 2 },
      { name: 'annotations', count: 1 },
      { name: 'signal', count: 1 },
    ]);
    expect(r.lost.jobs).toBe(4);
  });

  it('the text report prints the breakdown under the minutes lost', () => {
    expect(reportText(r, 'table t')).toContain('Lost jobs by evidence: platform 2, annotations 1, signal 1');
  });
});

describe('reprise report reads the recorded pattern of each lost job as data', () => {
  const facts = (decisions: DecidedAttempt[]) => ({ decisions, outcomes: [], signals: [] });
  const opts = { sinceMs: T0 - 3_600_000, untilMs: T0, pricePerMinute: 0.008, top: 10 };

  it('counts lost jobs by the pattern recorded beside the source; a signal names none, a genuine job is not counted', () => {
    const r = summarise(
      facts([
        decided(1, [{ verdict: 'infra', source: 'annotations', family: 'runner-loss', pattern: 'self-hosted-lost' }]),
        decided(2, [
          { verdict: 'infra', source: 'platform', family: 'platform', pattern: 'not-acquired' },
          { verdict: 'infra', source: 'logs', family: 'runner-loss', pattern: 'self-hosted-lost' },
          { verdict: 'infra', source: 'signal', family: 'signal' },
          { verdict: 'genuine', source: 'annotations', family: 'exit-code', pattern: 'exit-code' },
        ]),
      ]),
      opts,
    );
    expect(r.lostByPattern).toEqual([
      { name: 'self-hosted-lost', count: 2 },
      { name: 'not-acquired', count: 1 },
    ]);
    expect(r.lost.jobs).toBe(4);
  });

  it('a decision recorded before verdicts carried a family or pattern still reports, by its source, with the same figures', () => {
    const newer = decided(1, [
      { verdict: 'infra', source: 'annotations', family: 'runner-loss', pattern: 'hosted-lost' },
    ]);
    const older = decided(1, [{ verdict: 'infra', source: 'annotations' }]);
    const a = summarise(facts([newer]), opts);
    const b = summarise(facts([older]), opts);
    expect(b.lostByPattern).toEqual([]);
    expect({ ...b, lostByPattern: a.lostByPattern }).toEqual(a);
    expect(reportText(b, 'table t')).toContain('Lost jobs by evidence: annotations 1');
  });
});

const T1 = Date.parse('2026-12-03T12:00:00Z');
const decidedAs = (runId: number, decision: DecidedAttempt['decision']): DecidedAttempt => ({
  state: 'decided',
  owner: 'w',
  claimedAt: T1 - 60_000,
  leaseUntil: T1,
  repository: 'acme/queue',
  runId,
  runAttempt: 1,
  installationId: 1,
  decision,
  reason: 'r',
  decidedAt: T1 - 30_000,
  details: { workflow: 'CI', jobs: [{ name: 'test', verdict: 'infra', source: 'annotations' }] },
});
const options1 = { sinceMs: T1 - 3_600_000, untilMs: T1, pricePerMinute: 0.008, top: 5 };

describe('reprise report: pull requests put back in the merge queue', () => {
  it('counts requeued merge-group runs apart from re-runs, in the text and on the page', () => {
    const facts = {
      decisions: [decidedAs(1, 'requeued'), decidedAs(2, 'requeued'), decidedAs(3, 'retried')],
      outcomes: [],
      signals: [],
    };
    const r = summarise(facts, options1);
    expect(r.requeued).toBe(2);
    expect(r.reruns.total).toBe(1);
    expect(r.decisions.byDecision).toContainEqual({ name: 'requeued', count: 2 });
    expect(reportText(r, 'test')).toContain('Pull requests put back in the merge queue: 2');
    expect(reportHtml(r, 'test')).toContain('back in the merge queue');
  });

  it('says nothing about the merge queue where no pull request was put back', () => {
    const r = summarise({ decisions: [decidedAs(4, 'retried')], outcomes: [], signals: [] }, options1);
    expect(r.requeued).toBe(0);
    expect(reportText(r, 'test')).not.toContain('merge queue');
  });
});

const H = 3_600_000;
const T2 = Date.parse('2026-11-10T12:00:00Z');
const at = (hoursAgo: number) => T2 - hoursAgo * H;
/** A decision of acme/web's CI `hoursAgo` before T2, its lost jobs with their minutes (undefined: no times). */
const made = (
  runId: number,
  hoursAgo: number,
  decision: DecidedAttempt['decision'],
  lost: (number | undefined)[] = [],
  over: Partial<DecidedAttempt> = {},
): DecidedAttempt => ({
  state: 'decided',
  owner: 'w',
  claimedAt: at(hoursAgo),
  leaseUntil: at(hoursAgo),
  repository: 'acme/web',
  runId,
  runAttempt: 1,
  installationId: 1,
  decision,
  reason: 'r',
  decidedAt: at(hoursAgo),
  details: {
    workflow: 'CI',
    jobs: [
      {
        name: 'build',
        verdict: 'genuine',
        source: 'annotations',
        startedAt: '2026-11-10T00:00:00Z',
        completedAt: '2026-11-10T05:00:00Z',
      },
      ...lost.map((m, i) => ({
        name: `lost-${i}`,
        verdict: 'infra',
        source: 'signal',
        ...(m !== undefined && {
          startedAt: new Date(at(hoursAgo)).toISOString(),
          completedAt: new Date(at(hoursAgo) + m * 60_000).toISOString(),
        }),
      })),
    ],
  },
  ...over,
});
const week = { sinceMs: T2 - 7 * 24 * H, untilMs: T2, pricePerMinute: 0.01, top: 2 };

describe('summarise: the numbers of a period', () => {
  it('only decisions made in the period count; each re-run takes the outcome of its next attempt, or pending', () => {
    const r = summarise(
      {
        decisions: [
          made(1, 1, 'retried'),
          made(2, 2, 'retried_all'),
          made(3, 3, 'retried'),
          made(4, 4, 'no_infra_evidence'),
          made(5, 24 * 8, 'retried'),
          made(6, 1, 'stale', [], { decidedAt: undefined }),
        ],
        outcomes: [
          { repository: 'acme/web', runId: 1, runAttempt: 2, outcome: 'recovered', recordedAt: T2 },
          { repository: 'acme/web', runId: 2, runAttempt: 2, outcome: 'lost_again', recordedAt: T2 },
          { repository: 'acme/web', runId: 3, runAttempt: 1, outcome: 'failed', recordedAt: T2 },
        ],
        signals: [],
      },
      week,
    );
    expect(r.decisions.total).toBe(4);
    expect(r.decisions.byDecision).toEqual([
      { name: 'retried', count: 2 },
      { name: 'no_infra_evidence', count: 1 },
      { name: 'retried_all', count: 1 },
    ]);
    expect(r.reruns).toEqual({
      total: 3,
      outcomes: { recovered: 1, lost_again: 1, failed: 0, cancelled: 0, pending: 1 },
    });
    expect(recoveredShare(r)).toBe(0.5);
  });

  it('no finished re-run: no recovered share', () => {
    expect(recoveredShare(summarise({ decisions: [made(1, 1, 'retried')], outcomes: [], signals: [] }, week))).toBe(
      undefined,
    );
  });

  it('dead-lettered decisions are counted by their reason', () => {
    const r = summarise(
      {
        decisions: [
          made(1, 1, 'abandoned', [], { reason: `${DEAD_LETTERED} after 5 receives` }),
          made(2, 1, 'abandoned'),
        ],
        outcomes: [],
        signals: [],
      },
      week,
    );
    expect(r.decisions.deadLettered).toBe(1);
  });

  it("lost minutes are the infra jobs' own times, to a tenth; jobs without times count as lost with no minutes; the cost at the price", () => {
    const r = summarise(
      { decisions: [made(1, 1, 'retried', [10.04, 2.5, undefined])], outcomes: [], signals: [] },
      week,
    );
    expect(r.lost).toEqual({ jobs: 3, jobsWithoutTimes: 1, minutes: 12.5, pricePerMinute: 0.01, cost: 0.13 });
    expect(r.lostByEvidence).toEqual([{ name: 'signal', count: 3 }]);
  });

  it('the buckets: hours up to two days, days up to 120, weeks beyond; each lost job in the bucket of its decision', () => {
    const facts = { decisions: [made(1, 0.5, 'retried', [6]), made(2, 30, 'retried', [4])], outcomes: [], signals: [] };
    const twoDays = summarise(facts, { ...week, sinceMs: T2 - 48 * H });
    expect(twoDays.period).toEqual({
      since: '2026-11-08T12:00:00.000Z',
      until: '2026-11-10T12:00:00.000Z',
      bucket: 'hour',
    });
    expect(twoDays.overTime).toHaveLength(49);
    expect(twoDays.overTime.at(-1)).toEqual({ start: '2026-11-10T12:00:00.000Z', minutes: 0, jobs: 0 });
    expect(twoDays.overTime.at(-2)).toEqual({ start: '2026-11-10T11:00:00.000Z', minutes: 6, jobs: 1 });
    const days = summarise(facts, week);
    expect(days.period.bucket).toBe('day');
    expect(days.overTime.filter((b) => b.jobs > 0)).toEqual([
      { start: '2026-11-09T00:00:00.000Z', minutes: 4, jobs: 1 },
      { start: '2026-11-10T00:00:00.000Z', minutes: 6, jobs: 1 },
    ]);
    expect(summarise(facts, { ...week, sinceMs: T2 - 200 * 24 * H }).period.bucket).toBe('week');
  });

  it('the top repositories and workflows by minutes lost, then jobs, at most `top`; none without a lost job', () => {
    const api = (runId: number, lost: number[], workflow = 'CI') =>
      made(runId, 1, 'retried', lost, {
        repository: 'acme/api',
        details: {
          workflow,
          jobs: [
            {
              name: 'x',
              verdict: 'infra',
              startedAt: '2026-11-10T10:00:00Z',
              completedAt: new Date(Date.parse('2026-11-10T10:00:00Z') + (lost[0] ?? 0) * 60_000).toISOString(),
            },
          ],
        },
      });
    const r = summarise(
      {
        decisions: [
          made(1, 1, 'retried', [5, 5]),
          api(2, [30]),
          made(3, 1, 'retried', [], { repository: 'acme/quiet' }),
          made(4, 1, 'retried', [1], { repository: 'acme/docs', details: { jobs: [{ verdict: 'infra' }] } }),
        ],
        outcomes: [],
        signals: [],
      },
      week,
    );
    expect(r.topRepositories).toEqual([
      { name: 'acme/api', minutes: 30, jobs: 1 },
      { name: 'acme/web', minutes: 10, jobs: 2 },
    ]);
    expect(r.topWorkflows.map((w) => [w.repository, w.workflow, w.minutes])).toEqual([
      ['acme/api', 'CI', 30],
      ['acme/web', 'CI', 10],
    ]);
    const all = summarise(
      {
        decisions: [made(4, 1, 'retried', [], { details: { jobs: [{ verdict: 'infra' }] } })],
        outcomes: [],
        signals: [],
      },
      week,
    );
    expect(all.topWorkflows).toEqual([
      { name: 'acme/web · unknown', repository: 'acme/web', workflow: 'unknown', minutes: 0, jobs: 1 },
    ]);
    expect(all.lostByEvidence).toEqual([{ name: 'unknown', count: 1 }]);
  });

  it('interruptions: one per instance whichever runner keys and sources reported it, in the period, by type and zone', () => {
    const sig = (runnerKey: string, instanceId: string | undefined, hoursAgo: number, over: object = {}) => ({
      runnerKey,
      kind: 'spot-interruption' as const,
      eventTime: new Date(at(hoursAgo)).toISOString(),
      eventId: `e-${runnerKey}`,
      source: 'aws.ec2',
      ...(instanceId && { instanceId }),
      ...over,
    });
    const r = summarise(
      {
        decisions: [],
        outcomes: [],
        signals: [
          sig('i-1', 'i-1', 1, { instanceType: 'm7g.large' }),
          sig('runner-a', 'i-1', 1, { availabilityZone: 'eu-west-1a', source: 'agent' }),
          sig('i-2', 'i-2', 2, { instanceType: 'm7g.large', availabilityZone: 'eu-west-1b' }),
          sig('i-3', undefined, 3),
          sig('i-4', 'i-4', 24 * 9),
          { ...sig('i-5', 'i-5', 1), kind: 'rebalance' as const },
        ],
      },
      week,
    );
    expect(r.interruptions).toEqual({
      total: 3,
      byInstanceType: [
        { name: 'm7g.large', count: 2 },
        { name: 'unknown', count: 1 },
      ],
      byZone: [
        { name: 'eu-west-1a', count: 1 },
        { name: 'eu-west-1b', count: 1 },
        { name: 'unknown', count: 1 },
      ],
    });
  });
});
